// The chat's view model and the one function that folds a turn's events into
// it. Pure, so the whole streaming behaviour is unit-tested without a webview.
import type { ApprovalRequest, ChatMessage, ChatRole, IncompleteCause, SessionEvent, SummaryView, ToolCallView, TurnOutcome, UsageView } from "../bindings";

export interface ViewMessage {
  key: string;
  role: ChatRole;
  content: string;
  toolCalls: ToolCallView[];
  /** The model's readable reasoning for this message, shown as a collapsed "thinking" block. */
  reasoning?: string;
  /** What the request that produced it used (stored assistant messages). */
  usage?: UsageView;
  /** The model that wrote it, when the history names it. */
  model?: string;
  /** Why the turn this message ended failed (stored with it): Retry offers itself. */
  error?: string;
  /** An answer whose stream was cut before it finished. */
  incomplete?: boolean;
  /** Why: the person stopped it, or the connection cut it (with the error). */
  incompleteCause?: IncompleteCause;
  /** A divider (role `system`): the stored summary standing in for the
   *  turns above it in every later request. */
  summary?: SummaryView;
}

/** A request being retried: "rate limited, retrying in 3 s, attempt 2 of 5". */
export interface RetryNotice {
  attempt: number;
  maxAttempts: number;
  reason: string;
  detail: string;
  /** When the retry starts (Date.now() based). */
  until: number;
}

/** How full the model's context window was at the last request. */
export interface ContextFill {
  estimatedTokens: number;
  contextWindow: number;
  trimmedToolResults: number;
  /** The model the request went to (known before its first token). */
  model?: string;
}

/** Fields a history message may carry beyond the generated `ChatMessage`
 *  (the context-management work adds them; older backends leave them out). */
type HistoryMessage = ChatMessage & { model?: string | null };

export interface ChatView {
  messages: ViewMessage[];
  /** Text and reasoning of the round being streamed, not yet stored. */
  streaming: { text: string; reasoning: string } | null;
  running: boolean;
  outcome: TurnOutcome | null;
  usage: { inputTokens: number; outputTokens: number; costUsd: number | null } | null;
  /** Calls waiting for the person, by tool_call_id (sub-agents' too). */
  approvals: Record<string, ApprovalRequest>;
  /** Sub-agents started by a call (`execute_task` sync), by that call's id,
   *  at every depth: a card shows the one its call started. */
  subAgents: Record<string, SubAgentView>;
  /** What running calls produced so far, by tool_call_id (the latest
   *  `toolProgress`); dropped when the call's result arrives. */
  progress: Record<string, LiveProgress>;
  /** A failed request waiting to be sent again, while it waits. */
  retrying: RetryNotice | null;
  context: ContextFill | null;
}

/** A running call's output tail and progress, as its card shows them. */
export interface LiveProgress {
  output: string;
  message?: string;
  progress?: number;
  total?: number;
}

/** A sub-agent's own conversation, nested under the card of its call. */
export interface SubAgentView {
  agentId: string;
  depth: number;
  view: ChatView;
}

export function emptyView(): ChatView {
  return {
    messages: [],
    streaming: null,
    running: false,
    outcome: null,
    usage: null,
    approvals: {},
    subAgents: {},
    progress: {},
    retrying: null,
    context: null,
  };
}

/** The view of a stored history: tool results are shown on their cards, and
 *  calls still waiting for the person (`pending`, e.g. from before a restart)
 *  get their approval panels back. A card whose call started a sub-agent
 *  gets that sub-agent's conversation back (`subAgents`, at every depth), as
 *  its events built it live. */
export function fromHistory(history: ChatMessage[], pending: ApprovalRequest[] = []): ChatView {
  const view = emptyView();
  view.messages = viewMessages(history, view.subAgents);
  for (const request of pending) view.approvals[request.toolCallId] = request;
  return view;
}

/** History messages as the view shows them; the sub-agents their calls
 *  started go into `subAgents` by call id (the cards keep no copy). */
function viewMessages(history: ChatMessage[], subAgents: Record<string, SubAgentView>): ViewMessage[] {
  return (history as HistoryMessage[])
    .filter((m) => m.role !== "tool" && (m.role !== "system" || m.summary))
    .map((m) => ({
      key: m.summary ? `s${m.summary.id}` : `m${m.id}`,
      role: m.role,
      content: m.content,
      toolCalls: m.toolCalls.some((c) => c.subAgent) ? m.toolCalls.map((c) => withoutSubAgent(c, subAgents)) : m.toolCalls,
      ...(m.reasoning ? { reasoning: m.reasoning } : {}),
      ...(m.usage ? { usage: m.usage } : {}),
      ...(m.model ? { model: m.model } : {}),
      ...(m.error ? { error: m.error } : {}),
      ...(m.incomplete ? { incomplete: true } : {}),
      ...(m.incompleteCause ? { incompleteCause: m.incompleteCause } : {}),
      ...(m.summary ? { summary: m.summary } : {}),
    }));
}

function withoutSubAgent(call: ToolCallView, subAgents: Record<string, SubAgentView>): ToolCallView {
  const { subAgent: sub, ...card } = call;
  if (!sub) return call;
  const view = emptyView();
  view.messages = viewMessages(sub.messages, subAgents);
  // No outcome yet: its frame is still live (the turn runs, or waits to
  // resume), as between its TurnStarted and TurnEnded.
  view.outcome = sub.outcome;
  view.running = sub.outcome === null;
  subAgents[call.id] = { agentId: sub.agentId, depth: sub.depth, view };
  return card;
}

/** The line under an incomplete answer: who cut it, and the connection's
 *  error when it was the connection (stored with the message, so a later
 *  retry, which clears the errors, does not change it). */
export function incompleteNote(m: Pick<ViewMessage, "incomplete" | "incompleteCause">): string | null {
  if (!m.incomplete) return null;
  const cause = m.incompleteCause;
  if (cause?.by === "stopped") return "You stopped this answer before it finished.";
  if (cause?.by === "cut") return `The answer was cut off before it finished: ${cause.error}`;
  return "The answer was cut off before it finished.";
}

/** The call `id` in `view`, made safe to change: its message, that
 *  message's call list and the call itself are copied (once per event, as
 *  `view.messages` is already a copy); every other message stays shared,
 *  so the store sees which one changed. */
function findCall(view: ChatView, id: string): ToolCallView | undefined {
  for (let i = view.messages.length - 1; i >= 0; i--) {
    const m = view.messages[i];
    const j = m.toolCalls.findIndex((t) => t.id === id);
    if (j === -1) continue;
    const toolCalls = m.toolCalls.slice();
    toolCalls[j] = { ...toolCalls[j] };
    view.messages[i] = { ...m, toolCalls };
    return toolCalls[j];
  }
  return undefined;
}

/** The diff an answered write's approval showed, kept on its card (the
 *  stored history carries it too, as `writePreview`). */
function keptPreview(view: ChatView, id: string): Pick<ToolCallView, "writePreview"> {
  const kind = view.approvals[id]?.kind;
  return kind?.type === "write" ? { writePreview: { oldContent: kind.oldContent, newContent: kind.newContent } } : {};
}

let localKey = 0;

/** Adds the person's message optimistically; the backend stores it. */
export function addUserMessage(view: ChatView, text: string): ChatView {
  return {
    ...view,
    messages: [...view.messages, { key: `local${++localKey}`, role: "user", content: text, toolCalls: [] }],
  };
}

/** Folds one event into the view (returns a new view; the input is not changed). */
export function applyEvent(prev: ChatView, event: SessionEvent): ChatView {
  // A token (the most frequent event by far) changes only the streamed
  // text: the messages are shared, not copied, so it costs O(1).
  if (event.type === "tokenDelta" || event.type === "reasoningDelta") {
    const s = prev.streaming ?? { text: "", reasoning: "" };
    const streaming =
      event.type === "tokenDelta" ? { text: s.text + event.text, reasoning: s.reasoning } : { text: s.text, reasoning: s.reasoning + event.text };
    return prev.retrying ? { ...prev, streaming, retrying: null } : { ...prev, streaming };
  }
  // Progress arrives several times a second while a command runs: only
  // the call's entry changes, nothing is copied.
  if (event.type === "toolProgress") {
    const { output, message, progress, total } = event;
    return { ...prev, progress: { ...prev.progress, [event.toolCallId]: { output, message, progress, total } } };
  }
  const view: ChatView = {
    ...prev,
    // A shallow copy: the event replaces the messages it changes (findCall).
    messages: prev.messages.slice(),
    streaming: prev.streaming ? { ...prev.streaming } : null,
    approvals: { ...prev.approvals },
    subAgents: { ...prev.subAgents },
    progress: { ...prev.progress },
  };
  switch (event.type) {
    case "subAgent": {
      const known = view.subAgents[event.parentCallId];
      const sub: SubAgentView = known ?? { agentId: event.agentId, depth: event.depth, view: emptyView() };
      const inner = event.event;
      view.subAgents[event.parentCallId] = { ...sub, view: applyEvent(sub.view, inner) };
      // Its approvals are answered from the same chat.
      if (inner.type === "approvalRequired") view.approvals[inner.request.toolCallId] = inner.request;
      if ("toolCallId" in inner) delete view.approvals[inner.toolCallId];
      break;
    }
    case "retrying":
      view.retrying = {
        attempt: event.attempt,
        maxAttempts: event.maxAttempts,
        reason: event.reason,
        detail: event.detail,
        until: Date.now() + event.delayMs,
      };
      break;
    case "contextUsage":
      view.context = {
        estimatedTokens: event.estimatedTokens,
        contextWindow: event.contextWindow,
        trimmedToolResults: event.trimmedToolResults,
        ...(event.model ? { model: event.model } : {}),
      };
      break;
    case "contextSummarized": {
      const key = `s${event.summary.id}`;
      if (view.messages.some((m) => m.key === key)) break;
      const after = view.messages.findIndex((m) => m.key === `m${event.summary.lastMessageId}`);
      const divider: ViewMessage = { key, role: "system", content: event.summary.content, toolCalls: [], summary: event.summary };
      view.messages.splice(after === -1 ? 0 : after + 1, 0, divider);
      break;
    }
    case "messageIncomplete": {
      const i = view.messages.findIndex((m) => m.key === `m${event.messageId}`);
      if (i !== -1) view.messages[i] = { ...view.messages[i], incomplete: true, ...(event.cause ? { incompleteCause: event.cause } : {}) };
      break;
    }
    case "turnStarted":
      view.running = true;
      view.outcome = null;
      view.streaming = { text: "", reasoning: "" };
      break;
    case "assistantMessage":
      view.retrying = null;
      // Already there when a page re-attached to a turn whose messages it
      // loaded from history: replaying the event must not repeat it.
      if (!view.messages.some((m) => m.key === `m${event.messageId}`)) {
        const reasoning = view.streaming?.reasoning;
        view.messages.push({
          key: `m${event.messageId}`,
          role: "assistant",
          content: event.text,
          toolCalls: [],
          ...(reasoning ? { reasoning } : {}),
          // Named while the turn runs; the stored turn says it again after.
          ...(view.context?.model ? { model: view.context.model } : {}),
        });
      }
      view.streaming = view.running ? { text: "", reasoning: "" } : null;
      break;
    case "toolStart": {
      const known = findCall(view, event.call.id);
      if (known) {
        Object.assign(known, event.call);
        break;
      }
      const at = view.messages.length - 1;
      const last = view.messages[at];
      if (!last || last.role !== "assistant") {
        view.messages.push({ key: `tools-${event.call.id}`, role: "assistant", content: "", toolCalls: [{ ...event.call }] });
      } else {
        view.messages[at] = { ...last, toolCalls: [...last.toolCalls, { ...event.call }] };
      }
      break;
    }
    case "approvalRequired": {
      view.approvals[event.request.toolCallId] = event.request;
      const c = findCall(view, event.request.toolCallId);
      if (c) c.status = "pending";
      break;
    }
    case "toolAllowed": {
      // Allowed by a rule, or approved by the person: it runs now. A write
      // nobody was asked about brings its diff with it.
      const c = findCall(view, event.toolCallId);
      const preview = event.writePreview ? { writePreview: event.writePreview } : keptPreview(view, event.toolCallId);
      if (c) Object.assign(c, { status: "running", decisionReason: event.reason }, preview);
      delete view.approvals[event.toolCallId];
      break;
    }
    case "toolDone": {
      delete view.approvals[event.toolCallId];
      const c = findCall(view, event.toolCallId);
      if (c) Object.assign(c, { status: "done", result: event.result, blocks: event.blocks ?? [] });
      delete view.progress[event.toolCallId];
      break;
    }
    case "toolError": {
      delete view.approvals[event.toolCallId];
      const c = findCall(view, event.toolCallId);
      if (c) Object.assign(c, { status: "failed", result: event.error });
      delete view.progress[event.toolCallId];
      break;
    }
    case "toolCancelled": {
      // Why it stopped, as stored ("Cancelled: the user stopped…"); an
      // older backend sends none.
      const c = findCall(view, event.toolCallId);
      if (c) Object.assign(c, { status: "cancelled", ...(event.reason ? { result: event.reason } : {}) }, keptPreview(view, event.toolCallId));
      delete view.approvals[event.toolCallId];
      break;
    }
    case "toolRejected": {
      const c = findCall(view, event.toolCallId);
      if (c) Object.assign(c, { status: "rejected", result: event.reason }, keptPreview(view, event.toolCallId));
      delete view.approvals[event.toolCallId];
      break;
    }
    case "usage":
      view.usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens, costUsd: event.costUsd };
      break;
    case "turnEnded":
      view.running = false;
      view.retrying = null;
      view.approvals = {};
      view.outcome = event.outcome;
      // Text streamed but never stored (a stop mid-answer) stays visible.
      if (view.streaming && view.streaming.text.trim() !== "") {
        view.messages.push({ key: `partial${++localKey}`, role: "assistant", content: view.streaming.text, toolCalls: [] });
      }
      view.streaming = null;
      break;
    case "openFile":
      break;
  }
  return view;
}

/** A history reloaded after a turn ended (`fresh`) keeps what only the live
 *  view knew, how the turn ended and its usage, so a reload never hides
 *  "Stopped." or a failure. (Text streamed before a stop is stored.) */
export function settle(fresh: ChatView, ended: ChatView): ChatView {
  if (ended.running) return fresh;
  return { ...fresh, outcome: ended.outcome, usage: ended.usage };
}

export function outcomeText(o: TurnOutcome | null): string | null {
  if (!o) return null;
  switch (o.kind) {
    case "completed":
      return null;
    case "cancelled":
      return "Stopped.";
    case "roundLimit":
      return `Stopped after ${o.rounds} rounds (the round limit).`;
    case "failed":
      return `The turn failed: ${o.message}`;
  }
}

/** The view without the person's last turn's answer (`keepUser`: their
 *  message stays, as when an answer is asked for again) or without that
 *  message too (when they send an edited one in its place). */
export function dropLastTurn(view: ChatView, keepUser: boolean): ChatView {
  let i = view.messages.length - 1;
  while (i >= 0 && view.messages[i].role !== "user") i--;
  if (i < 0) return view;
  return { ...view, messages: view.messages.slice(0, keepUser ? i + 1 : i), outcome: null };
}

/** The view as a retry, regenerate or edit starts: the backend clears the
 *  session's stored errors then, so no failure (and no Retry on it) stays
 *  shown under the answer that follows. */
export function withoutErrors(view: ChatView): ChatView {
  if (!view.messages.some((m) => m.error) && !view.outcome) return view;
  return { ...view, outcome: null, messages: view.messages.map(withoutError) };
}

function withoutError(m: ViewMessage): ViewMessage {
  if (!m.error) return m;
  const { error: _dropped, ...rest } = m;
  return rest;
}
