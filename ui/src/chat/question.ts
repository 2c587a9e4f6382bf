// A question an agent waits on (ask_user_clarification): the question as
// Markdown, its suggested answers as buttons, and a free-text answer. Used
// inline in the chat and in the Inbox.
import type { ToolCallView } from "../bindings";
import { el } from "../dom";
import { renderMarkdown } from "../markdown";
import { mountElicitationForm } from "./elicitation_form";

export interface Question {
  toolCallId: string;
  title: string;
  question: string;
  suggestedAnswers: string[];
  /** An MCP server's elicitation: the form's requested schema. */
  schema?: Record<string, unknown>;
  /** Its fields in the server's order. */
  propertyOrder?: string[];
  /** A URL-mode elicitation: the page to open. */
  url?: string;
}

export type AnswerQuestion = (toolCallId: string, answer: string) => Promise<void>;

/** The question a call still waits on: a running call of a tool that
 *  presents itself as a question (ask_user_clarification declares it; the
 *  name decides nothing). */
export function askedQuestion(call: Pick<ToolCallView, "id" | "status" | "arguments" | "presentation">): Question | null {
  return call.presentation === "question" && call.status === "running" ? questionFromArgs(call.id, call.arguments) : null;
}

/** A question still waiting, asked inline under its card — outside the
 *  collapsed details, so it is seen. */
export function waitingQuestion(call: ToolCallView, answerQuestion?: AnswerQuestion): HTMLElement | null {
  const question = answerQuestion ? askedQuestion(call) : null;
  return question && answerQuestion ? questionCard(question, answerQuestion) : null;
}

/** The question of a running ask_user_clarification card, from its arguments. */
export function questionFromArgs(toolCallId: string, args: unknown): Question | null {
  if (typeof args !== "object" || args === null) return null;
  const a = args as Record<string, unknown>;
  if (typeof a.question !== "string") return null;
  const suggested = Array.isArray(a.suggested_answers) ? a.suggested_answers.filter((s): s is string => typeof s === "string") : [];
  return { toolCallId, title: typeof a.title === "string" ? a.title : "Question", question: a.question, suggestedAnswers: suggested };
}

export function questionCard(q: Question, answer: AnswerQuestion): HTMLElement {
  const body = el("div", { class: "md question-text" });
  body.innerHTML = renderMarkdown(q.question);
  const error = el("p", { class: "error", role: "alert", hidden: "" });
  const buttons: HTMLButtonElement[] = [];
  const send = async (text: string) => {
    if (text.trim() === "") return;
    for (const b of buttons) b.disabled = true;
    error.hidden = true;
    try {
      await answer(q.toolCallId, text);
      card.classList.add("answered");
    } catch (e) {
      error.textContent = e instanceof Error ? e.message : typeof e === "object" && e && "message" in e ? String((e as { message: unknown }).message) : String(e);
      error.hidden = false;
      for (const b of buttons) b.disabled = false;
    }
  };
  const suggestions = el("div", { class: "question-suggestions" });
  for (const s of q.suggestedAnswers) {
    const b = el("button", { type: "button", class: "suggestion", "data-testid": "question-suggestion" }, s);
    b.addEventListener("click", () => void send(s));
    buttons.push(b);
    suggestions.append(b);
  }
  const input = el("input", { type: "text", class: "question-input", placeholder: "Your answer…", "aria-label": "Your answer", "data-testid": "question-input" });
  const submit = el("button", { type: "button", class: "question-send", "data-testid": "question-send" }, "Answer");
  submit.addEventListener("click", () => void send(input.value));
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      void send(input.value);
    }
  });
  buttons.push(submit);
  // An elicitation is answered with its form; the answer text is what
  // answer_elicitation stores ({action, content}).
  const form = q.schema || q.url ? el("div", { class: "question-form" }) : null;
  if (form) mountElicitationForm(form, { schema: q.schema, order: q.propertyOrder, url: q.url, onAnswer: (a) => send(JSON.stringify(a)) });
  const card = el(
    "div",
    { class: "question-card", role: "group", "aria-label": q.title, "data-testid": "question-card", "data-tool-call": q.toolCallId },
    el("div", { class: "question-title" }, q.title),
    body,
    ...(form ? [form] : [suggestions, el("div", { class: "question-free" }, input, submit)]),
    error,
  );
  return card;
}
