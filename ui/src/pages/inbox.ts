// The Agent Inbox: every call waiting for a person, across sessions. Pending
// rows in the database are its truth, so it survives a restart.
import * as api from "../api";
import type { PendingApprovalView } from "../bindings";
import { approvalPanel } from "../chat/approval";
import { el } from "../dom";

export async function mountInbox(root: HTMLElement, deps = { api }): Promise<void> {
  let pending: PendingApprovalView[];
  try {
    pending = await deps.api.listPending();
  } catch (e) {
    root.replaceChildren(el("h1", {}, "Inbox"), el("p", { class: "error", role: "alert" }, api.errorMessage(e)));
    return;
  }
  const refresh = () => void mountInbox(root, deps);
  const actions = {
    approve: async (id: string) => {
      await deps.api.approveCall(id);
      refresh();
    },
    reject: async (id: string, note: string | null) => {
      await deps.api.rejectCall(id, note);
      refresh();
    },
    previewAlwaysAllow: (id: string) => deps.api.previewAlwaysAllow(id),
    alwaysAllow: async (id: string) => {
      await deps.api.alwaysAllow(id);
      refresh();
    },
  };
  const items = pending.map((p) =>
    el(
      "section",
      { class: "inbox-item", "data-testid": "inbox-item", "data-tool-call": p.request.toolCallId },
      el(
        "h2",
        {},
        el("a", { href: `#/chat/${p.sessionId}` }, p.sessionTitle || "Chat"),
        " · ",
        el("code", { title: p.request.labelFull }, p.request.labelShort),
      ),
      approvalPanel(p.request, actions),
    ),
  );
  root.replaceChildren(
    el("h1", {}, "Inbox"),
    el("p", { class: "muted", "data-testid": "inbox-count" }, pending.length === 0 ? "Nothing is waiting for you." : `${pending.length} waiting for you`),
    ...items,
  );
}
