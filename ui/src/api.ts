// Typed wrappers over the backend's Tauri commands. Types come from the
// generated bindings, so a Rust change that breaks the UI fails `tsc`.
import { Channel, invoke } from "@tauri-apps/api/core";
import type {
  AllTools,
  AppInfo,
  ChatMessage,
  IpcError,
  NewProviderInput,
  ProviderView,
  SessionEvent,
  SessionSummary,
  TurnOutcome,
} from "./bindings";

export function listTools(): Promise<AllTools> {
  return invoke<AllTools>("list_tools");
}

export function appInfo(): Promise<AppInfo> {
  return invoke<AppInfo>("app_info");
}

export function listSessions(): Promise<SessionSummary[]> {
  return invoke<SessionSummary[]>("list_sessions");
}

export function createSession(title: string | null, workingDir: string | null): Promise<SessionSummary> {
  return invoke<SessionSummary>("create_session", { title, workingDir });
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

/** A text file for the viewer, through the same policy as read tools. */
export function viewFile(path: string): Promise<string> {
  return invoke<string>("view_file", { path });
}

/** A readable sentence from whatever a failed command rejected with. */
export function errorMessage(e: unknown): string {
  if (e && typeof e === "object" && "message" in e) {
    return String((e as IpcError).message);
  }
  return String(e);
}
