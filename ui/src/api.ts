// Typed wrappers over the backend's Tauri commands. Types come from the
// generated bindings, so a Rust change that breaks the UI fails `tsc`.
import { invoke } from "@tauri-apps/api/core";
import type { AllTools, AppInfo, IpcError } from "./bindings";

export function listTools(): Promise<AllTools> {
  return invoke<AllTools>("list_tools");
}

export function appInfo(): Promise<AppInfo> {
  return invoke<AppInfo>("app_info");
}

/** A readable sentence from whatever a failed command rejected with. */
export function errorMessage(e: unknown): string {
  if (e && typeof e === "object" && "message" in e) {
    return String((e as IpcError).message);
  }
  return String(e);
}
