// App-wide keyboard shortcuts, and the list the help overlay (? or Ctrl+/)
// shows. Page-level keys (Esc to stop, A/R on a focused approval card) are
// handled by their page but listed here, so the overlay is the one place
// that says what the keyboard does.

type Keys = Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey">;

const mod = (e: Keys) => (e.ctrlKey || e.metaKey) && !e.altKey;

/** Ctrl+W (Cmd+W) hides the window to the tray, like its close button. */
export function isHideShortcut(e: Keys): boolean {
  return mod(e) && !e.shiftKey && e.key.toLowerCase() === "w";
}

/** Ctrl+O (Cmd+O) opens a file in the viewer through the native dialog. */
export function isOpenShortcut(e: Keys): boolean {
  return mod(e) && !e.shiftKey && e.key.toLowerCase() === "o";
}

/** Ctrl+N: a new chat. */
export function isNewChatShortcut(e: Keys): boolean {
  return mod(e) && !e.shiftKey && e.key.toLowerCase() === "n";
}

/** Ctrl+L: the cursor into the composer. */
export function isFocusComposerShortcut(e: Keys): boolean {
  return mod(e) && !e.shiftKey && e.key.toLowerCase() === "l";
}

/** Ctrl+1…9: the n-th chat of the list (1-based); null for other keys. */
export function chatNumberShortcut(e: Keys): number | null {
  if (!mod(e) || e.shiftKey || !/^[1-9]$/.test(e.key)) return null;
  return Number(e.key);
}

/** Ctrl+Tab / Ctrl+Shift+Tab: the next / previous chat (+1 / -1). */
export function chatCycleShortcut(e: Keys): 1 | -1 | null {
  if (!e.ctrlKey || e.altKey || e.metaKey || e.key !== "Tab") return null;
  return e.shiftKey ? -1 : 1;
}

/** ? (outside a text field) or Ctrl+/: the shortcut overlay. */
export function isHelpShortcut(e: Keys, typing: boolean): boolean {
  if (mod(e) && e.key === "/") return true;
  return !typing && !e.ctrlKey && !e.metaKey && !e.altKey && e.key === "?";
}

/** A on a focused approval card approves it, R rejects it (the card handles these). */
export function approvalCardKey(e: Keys): "approve" | "reject" | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  const k = e.key.toLowerCase();
  return k === "a" ? "approve" : k === "r" ? "reject" : null;
}

export interface ShortcutHelp {
  keys: string;
  what: string;
}

/** What the help overlay lists, in its order. */
export const SHORTCUTS: ShortcutHelp[] = [
  { keys: "Ctrl+N", what: "New chat" },
  { keys: "Ctrl+1 … Ctrl+9", what: "Switch to chat 1–9 of the list" },
  { keys: "Ctrl+Tab / Ctrl+Shift+Tab", what: "Next / previous chat" },
  { keys: "Ctrl+L", what: "Focus the message box" },
  { keys: "Esc", what: "Stop the running turn" },
  { keys: "A / R", what: "Approve / reject the focused approval card" },
  { keys: "Ctrl+O", what: "Open a file" },
  { keys: "Ctrl+W", what: "Hide the window (Skald keeps running in the tray)" },
  { keys: "? or Ctrl+/", what: "Show or hide this list" },
];

/** Whether key presses go to a text field (then single-key shortcuts stay off). */
export function isTyping(target: EventTarget | null): boolean {
  const t = target as HTMLElement | null;
  if (!t || !t.tagName) return false;
  return t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName);
}
