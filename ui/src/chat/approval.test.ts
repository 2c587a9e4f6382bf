import { describe, expect, it, vi } from "vitest";
import type { ApprovalRequest } from "../bindings";
import { approvalPanel } from "./approval";
import { applyEvent, emptyView } from "./state";

const write: ApprovalRequest = {
  toolCallId: "c1",
  name: "write_file",
  labelShort: "write_file a.txt",
  labelFull: "write_file /w/a.txt",
  path: "/w/a.txt",
  arguments: { path: "/w/a.txt", content: "new\n" },
  reason: "no rule matched: asking",
  kind: { type: "write", path: "/w/a.txt", oldContent: "old\n", newContent: "new\n" },
};

function actions() {
  return {
    approve: vi.fn().mockResolvedValue(undefined),
    reject: vi.fn().mockResolvedValue(undefined),
    previewAlwaysAllow: vi.fn().mockResolvedValue("default: write_file /w/* → allow"),
    alwaysAllow: vi.fn().mockResolvedValue(undefined),
  };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("approval panel", () => {
  it("shows the diff of a write and approves", () => {
    const a = actions();
    const panel = approvalPanel(write, a);
    expect(panel.textContent).toContain("no rule matched: asking");
    expect(Array.from(panel.querySelectorAll(".diff > div")).map((d) => d.textContent)).toEqual(["- old", "+ new"]);
    (panel.querySelector("[data-testid=approve]") as HTMLButtonElement).click();
    expect(a.approve).toHaveBeenCalledWith("c1");
    expect((panel.querySelector("[data-testid=reject]") as HTMLButtonElement).disabled).toBe(true);
  });

  it("shows the full command of a shell call and rejects with a note", () => {
    const a = actions();
    const req: ApprovalRequest = {
      ...write,
      name: "execute_cmd",
      kind: { type: "command", command: "rm -rf build && make", workingDir: "/w" },
    };
    const panel = approvalPanel(req, a);
    expect(panel.querySelector("[data-testid=approval-command]")!.textContent).toBe("rm -rf build && make");
    expect(panel.textContent).toContain("Runs in /w");
    (panel.querySelector(".approval-note") as HTMLInputElement).value = "  not now ";
    (panel.querySelector("[data-testid=reject]") as HTMLButtonElement).click();
    expect(a.reject).toHaveBeenCalledWith("c1", "not now");
  });

  it("shows the rule before saving it", async () => {
    const a = actions();
    const panel = approvalPanel(write, a);
    (panel.querySelector("[data-testid=always-allow]") as HTMLButtonElement).click();
    await flush();
    expect(panel.querySelector("[data-testid=rule-preview]")!.textContent).toBe("default: write_file /w/* → allow");
    expect(a.alwaysAllow).not.toHaveBeenCalled();
    (panel.querySelector("[data-testid=confirm-rule]") as HTMLButtonElement).click();
    expect(a.alwaysAllow).toHaveBeenCalledWith("c1");
  });

  it("reports a failed answer and lets the person try again", async () => {
    const a = actions();
    a.approve.mockRejectedValue({ code: "not_found", message: "no such pending call" });
    const panel = approvalPanel(write, a);
    (panel.querySelector("[data-testid=approve]") as HTMLButtonElement).click();
    await flush();
    expect(panel.querySelector(".approval-status")!.textContent).toBe("no such pending call");
    expect((panel.querySelector("[data-testid=approve]") as HTMLButtonElement).disabled).toBe(false);
  });
});

describe("approval events", () => {
  it("mark the call pending and clear when it runs", () => {
    let view = applyEvent(emptyView(), { type: "turnStarted", sessionId: "s" });
    view = applyEvent(view, {
      type: "toolStart",
      sessionId: "s",
      call: { id: "c1", name: "write_file", labelShort: "", labelFull: "", path: null, arguments: {}, status: "running", result: null, decisionReason: null },
    });
    view = applyEvent(view, { type: "approvalRequired", sessionId: "s", request: write });
    expect(view.messages[0].toolCalls[0].status).toBe("pending");
    expect(view.approvals.c1).toEqual(write);
    view = applyEvent(view, { type: "toolDone", sessionId: "s", toolCallId: "c1", result: "Created" });
    expect(view.approvals.c1).toBeUndefined();
  });
});
