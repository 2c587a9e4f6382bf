// Rendering of the conversation: messages, the streaming answer, tool cards.
import type { ApprovalRequest, ToolCallView } from "../bindings";
import { type ApprovalActions, approvalPanel } from "./approval";
import { type AnswerQuestion, questionCard, questionFromArgs } from "./question";
import { el } from "../dom";
import { renderMarkdown } from "../markdown";
import { type ChatView, outcomeText } from "./state";

const STATUS_TEXT: Record<ToolCallView["status"], string> = {
  running: "running",
  pending: "waiting for approval",
  done: "done",
  failed: "failed",
  cancelled: "cancelled",
  rejected: "rejected",
};

/** tool_names::ASK_USER_CLARIFICATION */
export const QUESTION_TOOL = "ask_user_clarification";

function markdown(src: string): HTMLElement {
  const div = el("div", { class: "md" });
  div.innerHTML = renderMarkdown(src);
  return div;
}

/** A tool card: label, status, clickable path, expandable arguments and result. */
export function toolCard(
  call: ToolCallView,
  openFile: (path: string) => void,
  approval?: { request: ApprovalRequest; actions: ApprovalActions },
): HTMLElement {
  const summary = el(
    "summary",
    {},
    el("span", { class: "tool-label", title: call.labelFull }, call.labelShort),
    el("span", { class: `tool-status status-${call.status}`, "data-status": call.status }, STATUS_TEXT[call.status]),
  );
  if (call.path) {
    const link = el("a", { href: "#", class: "tool-path", title: `Open ${call.path}` }, call.path);
    link.addEventListener("click", (e) => {
      e.preventDefault();
      e.stopPropagation();
      openFile(call.path as string);
    });
    summary.append(link);
  }
  const body = el("div", { class: "tool-body" });
  if (call.decisionReason) {
    // Why the gate let it run (or not): "allowed by rule 12: @fs_read docs/*".
    body.append(el("p", { class: "tool-decision muted", "data-testid": "decision" }, call.decisionReason));
  }
  body.append(
    el("div", { class: "tool-section" }, "Arguments"),
    el("pre", { class: "tool-args" }, JSON.stringify(call.arguments, null, 2)),
  );
  if (call.result !== null) {
    body.append(el("div", { class: "tool-section" }, "Result"), el("pre", { class: "tool-result" }, call.result));
  }
  const card = el("details", { class: `tool-card status-${call.status}`, "data-tool-call": call.id, "data-tool-name": call.name }, summary, body);
  if (approval) {
    card.append(approvalPanel(approval.request, approval.actions));
    card.open = true;
  }
  return card;
}

/** A question still waiting (a running ask_user_clarification call), asked
 *  inline under its card — outside the collapsed details, so it is seen. */
export function waitingQuestion(call: ToolCallView, answerQuestion?: AnswerQuestion): HTMLElement | null {
  if (!answerQuestion || call.name !== QUESTION_TOOL || call.status !== "running") return null;
  const question = questionFromArgs(call.id, call.arguments);
  return question ? questionCard(question, answerQuestion) : null;
}

export function renderConversation(
  root: HTMLElement,
  view: ChatView,
  openFile: (path: string) => void,
  actions?: ApprovalActions,
  answerQuestion?: AnswerQuestion,
): void {
  const items: HTMLElement[] = [];
  for (const m of view.messages) {
    const cls = `msg msg-${m.role}`;
    const node = el("div", { class: cls, "data-role": m.role });
    if (m.content.trim() !== "") {
      node.append(m.role === "assistant" ? markdown(m.content) : el("div", { class: "text" }, m.content));
    }
    for (const c of m.toolCalls) {
      const request = view.approvals[c.id];
      node.append(toolCard(c, openFile, request && actions ? { request, actions } : undefined));
      const question = waitingQuestion(c, answerQuestion);
      if (question) node.append(question);
    }
    items.push(node);
  }
  if (view.streaming && (view.streaming.text !== "" || view.streaming.reasoning !== "")) {
    const node = el("div", { class: "msg msg-assistant streaming", "data-role": "streaming" });
    if (view.streaming.reasoning) node.append(el("div", { class: "reasoning" }, view.streaming.reasoning));
    if (view.streaming.text) node.append(markdown(view.streaming.text));
    items.push(node);
  }
  if (view.running) items.push(el("div", { class: "thinking", "data-testid": "turn-running" }, "Working… (Esc to stop)"));
  const note = outcomeText(view.outcome);
  if (note) items.push(el("div", { class: "turn-note", role: "status" }, note));
  root.replaceChildren(...items);
}
