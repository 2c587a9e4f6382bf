// The UI's door to the backend. Every command goes through the generated
// typed wrappers in `commands.ts` (`make bindings` writes them from the
// app's command list), so a Rust signature change that breaks the UI fails
// `tsc`. This file adds what a wrapper cannot: channels built from
// callbacks, events, and readable errors. Its exported names are what pages
// import; keep them stable.
import { Channel } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import * as cmd from "./commands";
import type { IpcError, SessionEvent, TurnOutcome, ViewerChanged } from "./bindings";

export {
  compactSession,
  getTimeZone,
  setTimeZone,
  listTools,
  openExternal,
  appInfo,
  envEndpoints,
  setEnvModel,
  localOllama,
  hideWindow,
  listSessions,
  createSession,
  renameSession,
  deleteSession,
  searchSessions,
  sessionHistory,
  resumedTurns,
  stopTurn,
  listProviders,
  addProvider,
  setDefaultModel,
  setModelReasoning,
  setModelSendImages,
  editProvider,
  deleteProvider,
  testProvider,
  probeProvider,
  useProviderModel,
  getScratchpad,
  setScratchpadEntry,
  removeScratchpadEntry,
  sessionTodos,
  listQuestions,
  answerQuestion,
  listPending,
  previewAlwaysAllow,
  listGroups,
  createGroup,
  deleteGroup,
  listRules,
  addRule,
  updateRule,
  deleteRule,
  getRunContext,
  setRunContext,
  addBypass,
  clearBypasses,
  listBypasses,
  chatModels,
  setChatModel,
  pickFolder,
  viewFile,
  viewerOpen,
  detachViewer,
  takeLaunchFiles,
  pickFile,
  pdfText,
  latexForward,
  latexInverse,
  viewerOutline,
  viewerBytes,
  pdfInfo,
  pdfPage,
  pdfFind,
  htmlServe,
  latexCompile,
  viewerUnwatch,
  listTasks,
  getTask,
  stopTask,
  runTaskNow,
  setTaskEnabled,
  deleteTask,
} from "./commands";

function eventChannel(onEvent?: (e: SessionEvent) => void): Channel<SessionEvent> {
  const channel = new Channel<SessionEvent>();
  channel.onmessage = onEvent ?? (() => undefined);
  return channel;
}

/** Calls `handler` whenever the set of calls waiting for a person changes. */
export function onApprovalsChanged(handler: () => void): void {
  listen("approvals-changed", () => handler()).catch(() => undefined);
}

/** Runs one turn; every event of it arrives on `onEvent`, in order. */
export function sendMessage(sessionId: string, text: string, onEvent: (e: SessionEvent) => void): Promise<TurnOutcome> {
  return cmd.sendMessage(sessionId, text, eventChannel(onEvent));
}

/** Re-runs the failed last turn. */
export function retryTurn(sessionId: string, onEvent: (e: SessionEvent) => void): Promise<TurnOutcome> {
  return cmd.retryTurn(sessionId, eventChannel(onEvent));
}

/** Drops the last answer and asks again. */
export function regenerateAnswer(sessionId: string, onEvent: (e: SessionEvent) => void): Promise<TurnOutcome> {
  return cmd.regenerateAnswer(sessionId, eventChannel(onEvent));
}

/** Replaces the last user message (and what followed) with `text`, then runs the turn. */
export function editLastMessage(sessionId: string, text: string, onEvent: (e: SessionEvent) => void): Promise<TurnOutcome> {
  return cmd.editLastMessage(sessionId, text, eventChannel(onEvent));
}

/**
 * Follows the session's running turn, whoever started it (another page, crash
 * resume on start): its events so far arrive on `onEvent` at once, then the
 * live ones until it ends. Resolves to whether a turn is running.
 */
export function attachSession(sessionId: string, onEvent: (e: SessionEvent) => void): Promise<boolean> {
  return cmd.attachSession(sessionId, eventChannel(onEvent));
}

/** Calls `handler` with the session id whenever crash resume starts
 *  answering a turn; resolves to an unlisten. */
export function onTurnResumed(handler: (sessionId: string) => void): Promise<() => void> {
  return listen<{ sessionId: string }>("turn-resumed", (e) => handler(e.payload.sessionId));
}

/**
 * Runs a waiting call. When a live turn waits for it, that turn's own channel
 * carries what follows; otherwise (after a restart) `onEvent` does.
 */
export async function approveCall(toolCallId: string, onEvent?: (e: SessionEvent) => void): Promise<void> {
  await cmd.approveCall(toolCallId, eventChannel(onEvent));
}

export async function rejectCall(toolCallId: string, note: string | null, onEvent?: (e: SessionEvent) => void): Promise<void> {
  await cmd.rejectCall(toolCallId, note, eventChannel(onEvent));
}

/** Saves the rule "always allow" would save, then approves the call. */
export async function alwaysAllow(toolCallId: string, onEvent?: (e: SessionEvent) => void): Promise<void> {
  await cmd.alwaysAllow(toolCallId, eventChannel(onEvent));
}

/** A detached viewer window closed: its file comes back to the side panel. */
export function onViewerReturned(handler: (path: string) => void): void {
  listen<string>("viewer-returned", (e) => handler(e.payload)).catch(() => undefined);
}

/** Files to open from outside the window: a second launch, a drop. */
export function onOpenFiles(handler: (paths: string[]) => void): void {
  listen<string[]>("open-files", (e) => handler(e.payload)).catch(() => undefined);
}

/** Starts (or, given `watch`, updates) a watch on files; returns its id. */
export function viewerWatch(paths: string[], watch?: number): Promise<number> {
  return cmd.viewerWatch(paths, watch ?? null);
}

/** Calls `handler` for every watched file that changes; resolves to an unlisten. */
export function onViewerChanged(handler: (c: ViewerChanged) => void): Promise<() => void> {
  return listen<ViewerChanged>("viewer-changed", (e) => handler(e.payload));
}

/** A readable sentence from whatever a failed command rejected with. */
export function errorMessage(e: unknown): string {
  if (e && typeof e === "object" && "message" in e) {
    return String((e as IpcError).message);
  }
  return String(e);
}
