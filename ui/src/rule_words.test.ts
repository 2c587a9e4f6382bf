import { describe, expect, it } from "vitest";
import { deniedByRule, outcomeWords, plainReason } from "./rule_words";

describe("rule outcomes in plain language", () => {
  it("names the default rule and the tool instead of a rule number", () => {
    expect(plainReason("asked by rule 11: *", "write_file")).toBe("asks you: default rule for write_file");
    expect(plainReason("allowed by rule 12: @fs_read docs/*")).toBe("allowed: rule for fs read tools on docs/*");
    expect(plainReason("denied by rule 4: execute_cmd")).toBe("blocked: rule for execute_cmd");
    expect(plainReason("allowed by the run context: reads under docs/ (rule 11: * asks)")).toBe("allowed by the run context: reads under docs/");
    expect(plainReason("no rule matched: asking")).toBe("asks you: no rule covers it");
    expect(plainReason("something new")).toBe("something new");
  });
  it("tells a rule's deny from a person's rejection", () => {
    expect(deniedByRule("denied by rule 4: execute_cmd")).toBe(true);
    expect(outcomeWords("rejected", "denied by rule 4: execute_cmd")).toBe("Blocked by a rule (rule for execute_cmd)");
    expect(outcomeWords("rejected", "asked by rule 11: *", "write_file")).toBe("You rejected it");
    expect(outcomeWords("rejected", "asked by rule 11: *")).not.toEqual(outcomeWords("rejected", "denied by rule 11: *"));
  });
});
