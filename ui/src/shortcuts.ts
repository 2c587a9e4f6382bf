// App-wide keyboard shortcuts (page-level ones, like Esc to stop, live with their page).

type Keys = Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey">;

/** Ctrl+W (Cmd+W) hides the window to the tray, like its close button. */
export function isHideShortcut(e: Keys): boolean {
  return (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "w";
}

/** Ctrl+O (Cmd+O) opens a file in the viewer through the native dialog. */
export function isOpenShortcut(e: Keys): boolean {
  return (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "o";
}
