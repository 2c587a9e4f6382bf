// The Agent Inbox: every call waiting for a person, across sessions. Pending
// rows in the database are its truth, so it survives a restart.
import * as api from "../api";
import type { PendingApprovalView, PendingQuestionView } from "../bindings";
import { approvalPanel } from "../chat/approval";
import { questionCard } from "../chat/question";
import { el } from "../dom";

export async function mountInbox(root: HTMLElement, deps = { api }): Promise<void> {
  let pending: PendingApprovalView[];
  let questions: PendingQuestionView[];
  try {
    [pending, questions] = await Promise.all([deps.api.listPending(), deps.api.listQuestions()]);
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
  const answer = async (id: string, text: string) => {
    await deps.api.answerQuestion(id, text);
    refresh();
  };
  for (const q of questions) {
    items.push(
      el(
        "section",
        { class: "inbox-item inbox-question", "data-testid": "inbox-question", "data-tool-call": q.toolCallId },
        el("h2", {}, el("a", { href: `#/chat/${q.sessionId}` }, q.sessionTitle || "Chat"), " · ", el("span", { class: "muted" }, `${q.agentId} asks`)),
        questionCard(q, answer),
      ),
    );
  }
  const waiting = pending.length + questions.length;
  root.replaceChildren(
    el("h1", {}, "Inbox"),
    el("p", { class: "muted", "data-testid": "inbox-count" }, waiting === 0 ? "Nothing is waiting for you." : `${waiting} waiting for you`),
    ...items,
  );
}
