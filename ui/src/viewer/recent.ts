// The files the person opened lately, newest first, kept in the webview's
// own storage (a convenience list, not data: losing it loses nothing).
const KEY = "skald.recentFiles";
export const MAX_RECENT = 12;

type Store = Pick<Storage, "getItem" | "setItem">;

export function recentFiles(store: Store = localStorage): string[] {
  try {
    const v: unknown = JSON.parse(store.getItem(KEY) ?? "[]");
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string").slice(0, MAX_RECENT) : [];
  } catch {
    return [];
  }
}

export function rememberFile(path: string, store: Store = localStorage): void {
  const list = [path, ...recentFiles(store).filter((p) => p !== path)].slice(0, MAX_RECENT);
  try {
    store.setItem(KEY, JSON.stringify(list));
  } catch {
    // Storage full or disabled: the list is a convenience.
  }
}
