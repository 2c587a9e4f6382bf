// The viewer as a side panel beside the chat: several files as tabs, the
// panel's width dragged by its edge (and remembered), a tab detached into a
// window of its own (closing that window brings the tab back) or opened as
// the full-page viewer.
import { el } from "../dom";

export interface PanelTab {
  path: string;
  line?: number;
}

export interface PanelDeps {
  /** Shows `tab` in `root`; hands back how to end that view. */
  mount(root: HTMLElement, tab: PanelTab, own: (dispose: () => void) => void): Promise<void>;
  /** A window of its own for `path`. */
  detach(path: string): Promise<void>;
  /** The full-page viewer for `path`. */
  fullPage(path: string): void;
  storage?: Pick<Storage, "getItem" | "setItem">;
}

const WIDTH_KEY = "skald.sidePanelWidth";
const MIN_WIDTH = 280;
const DEFAULT_WIDTH = 520;

const baseName = (p: string) => p.split("/").filter(Boolean).pop() ?? p;

export class ViewerPanel {
  readonly node: HTMLElement;
  private tabs: PanelTab[] = [];
  private active = -1;
  private dispose: (() => void) | null = null;
  private readonly tabBar: HTMLElement;
  private readonly body: HTMLElement;

  constructor(private readonly deps: PanelDeps) {
    this.tabBar = el("div", { class: "side-tabs", role: "tablist", "data-testid": "side-tabs" });
    this.body = el("div", { class: "side-body", "data-testid": "side-body" });
    const resizer = el("div", { class: "side-resizer", "data-testid": "side-resizer", role: "separator", "aria-orientation": "vertical", title: "Drag to resize" });
    this.node = el("aside", { class: "side-panel", "data-testid": "side-panel", hidden: "" }, resizer, el("div", { class: "side-main" }, this.tabBar, this.body));
    const first = Math.min(DEFAULT_WIDTH, Math.round((typeof window === "undefined" ? 1600 : window.innerWidth) * 0.4));
    this.setWidth(Number(this.store()?.getItem(WIDTH_KEY)) || first, false);
    resizer.addEventListener("pointerdown", (e) => this.drag(e));
  }

  /** Opens `path` (a tab of its own, or its existing tab) and shows the panel. */
  open(path: string, line?: number): void {
    let i = this.tabs.findIndex((t) => t.path === path);
    if (i < 0) {
      this.tabs.push({ path, line });
      i = this.tabs.length - 1;
    } else {
      this.tabs[i].line = line;
    }
    this.node.hidden = false;
    void this.show(i, true);
  }

  close(i: number): void {
    if (i < 0 || i >= this.tabs.length) return;
    this.tabs.splice(i, 1);
    if (this.tabs.length === 0) {
      this.end();
      this.active = -1;
      this.node.hidden = true;
      this.renderTabs();
      return;
    }
    const next = i === this.active ? Math.min(i, this.tabs.length - 1) : this.active > i ? this.active - 1 : this.active;
    void this.show(next, i === this.active);
  }

  /** The open tabs' paths, in order (tests and the window title read it). */
  paths(): string[] {
    return this.tabs.map((t) => t.path);
  }

  width(): number {
    return Number.parseFloat(this.node.style.width) || DEFAULT_WIDTH;
  }

  private async show(i: number, remount: boolean): Promise<void> {
    const changed = i !== this.active;
    this.active = i;
    this.renderTabs();
    if (!changed && !remount) return;
    this.end();
    const host = el("div", { class: "side-view" });
    this.body.replaceChildren(host);
    await this.deps.mount(host, this.tabs[i], (d) => (this.dispose = d));
  }

  private end(): void {
    this.dispose?.();
    this.dispose = null;
    this.body.replaceChildren();
  }

  private renderTabs(): void {
    const button = (label: string, title: string, testid: string, f: () => void) => {
      const b = el("button", { type: "button", class: "side-tab-action", title, "aria-label": title, "data-testid": testid }, label);
      b.addEventListener("click", (e) => {
        e.stopPropagation();
        f();
      });
      return b;
    };
    this.tabBar.replaceChildren(
      ...this.tabs.map((t, i) => {
        const tab = el(
          "div",
          { class: i === this.active ? "side-tab active" : "side-tab", role: "tab", "aria-selected": String(i === this.active), title: t.path, "data-path": t.path, "data-testid": "side-tab" },
          el("span", { class: "side-tab-name" }, baseName(t.path)),
          button("↗", "Open in a window of its own", "side-tab-detach", () => {
            const path = t.path;
            this.close(this.tabs.indexOf(t));
            void this.deps.detach(path).catch(() => this.open(path));
          }),
          button("×", "Close", "side-tab-close", () => this.close(this.tabs.indexOf(t))),
        );
        tab.addEventListener("click", () => void this.show(this.tabs.indexOf(t), false));
        tab.addEventListener("auxclick", (e) => {
          if (e.button === 1) this.close(this.tabs.indexOf(t));
        });
        return tab;
      }),
      ...(this.active >= 0
        ? [button("⤢", "Open as a full page", "side-full-page", () => this.deps.fullPage(this.tabs[this.active].path)), button("⟩", "Hide the panel", "side-hide", () => (this.node.hidden = true))]
        : []),
    );
  }

  private store() {
    try {
      return this.deps.storage ?? localStorage;
    } catch {
      return undefined;
    }
  }

  setWidth(px: number, remember = true): void {
    // The chat keeps its room: the navigation (~180 px) and 420 px of chat.
    const max = Math.max(MIN_WIDTH, (typeof window === "undefined" ? 1600 : window.innerWidth) - 600);
    const w = Math.round(Math.min(Math.max(px, MIN_WIDTH), max));
    this.node.style.width = `${w}px`;
    if (remember) {
      try {
        this.store()?.setItem(WIDTH_KEY, String(w));
      } catch {
        // Only a convenience.
      }
    }
  }

  private drag(start: PointerEvent): void {
    start.preventDefault();
    const x0 = start.clientX;
    const w0 = this.width();
    const move = (e: PointerEvent) => this.setWidth(w0 + (x0 - e.clientX));
    const up = () => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      this.node.classList.remove("resizing");
    };
    this.node.classList.add("resizing");
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  }
}

let current: ViewerPanel | null = null;

/** The app's panel (main.ts makes it at boot). */
export function setSidePanel(p: ViewerPanel | null): void {
  current = p;
}

/** Opens `path` in the side panel when there is one and the window is wide
 *  enough for it; `false` tells the caller to open the full-page viewer. */
export function openInSidePanel(path: string, line?: number): boolean {
  if (!current || (typeof window !== "undefined" && window.innerWidth <= 820)) return false;
  current.open(path, line);
  return true;
}
