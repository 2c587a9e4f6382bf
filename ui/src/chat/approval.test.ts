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
    // In plain words ("no rule matched: asking" is the gate's log line).
    expect(panel.querySelector(".approval-reason")!.textContent).toBe("Needs your approval — no rule covers it");
    expect(Array.from(panel.querySelectorAll(".diff > div")).map((d) => d.textContent)).toEqual(["- old", "+ new"]);
    (panel.querySelector("[data-testid=approve]") as HTMLButtonElement).click();
    expect(a.approve).toHaveBeenCalledWith("c1");
    expect((panel.querySelector("[data-testid=reject]") as HTMLButtonElement).disabled).toBe(true);
  });

  it("says which rule asks in plain words", () => {
    const panel = approvalPanel({ ...write, reason: "asked by rule 11: *" }, actions());
    expect(panel.querySelector(".approval-reason")!.textContent).toBe("Needs your approval — default rule for write_file");
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

describe("approval panel by keyboard", () => {
  const key = (target: Element, k: string, mods: KeyboardEventInit = {}) =>
    target.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true, ...mods }));
  /** Three waiting panels in the page, as the chat shows a message's calls. */
  function three() {
    const acts = actions();
    const panels = ["c1", "c2", "c3"].map((id) => approvalPanel({ ...write, toolCallId: id }, acts));
    const root = document.createElement("div");
    root.append(...panels);
    document.body.append(root);
    return { acts, panels, root };
  }

  it("a panel takes the focus by Tab order and by a click on it, not on its buttons", () => {
    const { panels, root } = three();
    expect(panels[0].tabIndex).toBe(0);
    (panels[1].querySelector(".approval-reason") as HTMLElement).click();
    expect(document.activeElement).toBe(panels[1]);
    (panels[2].querySelector(".approval-note") as HTMLInputElement).focus();
    (panels[2].querySelector(".approval-note") as HTMLElement).click();
    expect(document.activeElement).toBe(panels[2].querySelector(".approval-note"));
    root.remove();
  });

  it("A approves the focused panel, R rejects one with its reason, and the focus moves to the next waiting one", () => {
    const { acts, panels, root } = three();
    panels[0].focus();
    key(panels[0], "a");
    expect(acts.approve.mock.calls).toEqual([["c1"]]);
    expect(document.activeElement).toBe(panels[1]);
    (panels[1].querySelector(".approval-note") as HTMLInputElement).value = "not that one";
    key(panels[1], "R");
    expect(acts.reject.mock.calls).toEqual([["c2", "not that one"]]);
    expect(document.activeElement).toBe(panels[2]);
    // The last one: the focus goes back to one still waiting (none is), so it stays.
    key(panels[2], "a");
    expect(acts.approve.mock.calls.map(([id]) => id)).toEqual(["c1", "c3"]);
    root.remove();
  });

  it("the last panel hands the focus back to an earlier one still waiting", () => {
    const { acts, panels, root } = three();
    panels[2].focus();
    key(panels[2], "a");
    expect(acts.approve.mock.calls).toEqual([["c3"]]);
    expect(document.activeElement).toBe(panels[1]);
    root.remove();
  });

  it("letters typed into the reason, modified keys and a panel already answered do nothing", () => {
    const { acts, panels, root } = three();
    const note = panels[0].querySelector(".approval-note") as HTMLInputElement;
    note.focus();
    key(note, "a");
    key(note, "r");
    key(panels[0], "a", { ctrlKey: true });
    key(panels[0], "x");
    expect(acts.approve).not.toHaveBeenCalled();
    expect(acts.reject).not.toHaveBeenCalled();
    panels[0].focus();
    key(panels[0], "a");
    key(panels[0], "a");
    key(panels[0], "r");
    expect(acts.approve).toHaveBeenCalledTimes(1);
    expect(acts.reject).not.toHaveBeenCalled();
    root.remove();
  });
});

describe("approval events", () => {
  const start = () => {
    let view = applyEvent(emptyView(), { type: "turnStarted", sessionId: "s" });
    for (const id of ["c1", "c2"])
      view = applyEvent(view, {
        type: "toolStart",
        sessionId: "s",
        call: { id, name: "write_file", labelShort: "", labelFull: "", path: "/w/a.txt", arguments: {}, status: "running", result: null, decisionReason: null },
      });
    view = applyEvent(view, { type: "approvalRequired", sessionId: "s", request: write });
    return applyEvent(view, { type: "approvalRequired", sessionId: "s", request: { ...write, toolCallId: "c2" } });
  };

  it("an answered write keeps the diff its approval showed, approved or rejected", () => {
    let view = start();
    view = applyEvent(view, { type: "toolAllowed", sessionId: "s", toolCallId: "c1", reason: "approved by you" });
    view = applyEvent(view, { type: "toolDone", sessionId: "s", toolCallId: "c1", result: "Wrote 4 bytes" });
    view = applyEvent(view, { type: "toolRejected", sessionId: "s", toolCallId: "c2", reason: "User rejected this tool call." });
    const [done, rejected] = view.messages[0].toolCalls;
    expect(done.writePreview).toEqual({ oldContent: "old\n", newContent: "new\n" });
    expect(rejected.writePreview).toEqual({ oldContent: "old\n", newContent: "new\n" });
    expect(view.approvals).toEqual({});
  });

  it("a write a rule or a bypass let through brings its diff with it, and keeps it once done", () => {
    let view = applyEvent(emptyView(), { type: "turnStarted", sessionId: "s" });
    view = applyEvent(view, {
      type: "toolStart",
      sessionId: "s",
      call: { id: "r1", name: "write_file", labelShort: "", labelFull: "", path: "/w/b.txt", arguments: {}, status: "running", result: null, decisionReason: null },
    });
    const writePreview = { oldContent: "a\n", newContent: "b\n", note: "Large file: only the changed lines are kept here, from line 1 (0 lines before the change unchanged)." };
    view = applyEvent(view, { type: "toolAllowed", sessionId: "s", toolCallId: "r1", reason: "allowed by rule 4: write_file", writePreview });
    view = applyEvent(view, { type: "toolDone", sessionId: "s", toolCallId: "r1", result: "Wrote 2 bytes" });
    const [done] = view.messages[0].toolCalls;
    expect(done.writePreview).toEqual(writePreview);
    expect(done.decisionReason).toBe("allowed by rule 4: write_file");
    expect(done.status).toBe("done");
  });

  it("a call allowed without an approval, or one that asked with no diff, gets none", () => {
    let view = start();
    view = applyEvent(view, { type: "toolAllowed", sessionId: "s", toolCallId: "c9", reason: "allowed by rule 3" });
    const generic = applyEvent(view, { type: "approvalRequired", sessionId: "s", request: { ...write, toolCallId: "c2", kind: { type: "generic" } } });
    const after = applyEvent(generic, { type: "toolAllowed", sessionId: "s", toolCallId: "c2", reason: "approved" });
    expect(after.messages[0].toolCalls[1].writePreview).toBeUndefined();
  });

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
