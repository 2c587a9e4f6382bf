// Links and the context menu. The app has one window and it must never
// navigate away: a link to the web opens in the system browser, a link
// inside the app (#/…) routes as usual, anything else (file:, javascript:,
// custom schemes) does nothing. The Rust side refuses any navigation that
// slips past this too (src-tauri/src/navigation.rs).
import { el } from "./dom";

export type LinkAction = { kind: "app" } | { kind: "external"; url: string } | { kind: "refuse" };

export function linkAction(href: string | null): LinkAction {
  if (!href || href.startsWith("#")) return { kind: "app" };
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return { kind: "refuse" };
  }
  if (url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:") {
    return { kind: "external", url: url.href };
  }
  return { kind: "refuse" };
}

/** Makes every link click under `root` follow [`linkAction`]. */
export function guardLinks(root: Document | HTMLElement, openExternal: (url: string) => Promise<void>): void {
  root.addEventListener("click", (e) => {
    const a = (e.target as Element | null)?.closest?.("a[href]");
    if (!a) return;
    const action = linkAction(a.getAttribute("href"));
    if (action.kind === "app") return;
    e.preventDefault();
    if (action.kind === "external") void openExternal(action.url).catch(() => undefined);
  });
}

export interface MenuItem {
  label: string;
  run: () => void;
}

/** Puts `text` on the clipboard (also used by the chat's copy buttons). */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Older WebKit without the async clipboard: the selection-based copy.
    const area = el("textarea", {}, text);
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
}

/** What our context menu offers at `target`: copy the selection, and for a
 *  link, copy or open it. Text fields keep the system's menu (cut, paste),
 *  which has no navigation entries — that is `null` here. */
export function menuItems(target: Element | null, selection: string, openExternal: (url: string) => Promise<void>): MenuItem[] | null {
  if (target?.closest("textarea, input, [contenteditable=true]")) return null;
  const items: MenuItem[] = [];
  if (selection.trim() !== "") items.push({ label: "Copy", run: () => void copyText(selection) });
  const a = target?.closest("a[href]");
  const action = linkAction(a?.getAttribute("href") ?? null);
  if (action.kind === "external") {
    items.push({ label: "Open link", run: () => void openExternal(action.url).catch(() => undefined) });
    items.push({ label: "Copy link", run: () => void copyText(action.url) });
  }
  return items;
}

/** Replaces WebKit's default context menu (Back, Reload, Inspect) with ours. */
export function installContextMenu(doc: Document, openExternal: (url: string) => Promise<void>): void {
  let open: HTMLElement | null = null;
  const close = () => {
    open?.remove();
    open = null;
  };
  doc.addEventListener("contextmenu", (e) => {
    const items = menuItems(e.target as Element | null, doc.getSelection()?.toString() ?? "", openExternal);
    if (items === null) return;
    e.preventDefault();
    close();
    if (items.length === 0) return;
    const menu = el("div", { class: "context-menu", role: "menu", "data-testid": "context-menu" });
    for (const item of items) {
      const b = el("button", { type: "button", role: "menuitem" }, item.label);
      b.addEventListener("click", () => {
        close();
        item.run();
      });
      menu.append(b);
    }
    menu.style.left = `${e.clientX}px`;
    menu.style.top = `${e.clientY}px`;
    doc.body.append(menu);
    open = menu;
  });
  doc.addEventListener("click", (e) => {
    if (open && !open.contains(e.target as Node)) close();
  });
  doc.addEventListener("keydown", (e) => {
    if (e.key === "Escape") close();
  });
}
