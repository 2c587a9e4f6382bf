// The chat page: sessions on the left, the conversation and composer on the
// right. Events of the running turn are folded into the view as they arrive.
import * as api from "../api";
import type { ApprovalRequest, SessionEvent } from "../bindings";
import { companionPanel } from "../chat/companion";
import { renderConversation } from "../chat/render";
import { addUserMessage, applyEvent, type ChatView, emptyView, fromHistory, settle } from "../chat/state";
import { el } from "../dom";
import { openInSidePanel } from "../viewer/panel";
import { sessionList } from "./session_list";
import { sessionSettingsPanel } from "./session_settings";

export interface ChatDeps {
  api: typeof api;
  navigate: (hash: string) => void;
}

const defaultDeps: ChatDeps = { api, navigate: (h) => (location.hash = h) };

export function openFileHash(path: string, line?: number): string {
  return `#/view?path=${encodeURIComponent(path)}${line && line > 0 ? `&line=${line}` : ""}`;
}

/** An `OpenFile` path (relative to the session's working directory inside
 *  it) as the viewer opens it. */
export function resolveShown(path: string, workingDir: string | null | undefined): string {
  if (path.startsWith("/") || !workingDir) return path;
  if (path === ".") return workingDir;
  return `${workingDir.replace(/\/+$/, "")}/${path}`;
}

/** Mounts the chat for `sessionId` (or the newest session, or an empty state). */
export async function mountChat(root: HTMLElement, sessionId: string | null, deps: ChatDeps = defaultDeps): Promise<void> {
  const sessions = await deps.api.listSessions();
  const current = sessionId ?? sessions[0]?.id ?? null;
  const conversation = el("div", { class: "conversation", "data-testid": "conversation" });
  const input = el("textarea", {
    class: "composer-input",
    rows: "3",
    placeholder: current ? "Message Skald… (Enter to send, Shift+Enter for a new line)" : "Create a chat to start",
    "aria-label": "Message",
    "data-testid": "composer",
  });
  const send = el("button", { type: "button", class: "send", "data-testid": "send" }, "Send");
  const stop = el("button", { type: "button", class: "stop", "data-testid": "stop", hidden: "" }, "Stop");
  const composer = el("div", { class: "composer" }, input, send, stop);
  // A turn a crash cut short, answered again on start, is said to be one.
  const resumedBanner = el(
    "p",
    { class: "resumed-banner", role: "status", "data-testid": "resumed-banner", hidden: "" },
    "This session was resumed after a crash or restart: Skald is finishing the interrupted turn.",
  );
  const main = el("section", { class: "chat-main" }, resumedBanner, conversation, composer);
  if (current) main.prepend(sessionSettingsPanel(current, deps));
  const companion = current ? companionPanel(current, deps.api) : null;
  const refreshCompanion = () => void companion?.refresh().catch(() => undefined);
  let aside = sessionList(sessions, current, deps);
  root.replaceChildren(el("div", { class: "chat" }, aside, main, ...(companion ? [companion.node] : [])));
  // A new session takes its title from the first message: show it.
  const refreshSessions = async () => {
    const fresh = sessionList(await deps.api.listSessions(), current, deps);
    aside.replaceWith(fresh);
    aside = fresh;
  };

  let view: ChatView = emptyView();
  // Beside the chat when the window has room, else the full-page viewer.
  const openFile = (p: string, line?: number) => {
    if (!openInSidePanel(p, line)) deps.navigate(openFileHash(p, line));
  };
  const workingDir = sessions.find((s) => s.id === current)?.workingDir ?? null;
  // What a turn's events mean beside the conversation: the panels follow
  // tool results, and show_file_to_user opens the viewer.
  const sideEffects = (event: SessionEvent) => {
    if (event.type === "toolDone" || event.type === "turnEnded") refreshCompanion();
    if (event.type === "openFile") openFile(resolveShown(event.path, workingDir));
  };
  const answerQuestion = (id: string, text: string) => deps.api.answerQuestion(id, text);
  // Calls of this session that wait for the person (the Inbox's truth).
  const pendingHere = async (): Promise<ApprovalRequest[]> => {
    try {
      return (await deps.api.listPending()).filter((p) => p.sessionId === current).map((p) => p.request);
    } catch {
      return [];
    }
  };
  const reload = async () => {
    const fresh = fromHistory(await deps.api.sessionHistory(current as string), await pendingHere());
    view = settle(fresh, view);
    paint();
  };
  // A call of the turn running on this page answers through that turn's
  // channel; a stored one (from before a restart) continues the turn here.
  const answer = async (send: (onEvent: (e: SessionEvent) => void) => Promise<void>) => {
    if (view.running) return send(() => undefined);
    view = { ...view, running: true };
    paint();
    try {
      await send(onEvent);
    } finally {
      await reload().catch(() => undefined);
    }
  };
  const actions = {
    approve: (id: string) => answer((onEvent) => deps.api.approveCall(id, onEvent)),
    reject: (id: string, note: string | null) => answer((onEvent) => deps.api.rejectCall(id, note, onEvent)),
    previewAlwaysAllow: (id: string) => deps.api.previewAlwaysAllow(id),
    alwaysAllow: (id: string) => answer((onEvent) => deps.api.alwaysAllow(id, onEvent)),
  };
  // Follow the answer only while the person is at the bottom: scrolled up
  // to read, they stay where they are while tokens arrive.
  let stickToBottom = true;
  conversation.addEventListener("scroll", () => {
    stickToBottom = conversation.scrollHeight - conversation.scrollTop - conversation.clientHeight < 40;
  });
  const paint = () => {
    renderConversation(conversation, view, openFile, actions, answerQuestion);
    stop.hidden = !view.running;
    send.disabled = view.running || !current;
    if (stickToBottom) conversation.scrollTop = conversation.scrollHeight;
  };
  // Tokens arrive faster than frames: fold them into the view at once but
  // paint at most once a frame; any other event paints immediately.
  let frame: number | null = null;
  const onEvent = (event: SessionEvent) => {
    view = applyEvent(view, event);
    if (event.type === "tokenDelta" || event.type === "reasoningDelta") {
      frame ??= requestAnimationFrame(() => {
        frame = null;
        paint();
      });
      return;
    }
    if (frame !== null) cancelAnimationFrame(frame);
    frame = null;
    paint();
    sideEffects(event);
  };
  if (!current) {
    input.disabled = true;
    paint();
    return;
  }
  // Re-attach to a turn that runs without this page (started on another
  // page or window, or by crash resume): events that arrive while history
  // loads are kept and folded in after it (they are idempotent over it).
  let loaded = false;
  let following = false;
  const early: SessionEvent[] = [];
  const follow = (event: SessionEvent) => {
    if (!loaded) {
      early.push(event);
      return;
    }
    onEvent(event);
    if (event.type === "turnEnded") {
      following = false;
      void reload().catch(() => undefined);
    }
  };
  // Crash resume runs in the background on start, so it may begin after
  // this page loaded: the app says so, and the page follows it then.
  let attaching = true;
  let resumedMeanwhile = false;
  const showResumed = () => (resumedBanner.hidden = false);
  const followResumed = () => {
    showResumed();
    if (attaching) resumedMeanwhile = true;
    else if (!following && !view.running) {
      following = true;
      void deps.api.attachSession(current, follow).then((running) => (following = running), () => (following = false));
    }
  };
  const unlisten = deps.api
    .onTurnResumed((sessionId) => {
      if (!root.isConnected) return void unlisten.then((off) => off?.());
      if (sessionId === current) followResumed();
    })
    .catch(() => undefined);
  const attached = deps.api.attachSession(current, follow).catch(() => false);
  const resumed = deps.api.resumedTurns().catch(() => [] as string[]);
  view = fromHistory(await deps.api.sessionHistory(current), await pendingHere());
  following = await attached;
  if ((await resumed).includes(current)) showResumed();
  loaded = true;
  for (const event of early) view = applyEvent(view, event);
  paint();
  refreshCompanion();
  attaching = false;
  if (resumedMeanwhile) followResumed();

  const submit = async () => {
    const text = input.value.trim();
    if (!text || view.running) return;
    input.value = "";
    view = addUserMessage(view, text);
    view = { ...view, running: true };
    stickToBottom = true;
    paint();
    try {
      await deps.api.sendMessage(current, text, onEvent);
    } catch (e) {
      view = applyEvent(view, {
        type: "turnEnded",
        sessionId: current,
        outcome: { kind: "failed", message: api.errorMessage(e) },
      });
      paint();
    }
    await refreshSessions().catch(() => undefined);
  };
  const stopTurn = () => {
    if (view.running) void deps.api.stopTurn(current);
  };
  send.addEventListener("click", () => void submit());
  stop.addEventListener("click", stopTurn);
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      void submit();
    }
  });
  // Esc stops the running turn from anywhere on the page.
  root.addEventListener("keydown", (e) => {
    if (e.key === "Escape") stopTurn();
  });
  document.addEventListener("keydown", function onEsc(e) {
    if (!root.isConnected) return document.removeEventListener("keydown", onEsc);
    if (e.key === "Escape") stopTurn();
  });
}
