// Typed wrappers over the backend's Tauri commands. Types come from the
// generated bindings, so a Rust change that breaks the UI fails `tsc`.
import { Channel, invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type {
  AllTools,
  AppInfo,
  ApprovalResolution,
  ChatMessage,
  EnvEndpointView,
  IpcError,
  LocalOllamaView,
  NewProviderInput,
  PendingApprovalView,
  PendingQuestionView,
  ScratchpadEntryView,
  SummaryView,
  TodoListView,
  BypassScopeView,
  BypassView,
  GroupView,
  RunContextView,
  RuleInput,
  RuleView,
  ProviderKindView,
  ProviderView,
  ReasoningSetting,
  SessionEvent,
  SessionSearchHit,
  SessionSummary,
  TaskDetailView,
  TaskView,
  TurnOutcome,
  LatexView,
  PdfFindHit,
  PdfInfo,
  OutlineEntry,
  PdfSpotView,
  PdfTextRun,
  SourceLineView,
  ViewInfo,
  ViewerChanged,
} from "./bindings";

export function listTools(): Promise<AllTools> {
  return invoke<AllTools>("list_tools");
}

/** Opens a web or mail link in the system's browser or mail program. */
export function openExternal(url: string): Promise<void> {
  return invoke<void>("open_external", { url });
}

export function appInfo(): Promise<AppInfo> {
  return invoke<AppInfo>("app_info");
}

/** Endpoints the environment configures, with the models each lists. */
export function envEndpoints(): Promise<EnvEndpointView[]> {
  return invoke<EnvEndpointView[]>("env_endpoints");
}

/** Remembers the model to use with an environment endpoint. */
export function setEnvModel(kind: ProviderKindView, model: string): Promise<void> {
  return invoke<void>("set_env_model", { kind, model });
}

/** An Ollama answering on this machine, with the models it has pulled, or null. */
export function localOllama(): Promise<LocalOllamaView | null> {
  return invoke<LocalOllamaView | null>("local_ollama");
}

/** Calls `handler` whenever the set of calls waiting for a person changes. */
export function onApprovalsChanged(handler: () => void): void {
  listen("approvals-changed", () => handler()).catch(() => undefined);
}

/** Hides the main window to the tray (what closing it does). */
export function hideWindow(): Promise<void> {
  return invoke<void>("hide_window");
}

export function listSessions(): Promise<SessionSummary[]> {
  return invoke<SessionSummary[]>("list_sessions");
}

export function createSession(title: string | null, workingDir: string | null): Promise<SessionSummary> {
  return invoke<SessionSummary>("create_session", { title, workingDir });
}

export function renameSession(sessionId: string, title: string): Promise<SessionSummary> {
  return invoke<SessionSummary>("rename_session", { sessionId, title });
}

/** Deletes for good: the chat page offers Undo for a few seconds first. */
export function deleteSession(sessionId: string): Promise<boolean> {
  return invoke<boolean>("delete_session", { sessionId });
}

/** Sessions whose title or messages contain `text` (all of them for ""). */
export function searchSessions(text: string): Promise<SessionSearchHit[]> {
  return invoke<SessionSearchHit[]>("search_sessions", { text });
}

export function sessionHistory(sessionId: string): Promise<ChatMessage[]> {
  return invoke<ChatMessage[]>("session_history", { sessionId });
}

/** Runs one turn; every event of it arrives on `onEvent`, in order. */
export function sendMessage(
  sessionId: string,
  text: string,
  onEvent: (e: SessionEvent) => void,
): Promise<TurnOutcome> {
  const channel = new Channel<SessionEvent>();
  channel.onmessage = onEvent;
  return invoke<TurnOutcome>("send_message", { sessionId, text, onEvent: channel });
}

/** A turn's events on a fresh channel (retry, regenerate, edit). */
function turnChannel(onEvent: (e: SessionEvent) => void): Channel<SessionEvent> {
  const channel = new Channel<SessionEvent>();
  channel.onmessage = onEvent;
  return channel;
}

/** Runs the failed last turn again (also sends a message kept when there was no provider). */
export function retryTurn(sessionId: string, onEvent: (e: SessionEvent) => void): Promise<TurnOutcome> {
  return invoke<TurnOutcome>("retry_turn", { sessionId, onEvent: turnChannel(onEvent) });
}

/** Drops the last answer and asks again. */
export function regenerateAnswer(sessionId: string, onEvent: (e: SessionEvent) => void): Promise<TurnOutcome> {
  return invoke<TurnOutcome>("regenerate_answer", { sessionId, onEvent: turnChannel(onEvent) });
}

/** Replaces the last user message (and what followed) with `text`, then runs the turn. */
export function editLastMessage(
  sessionId: string,
  text: string,
  onEvent: (e: SessionEvent) => void,
): Promise<TurnOutcome> {
  return invoke<TurnOutcome>("edit_last_message", { sessionId, text, onEvent: turnChannel(onEvent) });
}

/** Summarises every turn but the last; later requests send the summary instead. */
export function compactSession(sessionId: string): Promise<SummaryView> {
  return invoke<SummaryView>("compact_session", { sessionId });
}

/**
 * Follows the session's running turn, whoever started it (another page, crash
 * resume on start): its events so far arrive on `onEvent` at once, then the
 * live ones until it ends. Resolves to whether a turn is running.
 */
export function attachSession(sessionId: string, onEvent: (e: SessionEvent) => void): Promise<boolean> {
  const channel = new Channel<SessionEvent>();
  channel.onmessage = onEvent;
  return invoke<boolean>("attach_session", { sessionId, onEvent: channel });
}

/** Sessions whose turn, cut short by a crash, the app is answering now. */
export function resumedTurns(): Promise<string[]> {
  return invoke<string[]>("resumed_turns");
}

/** Calls `handler` with the session id whenever crash resume starts
 *  answering a turn; resolves to an unlisten. */
export function onTurnResumed(handler: (sessionId: string) => void): Promise<() => void> {
  return listen<{ sessionId: string }>("turn-resumed", (e) => handler(e.payload.sessionId));
}

export function stopTurn(sessionId: string): Promise<void> {
  return invoke<void>("stop_turn", { sessionId });
}

export function listProviders(): Promise<ProviderView[]> {
  return invoke<ProviderView[]>("list_providers");
}

export function addProvider(input: NewProviderInput): Promise<ProviderView> {
  return invoke<ProviderView>("add_provider", { input });
}

export function setDefaultModel(modelId: number): Promise<void> {
  return invoke<void>("set_default_model", { modelId });
}

/** How much a model reasons; `null` leaves it to the provider. */
export function setModelReasoning(modelId: number, reasoning: ReasoningSetting | null): Promise<void> {
  return invoke<void>("set_model_reasoning", { modelId, reasoning });
}

/** Every call waiting for a person, across sessions (the Agent Inbox). */
export function getScratchpad(sessionId: string): Promise<ScratchpadEntryView[]> {
  return invoke<ScratchpadEntryView[]>("get_scratchpad", { sessionId });
}

/** Writes an entry (an empty value deletes it); returns the scratchpad after. */
export function setScratchpadEntry(sessionId: string, key: string, value: string): Promise<ScratchpadEntryView[]> {
  return invoke<ScratchpadEntryView[]>("set_scratchpad_entry", { sessionId, key, value });
}

export function removeScratchpadEntry(sessionId: string, key: string): Promise<ScratchpadEntryView[]> {
  return invoke<ScratchpadEntryView[]>("remove_scratchpad_entry", { sessionId, key });
}

/** The latest todo list of each agent of the session, root first. */
export function sessionTodos(sessionId: string): Promise<TodoListView[]> {
  return invoke<TodoListView[]>("session_todos", { sessionId });
}

/** Questions agents wait on, across sessions. */
export function listQuestions(): Promise<PendingQuestionView[]> {
  return invoke<PendingQuestionView[]>("list_questions");
}

export function answerQuestion(toolCallId: string, answer: string): Promise<void> {
  return invoke<void>("answer_question", { toolCallId, answer });
}

export function listPending(): Promise<PendingApprovalView[]> {
  return invoke<PendingApprovalView[]>("list_pending");
}

function eventChannel(onEvent?: (e: SessionEvent) => void): Channel<SessionEvent> {
  const channel = new Channel<SessionEvent>();
  channel.onmessage = onEvent ?? (() => undefined);
  return channel;
}

/**
 * Runs a waiting call. When a live turn waits for it, that turn's own channel
 * carries what follows; otherwise (after a restart) `onEvent` does.
 */
export async function approveCall(toolCallId: string, onEvent?: (e: SessionEvent) => void): Promise<void> {
  await invoke<ApprovalResolution>("approve_call", { toolCallId, onEvent: eventChannel(onEvent) });
}

export async function rejectCall(toolCallId: string, note: string | null, onEvent?: (e: SessionEvent) => void): Promise<void> {
  await invoke<ApprovalResolution>("reject_call", { toolCallId, note, onEvent: eventChannel(onEvent) });
}

/** The rule "always allow" would save for this call, as the settings show it. */
export function previewAlwaysAllow(toolCallId: string): Promise<string> {
  return invoke<string>("preview_always_allow", { toolCallId });
}

/** Saves that rule, then approves the call. */
export async function alwaysAllow(toolCallId: string, onEvent?: (e: SessionEvent) => void): Promise<void> {
  await invoke<ApprovalResolution>("always_allow", { toolCallId, onEvent: eventChannel(onEvent) });
}

export function listGroups(): Promise<GroupView[]> {
  return invoke<GroupView[]>("list_groups");
}

export function createGroup(name: string, description: string, copyFrom: string | null): Promise<GroupView> {
  return invoke<GroupView>("create_group", { name, description, copyFrom });
}

export function deleteGroup(name: string): Promise<boolean> {
  return invoke<boolean>("delete_group", { name });
}

export function listRules(group: string): Promise<RuleView[]> {
  return invoke<RuleView[]>("list_rules", { group });
}

export function addRule(input: RuleInput): Promise<RuleView> {
  return invoke<RuleView>("add_rule", { input });
}

export function updateRule(id: number, input: RuleInput): Promise<RuleView> {
  return invoke<RuleView>("update_rule", { id, input });
}

export function deleteRule(id: number): Promise<boolean> {
  return invoke<boolean>("delete_rule", { id });
}

export function getRunContext(sessionId: string): Promise<RunContextView> {
  return invoke<RunContextView>("get_run_context", { sessionId });
}

export function setRunContext(sessionId: string, ctx: RunContextView): Promise<void> {
  return invoke<void>("set_run_context", { sessionId, ctx });
}

/** Lets `scope` through without asking for `minutes` (never over a deny). */
export function addBypass(sessionId: string, scope: BypassScopeView, minutes: number | null): Promise<void> {
  return invoke<void>("add_bypass", { sessionId, scope, minutes });
}

export function clearBypasses(sessionId: string): Promise<void> {
  return invoke<void>("clear_bypasses", { sessionId });
}

/** The session's live bypasses and the time each has left. */
export function listBypasses(sessionId: string): Promise<BypassView[]> {
  return invoke<BypassView[]>("list_bypasses", { sessionId });
}

/** A text file for the viewer, through the same policy as read tools. */
export function viewFile(path: string): Promise<string> {
  return invoke<string>("view_file", { path });
}

/** What a file is (kind, canonical path, size), through the read policy. */
export function viewerOpen(path: string): Promise<ViewInfo> {
  return invoke<ViewInfo>("viewer_open", { path });
}

/** Opens `path` in a viewer window of its own at `route`. */
export function detachViewer(path: string, route: string): Promise<string> {
  return invoke<string>("detach_viewer", { path, route });
}

/** A detached viewer window closed: its file comes back to the side panel. */
export function onViewerReturned(handler: (path: string) => void): void {
  listen<string>("viewer-returned", (e) => handler(e.payload)).catch(() => undefined);
}

/** Files named on the first launch's command line (once). */
export function takeLaunchFiles(): Promise<string[]> {
  return invoke<string[]>("take_launch_files");
}

/** The native Open dialog; `null` when cancelled. */
export function pickFile(): Promise<string | null> {
  return invoke<string | null>("pick_file");
}

/** Files to open from outside the window: a second launch, a drop. */
export function onOpenFiles(handler: (paths: string[]) => void): void {
  listen<string[]>("open-files", (e) => handler(e.payload)).catch(() => undefined);
}

/** A PDF page's text runs (0-based page), for the selectable layer. */
export function pdfText(path: string, page: number): Promise<PdfTextRun[]> {
  return invoke<PdfTextRun[]>("pdf_text", { path, page });
}

/** SyncTeX forward: where `line` of `input` sits in `document`'s PDF. */
export function latexForward(document: string, input: string, line: number): Promise<PdfSpotView | null> {
  return invoke<PdfSpotView | null>("latex_forward", { document, input, line });
}

/** SyncTeX inverse: the source line behind a point on a page. */
export function latexInverse(document: string, page: number, x: number, y: number): Promise<SourceLineView | null> {
  return invoke<SourceLineView | null>("latex_inverse", { document, page, x, y });
}

/** A code file's definitions for the viewer's side list. */
export function viewerOutline(path: string): Promise<OutlineEntry[]> {
  return invoke<OutlineEntry[]>("viewer_outline", { path });
}

/** An image's or SVG's bytes. */
export function viewerBytes(path: string): Promise<ArrayBuffer> {
  return invoke<ArrayBuffer>("viewer_bytes", { path });
}

export function pdfInfo(path: string): Promise<PdfInfo> {
  return invoke<PdfInfo>("pdf_info", { path });
}

/** Page `page` (0-based) as PNG bytes, `width` device pixels wide. */
export function pdfPage(path: string, page: number, width: number): Promise<ArrayBuffer> {
  return invoke<ArrayBuffer>("pdf_page", { path, page, width });
}

export function pdfFind(path: string, query: string): Promise<PdfFindHit[]> {
  return invoke<PdfFindHit[]>("pdf_find", { path, query });
}

/** The isolated URL (skald-html protocol) that serves an HTML file's tree. */
export function htmlServe(path: string): Promise<string> {
  return invoke<string>("html_serve", { path });
}

/** Compiles a .tex document (or takes it from the cache). */
export function latexCompile(path: string): Promise<LatexView> {
  return invoke<LatexView>("latex_compile", { path });
}

/** Starts (or, given `watch`, updates) a watch on files; returns its id. */
export function viewerWatch(paths: string[], watch?: number): Promise<number> {
  return invoke<number>("viewer_watch", { paths, watch: watch ?? null });
}

export function viewerUnwatch(watch: number): Promise<void> {
  return invoke<void>("viewer_unwatch", { watch });
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

// Background tasks (execute_task async) and cron jobs.
export function listTasks(): Promise<TaskView[]> {
  return invoke("list_tasks");
}

export function getTask(id: number): Promise<TaskDetailView> {
  return invoke("get_task", { id });
}

export function stopTask(id: number): Promise<boolean> {
  return invoke("stop_task", { id });
}

export function runTaskNow(id: number): Promise<number | null> {
  return invoke("run_task_now", { id });
}

export function setTaskEnabled(id: number, enabled: boolean): Promise<TaskView> {
  return invoke("set_task_enabled", { id, enabled });
}

export function deleteTask(id: number): Promise<boolean> {
  return invoke("delete_task", { id });
}
