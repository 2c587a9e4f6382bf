// The chat page: sessions on the left, the conversation and composer on the
// right. Events of the running turn are folded into the view by the pure
// reducer and handed to a SolidJS store, which updates only what changed.
import { createMemo, createSignal, onCleanup, Show } from "solid-js";
import * as api from "../api";
import type { ApprovalRequest, SessionEvent } from "../bindings";
import { BypassBar } from "../chat/bypass";
import { companionPanel } from "../chat/companion";
import { Conversation, type ConversationControl, createPaging } from "../chat/conversation";
import type { Question } from "../chat/question";
import { createChatStore } from "../chat/store";
import { INBOX_REFRESH } from "./inbox";
import { addUserMessage, applyEvent, type ChatView, dropLastTurn, fromHistory, settle, withoutErrors } from "../chat/state";
import { formatUsage, sessionUsage } from "../chat/usage";
import { mountSolid } from "../solid";
import { openInSidePanel, PanelToggle, sidePanel } from "../viewer/panel";
import { sessionTabs } from "../chat/session_tabs";
import { ModelSwitcher } from "../chat/model_switcher";
import { SessionList } from "./session_list";
import { SessionSettings } from "./session_settings";

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

/** Operations on a session's last turn (edit, regenerate, retry), where the
 *  backend offers them; each runs a turn whose events arrive on `onEvent`. */
interface TurnOps {
  compactSession?(sessionId: string): Promise<unknown>;
  editLastMessage?(sessionId: string, text: string, onEvent: (e: SessionEvent) => void): Promise<unknown>;
  regenerateAnswer?(sessionId: string, onEvent: (e: SessionEvent) => void): Promise<unknown>;
  retryTurn?(sessionId: string, onEvent: (e: SessionEvent) => void): Promise<unknown>;
}

let disposeCurrent: (() => void) | null = null;
/** The newest mountChat call: an older one still awaiting its first read
 *  must not mount over it (two routes to the chat in quick succession — the
 *  start-up route and a hash change — otherwise left the page empty). */
let newestMount = 0;

/** Ends the mounted chat's effects and listeners (the router calls it when
 *  it leaves the chat; mounting a chat again does it too). */
export function disposeChat(): void {
  disposeCurrent?.();
  disposeCurrent = null;
}

/** Mounts the chat for `sessionId` (or the newest session, or an empty
 *  state); resolves once the history is shown, to the cleanup of this mount
 *  (`disposeChat` ends whichever is mounted). */
export async function mountChat(root: HTMLElement, sessionId: string | null, deps: ChatDeps = defaultDeps): Promise<() => void> {
  disposeChat();
  const mine = ++newestMount;
  const sessions = await deps.api.listSessions();
  if (mine !== newestMount) return () => undefined;
  const current = sessionId ?? sessions[0]?.id ?? null;
  const ops = deps.api as typeof api & TurnOps;
  const chat = createChatStore();
  let view: ChatView = chat.current();
  let control = null as ConversationControl | null;
  const [sessionRows, setSessionRows] = createSignal(sessions);
  const [resumed, setResumed] = createSignal(false);
  const companion = current ? companionPanel(current, deps.api, () => sidePanel()?.reveal("todos")) : null;
  const refreshCompanion = () => void companion?.refresh().catch(() => undefined);
  // A new session takes its title from the first message: show it.
  const refreshSessions = async () => setSessionRows(await deps.api.listSessions());
  // Beside the chat when the window has room, else the full-page viewer.
  const openFile = (p: string, line?: number) => {
    if (!openInSidePanel(p, line)) deps.navigate(openFileHash(p, line));
  };
  // Changed by the session settings while the page is open.
  let workingDir = sessions.find((s) => s.id === current)?.workingDir ?? null;
  // What a turn's events mean beside the conversation: the panels follow
  // tool results, and show_file_to_user opens the viewer.
  const sideEffects = (event: SessionEvent) => {
    if (event.type === "toolDone" || event.type === "turnEnded") refreshCompanion();
    if (event.type === "openFile") openFile(resolveShown(event.path, workingDir));
  };
  const paint = () => {
    chat.set(view);
    control?.follow();
  };
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
  // Runs a turn from this page: optimistic running state, the failure kept
  // on the page if the call itself fails, the history read again after.
  const runTurn = async (start: (onEvent: (e: SessionEvent) => void) => Promise<unknown>, text?: string) => {
    if (!current || view.running) return;
    if (text !== undefined) view = addUserMessage(view, text);
    view = { ...view, running: true, outcome: null };
    control?.toBottom();
    paint();
    try {
      await start(onEvent);
    } catch (e) {
      view = applyEvent(view, { type: "turnEnded", sessionId: current, outcome: { kind: "failed", message: api.errorMessage(e) } });
      paint();
    }
    // The stored turn has what the live events lack: each answer's usage
    // and model, a failure's error, the ids the next edit or retry needs.
    await reload().catch(() => undefined);
    await refreshSessions().catch(() => undefined);
  };
  // Edit and regenerate replace the last turn: what they replace leaves the
  // page at once, and the stored history is read again when they end.
  const replaceTurn = (start: (onEvent: (e: SessionEvent) => void) => Promise<unknown>, drop: "answer" | "turn" | null, text?: string) => {
    if (view.running) return;
    if (drop) view = dropLastTurn(view, drop === "answer");
    view = withoutErrors(view);
    void runTurn(start, text);
  };
  // An MCP server's elicitation waits as a question of the call that asked
  // (with the form's schema): the chat asks it under that call's card, the
  // Inbox too. Re-read whenever the waiting set changes.
  const [elicitations, setElicitations] = createSignal<Record<string, Question>>({});
  const loadElicitations = async () => {
    if (!current || !deps.api.listQuestions) return;
    const waiting = await deps.api.listQuestions().catch(() => []);
    setElicitations(Object.fromEntries(waiting.filter((q) => q.sessionId === current && q.schema).map((q) => [q.toolCallId, q as Question])));
  };
  void loadElicitations();
  const onWaitingChanged = () => void loadElicitations();
  window.addEventListener(INBOX_REFRESH, onWaitingChanged);
  // A server asks while its call runs; the change event can come before the
  // question is readable, so a running turn also looks every 2 s.
  const elicitationPoll = setInterval(() => {
    if (view.running) void loadElicitations();
  }, 2000);
  const handlers = {
    openFile,
    actions,
    answerQuestion: (id: string, text: string) => deps.api.answerQuestion(id, text),
    elicitation: (id: string) => elicitations()[id] ?? null,
    ...(ops.editLastMessage ? { edit: (text: string) => replaceTurn((on) => ops.editLastMessage!(current as string, text, on), "turn", text) } : {}),
    ...(ops.regenerateAnswer ? { regenerate: () => replaceTurn((on) => ops.regenerateAnswer!(current as string, on), "answer") } : {}),
    ...(ops.retryTurn ? { retry: () => replaceTurn((on) => ops.retryTurn!(current as string, on), null) } : {}),
  };
  // The person's "compact": a summary stands in for the older turns.
  const [compactError, setCompactError] = createSignal<string | null>(null);
  const compact = async () => {
    if (!current || view.running || !ops.compactSession) return;
    setCompactError(null);
    try {
      await ops.compactSession(current);
      await reload();
    } catch (e) {
      setCompactError(api.errorMessage(e));
    }
  };
  const stopTurn = () => {
    if (view.running && current) void deps.api.stopTurn(current);
  };
  let input!: HTMLTextAreaElement;
  const submit = () => {
    const text = input.value.trim();
    if (!text || view.running || !current) return;
    input.value = "";
    void runTurn((onEvent) => deps.api.sendMessage(current, text, onEvent), text);
  };
  disposeCurrent = mountSolid(root, () => {
    const total = createMemo(() => {
      chat.revision();
      return formatUsage(sessionUsage(chat.current().messages));
    });
    // Esc stops the running turn from anywhere on the page.
    const onEsc = (e: KeyboardEvent) => {
      if (e.key === "Escape") stopTurn();
    };
    document.addEventListener("keydown", onEsc);
    // The chat's todos, scratchpad and tasks are tabs of the side panel while it shows.
    const unpin = current && companion ? sidePanel()?.setPinned(sessionTabs(current, companion, deps.api)) : undefined;
    onCleanup(() => {
      unpin?.();
      document.removeEventListener("keydown", onEsc);
      window.removeEventListener(INBOX_REFRESH, onWaitingChanged);
      clearInterval(elicitationPoll);
      if (frame !== null) cancelAnimationFrame(frame);
    });
    return (
      <div class="chat">
        <SessionList sessions={sessionRows()} current={current} deps={deps} />
        <section class="chat-main">
          <Show when={current}>
            {(id) => (
              <div class="chat-head">
                <ModelSwitcher sessionId={id()} api={deps.api} />
                <PanelToggle />
                <SessionSettings sessionId={id()} api={deps.api} onSaved={(ctx) => (workingDir = ctx.workingDir)} />
              </div>
            )}
          </Show>
          {/* A turn a crash cut short, answered again on start, is said to be one. */}
          <p class="resumed-banner" role="status" data-testid="resumed-banner" hidden={!resumed()}>
            This session was resumed after a crash or restart: Skald is finishing the interrupted turn.
          </p>
          <Show when={current}>{(id) => <BypassBar sessionId={id()} api={deps.api} running={chat.view.running} />}</Show>
          <Conversation view={chat.view} h={handlers} paging={createPaging()} control={(c) => (control = c)} plain={chat} />
          <div class="session-usage muted" data-testid="session-usage-bar">
            <Show when={total()}>
              <span data-testid="session-usage" title="This session so far">{`Session: ${total()}`}</span>
            </Show>
            <Show when={chat.view.context}>
              {(c) => (
                <span class="context-fill" data-testid="context-fill" title="How much of the model's context window the last request filled">
                  {`Context: ${Math.round((100 * c().estimatedTokens) / Math.max(1, c().contextWindow))}% of ${c().contextWindow}${c().trimmedToolResults ? `, ${c().trimmedToolResults} old tool results trimmed` : ""}`}
                </span>
              )}
            </Show>
            <Show when={"compactSession" in ops && current && chat.view.messages.length > 2}>
              <button type="button" class="msg-action" data-testid="compact" disabled={chat.view.running} on:click={() => void compact()}>
                Compact
              </button>
            </Show>
            <Show when={compactError()}>
              <span class="error" role="alert">{compactError()}</span>
            </Show>
          </div>
          <div class="composer">
            <textarea
              ref={input}
              class="composer-input"
              rows="3"
              placeholder={current ? "Message Skald… (Enter to send, Shift+Enter for a new line)" : "Create a chat to start"}
              aria-label="Message"
              data-testid="composer"
              disabled={!current}
              on:keydown={(e) => {
                if (e.key === "Enter" && !e.shiftKey) {
                  e.preventDefault();
                  submit();
                }
              }}
            />
            <button type="button" class="send" data-testid="send" disabled={chat.view.running || !current} on:click={submit}>
              Send
            </button>
            <button type="button" class="stop" data-testid="stop" hidden={!chat.view.running} on:click={stopTurn}>
              Stop
            </button>
          </div>
        </section>
      </div>
    );
  });
  const dispose = disposeCurrent;
  if (!current) return ownCleanup();

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
  const followResumed = () => {
    setResumed(true);
    if (attaching) resumedMeanwhile = true;
    else if (!following && !view.running) {
      following = true;
      void deps.api.attachSession(current, follow).then((running) => (following = running), () => (following = false));
    }
  };
  let alive = true;
  const unlisten = deps.api
    .onTurnResumed((sessionId) => {
      if (!alive) return void unlisten.then((off) => off?.());
      if (sessionId === current) followResumed();
    })
    .catch(() => undefined);
  disposeCurrent = () => {
    alive = false;
    void unlisten.then((off) => off?.());
    dispose();
  };
  // Taken now, not after the reads below: a newer mount may set
  // `disposeCurrent` while they wait, and this mount's late cleanup must
  // not end that one (it left the page blank after New chat).
  const cleanupMine = ownCleanup();
  const attached = deps.api.attachSession(current, follow).catch(() => false);
  const resumedNow = deps.api.resumedTurns().catch(() => [] as string[]);
  view = fromHistory(await deps.api.sessionHistory(current), await pendingHere());
  following = await attached;
  if ((await resumedNow).includes(current)) setResumed(true);
  loaded = true;
  for (const event of early) view = applyEvent(view, event);
  paint();
  control?.toBottom();
  refreshCompanion();
  attaching = false;
  if (resumedMeanwhile) followResumed();
  return cleanupMine;
}

/** The cleanup of the chat mounted last: it ends that mount only, never one
 *  a later navigation made since (a stale route's cleanup runs late). */
function ownCleanup(): () => void {
  const own = disposeCurrent;
  return () => {
    if (disposeCurrent === own) disposeChat();
  };
}
