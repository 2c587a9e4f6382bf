// Rule outcomes in plain language. The gate's reason is a terse log line
// ("asked by rule 11: *"); people read "asks you: default rule for
// write_file". A rule's deny and a person's rejection are different events
// and read differently.
import type { ToolCallStatus } from "./bindings";

const VERBS: Record<string, string> = { allowed: "allowed", asked: "asks you", denied: "blocked" };

/** A rule's pattern in words: `*` is the default rule. */
export function patternWords(toolPattern: string, pathPattern: string | null, tool?: string): string {
  if (toolPattern === "*" && !pathPattern) return tool ? `default rule for ${tool}` : "the default rule (any other tool)";
  const who = toolPattern.startsWith("@") ? `${toolPattern.slice(1).replace(/_/g, " ")} tools` : toolPattern.endsWith("*") ? `tools starting ${toolPattern.slice(0, -1)}` : toolPattern;
  return pathPattern ? `rule for ${who} on ${pathPattern}` : `rule for ${who}`;
}

/**
 * The gate's reason as a sentence: "asked by rule 11: *" → "asks you:
 * default rule for write_file"; "denied by rule 4: execute_cmd" → "blocked:
 * rule for execute_cmd". Reasons it does not know pass through.
 */
export function plainReason(reason: string | null | undefined, tool?: string): string {
  if (!reason) return "";
  const m = /^(allowed|asked|denied) by rule \d+: (\S+)(?: (.+))?$/.exec(reason.trim());
  if (m) return `${VERBS[m[1]]}: ${patternWords(m[2], m[3] ?? null, tool)}`;
  const fast = /^allowed by (.+?) \((?:rule \d+: (\S+)(?: (.+?))? asks|no rule matched)\)$/.exec(reason.trim());
  if (fast) return `allowed by ${fast[1]}`;
  if (reason === "no rule matched: asking") return "asks you: no rule covers it";
  return reason;
}

/** Whether a rule (not a person) stopped the call. */
export function deniedByRule(reason: string | null | undefined): boolean {
  return !!reason && /^denied by /.test(reason.trim());
}

/** How a finished call's outcome reads: a rule's block is not the person's "no". */
export function outcomeWords(status: ToolCallStatus, reason: string | null | undefined, tool?: string): string {
  if (status === "rejected") return deniedByRule(reason) ? `Blocked by a rule (${plainReason(reason, tool).replace(/^blocked: /, "")})` : "You rejected it";
  if (status === "pending") return plainReason(reason, tool) || "Waiting for you";
  return plainReason(reason, tool);
}
