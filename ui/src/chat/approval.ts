// The approval card: what a waiting call would do (a diff for file writes,
// the full command for the shell), and the person's answer.
import type { ApprovalRequest } from "../bindings";
import { el } from "../dom";
import { renderDiff } from "./diff";

export interface ApprovalActions {
  approve(toolCallId: string): Promise<void>;
  reject(toolCallId: string, note: string | null): Promise<void>;
  /** The rule "always allow" would save, as text, before it is saved. */
  previewAlwaysAllow(toolCallId: string): Promise<string>;
  alwaysAllow(toolCallId: string): Promise<void>;
}

function what(req: ApprovalRequest): HTMLElement {
  const kind = req.kind;
  switch (kind.type) {
    case "write": {
      if (kind.newContent === null) {
        return el("p", { class: "muted" }, `Writes ${kind.path} (the result cannot be predicted; the call may fail).`);
      }
      const { node, stats } = renderDiff(kind.oldContent ?? "", kind.newContent);
      const head = kind.oldContent === null ? `New file ${kind.path}` : `${kind.path}: +${stats.added} −${stats.removed}`;
      return el("div", {}, el("div", { class: "approval-what" }, head), node);
    }
    case "command":
      return el(
        "div",
        {},
        el("div", { class: "approval-what" }, `Runs in ${kind.workingDir ?? "the working directory"}:`),
        el("pre", { class: "approval-command", "data-testid": "approval-command" }, kind.command),
      );
    case "generic":
      return el("pre", { class: "tool-args" }, JSON.stringify(req.arguments, null, 2));
  }
}

export function approvalPanel(req: ApprovalRequest, actions: ApprovalActions): HTMLElement {
  const note = el("input", { type: "text", class: "approval-note", placeholder: "Reason (optional, the model reads it)", "aria-label": "Reason" });
  const status = el("div", { class: "approval-status", role: "status" });
  const approve = el("button", { type: "button", class: "approve", "data-testid": "approve" }, "Approve");
  const reject = el("button", { type: "button", class: "reject", "data-testid": "reject" }, "Reject");
  const always = el("button", { type: "button", class: "always", "data-testid": "always-allow" }, "Always allow…");
  const buttons = [approve, reject, always];
  const busy = (on: boolean) => buttons.forEach((b) => (b.disabled = on));
  const fail = (e: unknown) => {
    busy(false);
    status.textContent = e && typeof e === "object" && "message" in e ? String((e as { message: unknown }).message) : String(e);
  };
  approve.addEventListener("click", () => {
    busy(true);
    actions.approve(req.toolCallId).catch(fail);
  });
  reject.addEventListener("click", () => {
    busy(true);
    actions.reject(req.toolCallId, note.value.trim() || null).catch(fail);
  });
  always.addEventListener("click", async () => {
    try {
      const rule = await actions.previewAlwaysAllow(req.toolCallId);
      const confirm = el("button", { type: "button", class: "approve", "data-testid": "confirm-rule" }, "Save rule and run");
      confirm.addEventListener("click", () => {
        busy(true);
        confirm.disabled = true;
        actions.alwaysAllow(req.toolCallId).catch(fail);
      });
      status.replaceChildren(el("span", {}, "Will save: "), el("code", { "data-testid": "rule-preview" }, rule), " ", confirm);
    } catch (e) {
      fail(e);
    }
  });
  return el(
    "div",
    { class: "approval", "data-testid": "approval", "data-tool-call": req.toolCallId },
    el("div", { class: "approval-reason" }, `Needs your approval — ${req.reason}`),
    what(req),
    el("div", { class: "approval-actions" }, approve, note, reject, always),
    status,
  );
}
