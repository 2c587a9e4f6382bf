// The approval card: what a waiting call would do (a diff for file writes,
// the full command for the shell), and the person's answer.
import type { ApprovalRequest } from "../bindings";
import { el } from "../dom";
import { plainReason } from "../rule_words";
import { approvalCardKey, isTyping } from "../shortcuts";
import { renderDiff } from "./diff";

export interface ApprovalActions {
  approve(toolCallId: string): Promise<void>;
  reject(toolCallId: string, note: string | null): Promise<void>;
  /** The rule "always allow" would save, as text, before it is saved. */
  previewAlwaysAllow(toolCallId: string): Promise<string>;
  alwaysAllow(toolCallId: string): Promise<void>;
}

/** A write's change as a diff under its head line ("a.txt: +1 −1"). */
export function writeDiff(path: string, oldContent: string | null, newContent: string | null): HTMLElement {
  if (newContent === null) {
    return el("p", { class: "muted" }, `Writes ${path} (the result cannot be predicted; the call may fail).`);
  }
  const { node, stats } = renderDiff(oldContent ?? "", newContent);
  const head = oldContent === null ? `New file ${path}` : `${path}: +${stats.added} −${stats.removed}`;
  return el("div", {}, el("div", { class: "approval-what" }, head), node);
}

function what(req: ApprovalRequest): HTMLElement {
  const kind = req.kind;
  switch (kind.type) {
    case "write":
      return writeDiff(kind.path, kind.oldContent, kind.newContent);
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
  // The panel takes focus (Tab, or a click on it), and then A approves it
  // and R rejects it (with the reason typed, if any); the focus moves on to
  // the next waiting panel, so a row of calls is answered key by key.
  const panel = el(
    "div",
    { class: "approval", "data-testid": "approval", "data-tool-call": req.toolCallId, tabindex: "0", "aria-label": `Approval: ${req.labelShort}` },
    el("div", { class: "approval-reason", title: req.reason }, `Needs your approval — ${plainReason(req.reason, req.name).replace(/^asks you: /, "")}`),
    what(req),
    el("div", { class: "approval-actions" }, approve, note, reject, always, el("span", { class: "approval-keys muted", "aria-hidden": "true" }, "A approve · R reject")),
    status,
  );
  panel.addEventListener("keydown", (e) => {
    const answer = isTyping(e.target) ? null : approvalCardKey(e);
    if (!answer || approve.disabled) return;
    e.preventDefault();
    e.stopPropagation();
    (answer === "approve" ? approve : reject).click();
    focusNextApproval(panel);
  });
  panel.addEventListener("click", (e) => {
    // Not a button, link or field: the click focuses the panel for its keys.
    if (!(e.target as Element).closest("button, a, input, textarea, select")) panel.focus();
  });
  return panel;
}

/** Focuses the waiting panel after `from` (else the one before it), in
 *  page order; one whose answer is on its way (buttons disabled) is skipped. */
export function focusNextApproval(from: HTMLElement): void {
  const scope = from.ownerDocument;
  const all = Array.from(scope.querySelectorAll<HTMLElement>("[data-testid=approval]")).filter(
    (p) => p === from || !p.querySelector<HTMLButtonElement>("[data-testid=approve]")?.disabled,
  );
  const at = all.indexOf(from);
  const next = all.slice(at + 1)[0] ?? all.slice(0, Math.max(0, at)).reverse()[0];
  next?.focus();
}
