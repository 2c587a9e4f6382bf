// The side panel beside the chat: the open chat's own tabs (todos,
// scratchpad, background tasks; the page pins them while it is shown) and
// viewer files as tabs, the panel's width dragged by its edge or set by keys
// (and remembered, as are the chosen tab and whether the person hid it), a
// file tab detached into a window of its own (closing that window brings the
// tab back) or opened as the full-page viewer. Below NARROW px of window it
// gives way: hidden, files open as the full-page viewer instead, and the
// chat header's toggle opens it as an overlay over the chat.
import { createRoot, createSignal, For, type JSX, onCleanup, Show } from "solid-js";
import { clampWidth, localStore, rememberWidth, storedWidth, type WidthStore } from "../resize";
import { Splitter } from "../splitter";

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
  storage?: WidthStore;
}

/** A tab a page pins while it is shown (the chat's todos, scratchpad and
 *  tasks): no close or detach, its view made each time it is shown. */
export interface PinnedTab {
  id: string;
  label: string;
  /** The tab's view (an element kept by its owner, or a new component). */
  render: () => JSX.Element;
}

export const WIDTH_KEY = "skald.sidePanelWidth";
/** Whether the person hid the panel ("1"), and the pinned tab they chose. */
export const HIDDEN_KEY = "skald.sidePanelHidden";
/** Whether the person opened the panel for a page's own tabs alone (a
 *  chat's todos, scratchpad and tasks): until then only a file opens it, so
 *  an empty todo list never takes a third of the chat. */
export const PINNED_OPEN_KEY = "skald.sidePanelPinnedOpen";
export const TAB_KEY = "skald.sidePanelTab";
export const MIN_WIDTH = 280;
const DEFAULT_WIDTH = 520;
/** The window width at and under which the panel gives way (layout.css too). */
export const NARROW = 880;
/** What the panel leaves the rest: the navigation (~180 px) and 420 px of chat. */
const KEEP = 600;

const baseName = (p: string) => p.split("/").filter(Boolean).pop() ?? p;
const windowWidth = () => (typeof window === "undefined" ? 1600 : window.innerWidth);

/** The widest the panel may be in a window `inner` px wide. */
export function maxWidth(inner: number): number {
  return Math.max(MIN_WIDTH, inner - KEEP);
}

/** One showing of a tab: a new one remounts the view (another tab, or the
 *  same file opened again at another line). */
interface Showing {
  tab: PanelTab;
}

const fileKey = (path: string) => `file:${path}`;
const pinKey = (id: string) => `pin:${id}`;

function readKey(store: WidthStore | undefined, key: string): string | null {
  try {
    return store?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function writeKey(store: WidthStore | undefined, key: string, value: string): void {
  try {
    store?.setItem(key, value);
  } catch {
    // Storage full or disabled: the choice lasts this session only.
  }
}

export class ViewerPanel {
  readonly node: HTMLElement;
  private readonly tabs!: () => PanelTab[];
  private readonly setTabs!: (t: PanelTab[]) => void;
  private readonly pinned!: () => PinnedTab[];
  private readonly setPinnedTabs!: (t: PinnedTab[]) => void;
  private readonly active!: () => string | null;
  private readonly setActive!: (k: string | null) => void;
  private readonly showing!: () => Showing | null;
  private readonly setShowing!: (s: Showing | null) => void;
  private readonly hidden!: () => boolean;
  private readonly pinnedOpen!: () => boolean;
  /** The page asked to show one of its tabs (new todos): open until it leaves. */
  private readonly revealed = createSignal(false);
  private readonly setPinnedOpen!: (on: boolean) => void;
  private readonly setHidden!: (h: boolean) => void;
  private readonly overlay!: () => boolean;
  private readonly setOverlay!: (o: boolean) => void;
  private readonly preferred!: () => number;
  private readonly setPreferred!: (w: number) => void;
  private readonly inner!: () => number;
  private readonly store: WidthStore | undefined;
  /** Each setPinned call's token: a page's late release never unpins a newer page's tabs. */
  private pinOwner = 0;
  readonly dispose: () => void;

  constructor(deps: PanelDeps) {
    const store = deps.storage ?? localStore();
    this.store = store;
    const [tabs, setTabs] = createSignal<PanelTab[]>([]);
    const [pinned, setPinnedTabs] = createSignal<PinnedTab[]>([]);
    const [active, setActive] = createSignal<string | null>(null);
    const [showing, setShowing] = createSignal<Showing | null>(null);
    const [hidden, setHidden] = createSignal(readKey(store, HIDDEN_KEY) === "1");
    const [pinnedOpen, setPinnedOpen] = createSignal(readKey(store, PINNED_OPEN_KEY) === "1");
    const [overlay, setOverlay] = createSignal(false);
    const [inner, setInner] = createSignal(windowWidth());
    const first = Math.min(DEFAULT_WIDTH, Math.round(windowWidth() * 0.4));
    // The width the person chose; what shows is clamped to the window now,
    // so a window made narrow and wide again gets that width back.
    const [preferred, setPreferred] = createSignal(clampWidth(storedWidth(store, WIDTH_KEY, first), MIN_WIDTH, Number.MAX_SAFE_INTEGER));
    const [dragging, setDragging] = createSignal(false);
    Object.assign(this, { tabs, setTabs, pinned, setPinnedTabs, active, setActive, showing, setShowing, hidden, setHidden, pinnedOpen, setPinnedOpen, overlay, setOverlay, preferred, setPreferred, inner });
    let disposeRoot = () => undefined as void;
    this.node = createRoot((d) => {
      disposeRoot = d;
      const resize = () => {
        setInner(windowWidth());
        // Wide again: the panel is back beside the chat, not over it.
        if (inner() > NARROW && overlay()) {
          // Asked for over the chat, it stays open beside it.
          setOverlay(false);
          setHidden(false);
          writeKey(store, HIDDEN_KEY, "0");
          if (tabs().length === 0) {
            setPinnedOpen(true);
            writeKey(store, PINNED_OPEN_KEY, "1");
          }
        }
      };
      // Over the chat, a press outside the panel (its toggle aside) closes it.
      const outside = (e: PointerEvent) => {
        const t = e.target as Element | null;
        if (!this.overlaid() || !t || this.node.contains(t) || t.closest?.("[data-testid=side-panel-toggle]")) return;
        setOverlay(false);
      };
      if (typeof window !== "undefined") {
        window.addEventListener("resize", resize);
        window.addEventListener("pointerdown", outside, true);
        onCleanup(() => {
          window.removeEventListener("resize", resize);
          window.removeEventListener("pointerdown", outside, true);
        });
      }
      const shown = () => clampWidth(preferred(), MIN_WIDTH, maxWidth(inner()));
      // Over the chat in a narrow window: as wide as chosen, leaving a strip of the chat (a click there still reaches it).
      const width = () => (this.overlaid() ? Math.max(MIN_WIDTH, Math.min(preferred(), inner() - 96)) : shown());
      const button = (label: string, title: string, testid: string, f: () => void): JSX.Element => (
        <button
          type="button"
          class="side-tab-action"
          title={title}
          aria-label={title}
          data-testid={testid}
          on:click={(e) => {
            e.stopPropagation();
            f();
          }}
        >
          {label}
        </button>
      );
      return (
        <aside
          class="side-panel"
          classList={{ resizing: dragging(), "side-overlay": this.overlaid() }}
          data-testid="side-panel"
          hidden={!this.isOpen()}
          style={{ width: `${width()}px` }}
        >
          <Splitter width={shown} setWidth={(w) => this.setWidth(w)} min={MIN_WIDTH} max={() => maxWidth(inner())} label="Resize the side panel" onDrag={setDragging} />
          <div class="side-main">
            <div class="side-tabs" role="tablist" data-testid="side-tabs">
              <For each={pinned()}>
                {(t) => (
                  <div
                    class={active() === pinKey(t.id) ? "side-tab active" : "side-tab"}
                    role="tab"
                    aria-selected={active() === pinKey(t.id)}
                    data-tab={t.id}
                    data-testid="side-pin-tab"
                    on:click={() => this.showTab(t.id)}
                  >
                    <span class="side-tab-name">{t.label}</span>
                  </div>
                )}
              </For>
              <For each={tabs()}>
                {(t) => (
                  <div
                    class={active() === fileKey(t.path) ? "side-tab active" : "side-tab"}
                    role="tab"
                    aria-selected={active() === fileKey(t.path)}
                    title={t.path}
                    data-path={t.path}
                    data-testid="side-tab"
                    on:click={() => this.show(tabs().indexOf(t), false)}
                    on:auxclick={(e) => {
                      if (e.button === 1) this.close(tabs().indexOf(t));
                    }}
                  >
                    <span class="side-tab-name">{baseName(t.path)}</span>
                    {button("↗", "Open in a window of its own", "side-tab-detach", () => {
                      const path = t.path;
                      this.close(tabs().indexOf(t));
                      void deps.detach(path).catch(() => this.open(path));
                    })}
                    {button("×", "Close", "side-tab-close", () => this.close(tabs().indexOf(t)))}
                  </div>
                )}
              </For>
              <span class="side-tabs-end" />
              <Show when={showing() && active() === fileKey((showing() as Showing).tab.path)}>
                {button("⤢", "Open as a full page", "side-full-page", () => deps.fullPage((showing() as Showing).tab.path))}
              </Show>
              {button(this.overlaid() ? "×" : "⟩", this.overlaid() ? "Close the panel" : "Hide the panel", "side-hide", () => this.toggle())}
            </div>
            <div class="side-body" data-testid="side-body">
              <For each={pinned()}>
                {(t) => (
                  <Show when={active() === pinKey(t.id)}>
                    <div class="side-view side-pinned" data-testid={`side-pane-${t.id}`}>
                      {t.render()}
                    </div>
                  </Show>
                )}
              </For>
              <Show when={showing()} keyed>
                {(s) => {
                  // The view's own disposer; a view ended before its mount
                  // handed it over is ended as soon as it does.
                  let end: (() => void) | null = null;
                  let gone = false;
                  onCleanup(() => {
                    gone = true;
                    end?.();
                  });
                  return (
                    <div
                      class="side-view"
                      hidden={active() !== fileKey(s.tab.path)}
                      ref={(host) => {
                        void deps.mount(host, s.tab, (d) => (gone ? d() : (end = d)));
                      }}
                    />
                  );
                }}
              </Show>
            </div>
          </div>
        </aside>
      ) as HTMLElement;
    });
    this.dispose = disposeRoot;
  }

  /** Opens `path` (a tab of its own, or its existing tab) and shows the panel. */
  open(path: string, line?: number): void {
    const tabs = this.tabs();
    let i = tabs.findIndex((t) => t.path === path);
    if (i < 0) {
      this.setTabs([...tabs, { path, line }]);
      i = tabs.length;
    } else {
      tabs[i].line = line;
    }
    if (this.hidden()) {
      this.setHidden(false);
      writeKey(this.store, HIDDEN_KEY, "0");
    }
    this.show(i, true);
  }

  close(i: number): void {
    const tabs = this.tabs();
    if (i < 0 || i >= tabs.length) return;
    const gone = tabs[i];
    const rest = tabs.filter((_, k) => k !== i);
    this.setTabs(rest);
    if (this.active() === fileKey(gone.path)) {
      if (rest.length > 0) return this.show(Math.min(i, rest.length - 1), true);
      this.setShowing(null);
      this.setActive(null);
      this.pickPinned();
    } else if (this.showing()?.tab === gone) {
      this.setShowing(null);
    }
  }

  /** The open tabs' paths, in order (tests and the window title read it). */
  paths(): string[] {
    return this.tabs().map((t) => t.path);
  }

  /** How many tabs the panel has (files and the page's own); the chat header shows it. */
  tabCount(): number {
    return this.tabs().length + this.pinned().length;
  }

  /** Whether the panel shows now: beside the chat, or over it in a narrow window. */
  isOpen(): boolean {
    if (this.tabCount() === 0) return false;
    if (this.narrow()) return this.overlay();
    return !this.hidden() && (this.tabs().length > 0 || this.pinnedOpen() || this.revealed[0]());
  }

  /** Shows or hides the panel: in a narrow window as an overlay over the
   *  chat, else beside it (that choice is remembered). */
  toggle(): void {
    if (this.narrow()) {
      this.setOverlay(!this.overlay());
      return;
    }
    const open = !this.isOpen();
    if (!open) this.revealed[1](false);
    this.setHidden(!open);
    writeKey(this.store, HIDDEN_KEY, open ? "0" : "1");
    // Only the page's own tabs: whether they show is a choice of its own.
    if (this.tabs().length === 0) {
      this.setPinnedOpen(open);
      writeKey(this.store, PINNED_OPEN_KEY, open ? "1" : "0");
    }
  }

  /** Pins a page's tabs (replacing any); the returned release unpins them
   *  unless another page pinned its own since. */
  setPinned(tabs: PinnedTab[]): () => void {
    const mine = ++this.pinOwner;
    this.setPinnedTabs(tabs);
    const a = this.active();
    if (a === null || (a.startsWith("pin:") && !tabs.some((t) => pinKey(t.id) === a))) {
      this.setActive(null);
      this.pickPinned();
    }
    return () => {
      if (mine !== this.pinOwner) return;
      this.revealed[1](false);
      this.setPinnedTabs([]);
      this.setOverlay(false);
      if (this.active()?.startsWith("pin:")) {
        const s = this.showing();
        this.setActive(s ? fileKey(s.tab.path) : null);
      }
    };
  }

  /** Something new in the page's tab `id` (the agent wrote todos): the
   *  panel opens on it beside the chat, unless the person hid the panel or
   *  the window is narrow (the header's count says it is there). */
  reveal(id: string): void {
    if (!this.pinned().some((t) => t.id === id)) return;
    this.setActive(pinKey(id));
    this.revealed[1](true);
  }

  /** Shows the pinned tab `id` (and remembers the choice). */
  showTab(id: string): void {
    if (!this.pinned().some((t) => t.id === id)) return;
    this.setActive(pinKey(id));
    writeKey(this.store, TAB_KEY, id);
  }

  /** The tab shown now: `pin:ID` or `file:PATH`. */
  activeTab(): string | null {
    return this.active();
  }

  /** The width shown now (the chosen one, within what the window allows). */
  width(): number {
    return clampWidth(this.preferred(), MIN_WIDTH, maxWidth(this.inner()));
  }

  setWidth(px: number, remember = true): void {
    const w = clampWidth(px, MIN_WIDTH, maxWidth(this.inner()));
    this.setPreferred(w);
    if (remember) rememberWidth(this.store, WIDTH_KEY, w);
  }

  private narrow(): boolean {
    return this.inner() <= NARROW;
  }

  private overlaid(): boolean {
    return this.narrow() && this.overlay();
  }

  /** With nothing shown: the pinned tab chosen last, else the first. */
  private pickPinned(): void {
    const pins = this.pinned();
    if (pins.length === 0) return;
    const chosen = readKey(this.store, TAB_KEY);
    this.setActive(pinKey(pins.find((t) => t.id === chosen)?.id ?? pins[0].id));
  }

  private show(i: number, remount: boolean): void {
    const tab = this.tabs()[i];
    if (!tab) return;
    this.setActive(fileKey(tab.path));
    if (this.showing()?.tab === tab && !remount) return;
    this.setShowing({ tab });
  }
}

const [current, setCurrent] = createSignal<ViewerPanel | null>(null);

/** The app's panel (main.tsx makes it at boot). */
export function setSidePanel(p: ViewerPanel | null): void {
  setCurrent(p);
}

/** The app's panel, when there is one (tracked: a component reading it follows). */
export function sidePanel(): ViewerPanel | null {
  return current();
}

/** Opens `path` in the side panel when there is one and the window is wide
 *  enough for it; `false` tells the caller to open the full-page viewer. */
export function openInSidePanel(path: string, line?: number): boolean {
  const p = current();
  if (!p || windowWidth() <= NARROW) return false;
  p.open(path, line);
  return true;
}

/** The chat header's button for the panel: how many tabs it has, and a
 *  click shows or hides it (an overlay in a narrow window, where the panel
 *  itself is hidden and would otherwise leave no trace). */
export function PanelToggle(): JSX.Element {
  return (
    <Show when={current()}>
      {(p) => (
        <Show when={p().tabCount() > 0}>
          <button
            type="button"
            class="side-toggle"
            classList={{ open: p().isOpen() }}
            data-testid="side-panel-toggle"
            aria-expanded={p().isOpen()}
            aria-label={`${p().isOpen() ? "Hide" : "Show"} the side panel (${p().tabCount()} tabs)`}
            title={`${p().isOpen() ? "Hide" : "Show"} the side panel`}
            on:click={() => p().toggle()}
          >
            <span aria-hidden="true">▤</span> Panel <span class="side-count" data-testid="side-panel-count">{String(p().tabCount())}</span>
          </button>
        </Show>
      )}
    </Show>
  );
}
