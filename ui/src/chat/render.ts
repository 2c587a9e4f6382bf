// Rendering of the conversation: messages, the streaming answer, tool cards.
import type { ApprovalRequest, ContentBlock, ToolCallView } from "../bindings";
import { type ApprovalActions, approvalPanel } from "./approval";
import { type AnswerQuestion, questionCard, questionFromArgs } from "./question";
import { el } from "../dom";
import { renderMarkdown } from "../markdown";
import { type ChatView, type LiveProgress, outcomeText, type SubAgentView, type ViewMessage } from "./state";

const STATUS_TEXT: Record<ToolCallView["status"], string> = {
  running: "running",
  pending: "waiting for approval",
  done: "done",
  failed: "failed",
  cancelled: "cancelled",
  rejected: "rejected",
};

function markdown(src: string): HTMLElement {
  const div = el("div", { class: "md" });
  div.innerHTML = renderMarkdown(src);
  return div;
}

/** The line a file call is about (read_file's start, insert_at_line's line),
 *  so its path opens the viewer there. */
export function callLine(call: Pick<ToolCallView, "arguments">): number | undefined {
  const a = call.arguments as Record<string, unknown> | null;
  const n = a && typeof a === "object" ? (a.start_line ?? a.line) : undefined;
  return typeof n === "number" && n > 0 ? n : undefined;
}

/** Largest image (base64 characters, about 3 MB of bytes) shown inline. */
export const MAX_INLINE_IMAGE = 4 * 1024 * 1024;
const INLINE_IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml"];

/** The local path a resource link names (`file://` URI or a plain path);
 *  null for other schemes, which the viewer cannot open. */
export function linkPath(uri: string): string | null {
  if (uri.startsWith("file://")) {
    try {
      return decodeURIComponent(new URL(uri).pathname);
    } catch {
      return null;
    }
  }
  return /^[a-z][a-z0-9+.-]*:/i.test(uri) ? null : uri;
}

/** One content block of a result: an image inline, a link to a file that
 *  opens the viewer, JSON pretty-printed and collapsible. */
export function blockNode(block: ContentBlock, openFile: (path: string) => void): HTMLElement {
  switch (block.type) {
    case "image": {
      const kb = Math.round((block.dataBase64.length * 3) / 4 / 1024);
      if (!INLINE_IMAGE_TYPES.includes(block.mime) || block.dataBase64.length > MAX_INLINE_IMAGE) {
        return el("p", { class: "tool-block muted" }, `[image: ${block.mime}, ${kb} KB, not shown]`);
      }
      return el("img", { class: "tool-block tool-image", src: `data:${block.mime};base64,${block.dataBase64}`, alt: `${block.mime}, ${kb} KB` });
    }
    case "resource_link": {
      const text = block.name ?? block.uri;
      const path = linkPath(block.uri);
      if (path === null) return el("p", { class: "tool-block tool-link" }, el("code", {}, block.uri));
      const link = el("a", { href: "#", class: "tool-block tool-link", title: `Open ${path}` }, text);
      link.addEventListener("click", (e) => {
        e.preventDefault();
        openFile(path);
      });
      return link;
    }
    case "json":
      return el("details", { class: "tool-block tool-json" }, el("summary", {}, "JSON"), el("pre", {}, JSON.stringify(block.value, null, 2)));
  }
}

/** What a running call produced so far: progress and the output's tail. */
function liveNode(live: LiveProgress): HTMLElement {
  const node = el("div", { class: "tool-live", "data-testid": "live-output" });
  if (live.progress !== undefined || live.message) {
    const figures = live.progress === undefined ? "" : live.total ? `${live.progress} / ${live.total}` : `${live.progress}`;
    node.append(el("p", { class: "tool-progress muted" }, [figures, live.message].filter(Boolean).join(" — ")));
  }
  if (live.output) node.append(el("pre", { class: "tool-live-output" }, live.output));
  return node;
}

/** A tool card: label, status, clickable path, expandable arguments and
 *  result with its content blocks; while it runs, its live output. */
export function toolCard(
  call: ToolCallView,
  openFile: (path: string, line?: number) => void,
  approval?: { request: ApprovalRequest; actions: ApprovalActions },
  nested?: HTMLElement,
  live?: LiveProgress,
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
      openFile(call.path as string, callLine(call));
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
  if (nested) body.append(nested);
  if (call.result !== null) {
    body.append(el("div", { class: "tool-section" }, "Result"), el("pre", { class: "tool-result" }, call.result));
  }
  const blocks = call.blocks ?? [];
  if (blocks.length > 0) body.append(el("div", { class: "tool-blocks" }, ...blocks.map((b) => blockNode(b, openFile))));
  const card = el("details", { class: `tool-card status-${call.status}`, "data-tool-call": call.id, "data-tool-name": call.name }, summary, body);
  // Outside the collapsed body: what a running command prints is seen.
  if (live && call.result === null) card.append(liveNode(live));
  // Images are the point of a result that has them: shown without a click.
  if (blocks.some((b) => b.type === "image")) card.open = true;
  if (approval) {
    card.append(approvalPanel(approval.request, approval.actions));
    card.open = true;
  }
  return card;
}

/** A question still waiting (a running call of a tool presented as a
 *  question, e.g. ask_user_clarification), asked inline under its card —
 *  outside the collapsed details, so it is seen. */
export function waitingQuestion(call: ToolCallView, answerQuestion?: AnswerQuestion): HTMLElement | null {
  if (!answerQuestion || call.presentation !== "question" || call.status !== "running") return null;
  const question = questionFromArgs(call.id, call.arguments);
  return question ? questionCard(question, answerQuestion) : null;
}


/** The model's reasoning as a collapsible "thinking" block: open while it streams,
 *  collapsed once the message is stored. */
export function thinkingBlock(text: string, live: boolean): HTMLElement {
  const block = el(
    "details",
    { class: "reasoning", "data-testid": "thinking" },
    el("summary", {}, live ? "Thinking…" : "Thinking"),
    el("div", { class: "reasoning-text" }, text),
  );
  block.open = live;
  return block;
}

/** One message; `top` holds every sub-agent and every approval, at any depth. */
function messageNode(
  m: ViewMessage,
  top: ChatView,
  openFile: (path: string) => void,
  actions: ApprovalActions | undefined,
  answerQuestion?: AnswerQuestion,
  own: ChatView = top,
): HTMLElement {
  const node = el("div", { class: `msg msg-${m.role}`, "data-role": m.role, "data-key": m.key });
  if (m.reasoning) node.append(thinkingBlock(m.reasoning, false));
  if (m.content.trim() !== "") {
    node.append(m.role === "assistant" ? markdown(m.content) : el("div", { class: "text" }, m.content));
  }
  for (const c of m.toolCalls) {
    const request = top.approvals[c.id];
    const sub = top.subAgents[c.id];
    const nested = sub ? subAgentNode(sub.agentId, sub.view, top, openFile, actions, answerQuestion) : undefined;
    node.append(toolCard(c, openFile, request && actions ? { request, actions } : undefined, nested, own.progress[c.id]));
    const question = waitingQuestion(c, answerQuestion);
    if (question) node.append(question);
  }
  return node;
}

/** A sub-agent's activity inside its call's card. */
function subAgentNode(
  agentId: string,
  view: ChatView,
  top: ChatView,
  openFile: (path: string) => void,
  actions?: ApprovalActions,
  answerQuestion?: AnswerQuestion,
): HTMLElement {
  const state = view.running ? "working" : (outcomeText(view.outcome) ?? "finished");
  return el(
    "div",
    { class: "sub-agent", "data-sub-agent": agentId },
    el("div", { class: "tool-section" }, `↳ ${agentId} — ${state}`),
    ...view.messages.map((m) => messageNode(m, top, openFile, actions, answerQuestion, view)),
  );
}

function streamingNode(streaming: { text: string; reasoning: string }): HTMLElement {
  const node = el("div", { class: "msg msg-assistant streaming", "data-role": "streaming" });
  if (streaming.reasoning) node.append(thinkingBlock(streaming.reasoning, true));
  if (streaming.text) node.append(markdown(streaming.text));
  return node;
}

/** What a message's node was built from; unchanged → the node is kept. */
interface Built {
  message: ViewMessage;
  requests: (ApprovalRequest | undefined)[];
  /** The sub-agents nested in its cards (their views are replaced, never
   *  changed in place, when their events arrive). */
  subs: (SubAgentView | undefined)[];
  /** The live progress of its calls (replaced, never changed in place). */
  live: (LiveProgress | undefined)[];
  node: HTMLElement;
}

interface RenderCache {
  messages: Map<string, Built>;
  streaming: { text: string; reasoning: string; node: HTMLElement } | null;
}

const caches = new WeakMap<HTMLElement, RenderCache>();

function sameCalls(a: ToolCallView[], b: ToolCallView[]): boolean {
  return (
    a.length === b.length &&
    a.every((c, i) => {
      const d = b[i];
      return (
        c.id === d.id &&
        c.status === d.status &&
        c.result === d.result &&
        c.blocks === d.blocks &&
        c.decisionReason === d.decisionReason &&
        c.labelShort === d.labelShort &&
        c.labelFull === d.labelFull &&
        c.path === d.path
      );
    })
  );
}

/** Renders `view` into `root`, touching only what changed since the last
 *  call on the same root: a streamed token rebuilds the streaming answer
 *  alone, finished Markdown is never parsed again, and a card the person
 *  opened stays open (also when its message is rebuilt around it). */
export function renderConversation(
  root: HTMLElement,
  view: ChatView,
  openFile: (path: string) => void,
  actions?: ApprovalActions,
  answerQuestion?: AnswerQuestion,
): void {
  let cache = caches.get(root);
  if (!cache) {
    cache = { messages: new Map(), streaming: null };
    caches.set(root, cache);
  }
  const items: HTMLElement[] = [];
  const next = new Map<string, Built>();
  for (const m of view.messages) {
    const requests = m.toolCalls.map((c) => view.approvals[c.id]);
    const subs = m.toolCalls.map((c) => view.subAgents[c.id]);
    const live = m.toolCalls.map((c) => view.progress[c.id]);
    const old = cache.messages.get(m.key);
    let node: HTMLElement;
    if (
      old &&
      old.message.role === m.role &&
      old.message.content === m.content &&
      old.message.reasoning === m.reasoning &&
      sameCalls(old.message.toolCalls, m.toolCalls) &&
      old.requests.every((r, i) => r === requests[i]) &&
      old.subs.every((r, i) => r === subs[i]) &&
      old.live.every((p, i) => p === live[i])
    ) {
      node = old.node;
    } else {
      node = messageNode(m, view, openFile, actions, answerQuestion);
      if (old) keepOpenCards(old.node, node);
    }
    next.set(m.key, { message: m, requests, subs, live, node });
    items.push(node);
  }
  cache.messages = next;
  const s = view.streaming;
  if (s && (s.text !== "" || s.reasoning !== "")) {
    const kept = cache.streaming;
    const node = kept && kept.text === s.text && kept.reasoning === s.reasoning ? kept.node : streamingNode(s);
    cache.streaming = { text: s.text, reasoning: s.reasoning, node };
    items.push(node);
  } else {
    cache.streaming = null;
  }
  if (view.running) items.push(el("div", { class: "thinking", "data-testid": "turn-running" }, "Working… (Esc to stop)"));
  const note = outcomeText(view.outcome);
  if (note) items.push(el("div", { class: "turn-note", role: "status" }, note));
  syncChildren(root, items);
}

/** Cards the person expanded stay expanded when their message is rebuilt. */
function keepOpenCards(from: HTMLElement, to: HTMLElement): void {
  for (const d of Array.from(from.querySelectorAll<HTMLDetailsElement>("details[data-tool-call]"))) {
    if (!d.open) continue;
    const id = d.dataset.toolCall ?? "";
    const twin = Array.from(to.querySelectorAll<HTMLDetailsElement>("details[data-tool-call]")).find(
      (e) => e.dataset.toolCall === id,
    );
    if (twin) twin.open = true;
  }
}

/** Makes `root`'s children exactly `items`, moving or replacing only the
 *  nodes that differ (kept nodes keep their state and scroll anchoring). */
function syncChildren(root: HTMLElement, items: HTMLElement[]): void {
  items.forEach((node, i) => {
    const at = root.children[i];
    if (at !== node) root.insertBefore(node, at ?? null);
  });
  while (root.children.length > items.length) root.lastElementChild?.remove();
}
