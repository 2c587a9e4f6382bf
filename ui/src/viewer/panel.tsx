// The viewer as a side panel beside the chat: several files as tabs, the
// panel's width dragged by its edge or set by keys (and remembered), a tab
// detached into a window of its own (closing that window brings the tab back)
// or opened as the full-page viewer. Below NARROW px of window it gives way:
// hidden by the CSS, and files open as the full-page viewer instead.
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

export const WIDTH_KEY = "skald.sidePanelWidth";
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

export class ViewerPanel {
  readonly node: HTMLElement;
  private readonly tabs!: () => PanelTab[];
  private readonly setTabs!: (t: PanelTab[]) => void;
  private readonly active!: () => number;
  private readonly setActive!: (i: number) => void;
  private readonly setShowing!: (s: Showing | null) => void;
  private readonly setHidden!: (h: boolean) => void;
  private readonly preferred!: () => number;
  private readonly setPreferred!: (w: number) => void;
  private readonly inner!: () => number;
  readonly dispose: () => void;

  constructor(private readonly deps: PanelDeps) {
    const store = deps.storage ?? localStore();
    const [tabs, setTabs] = createSignal<PanelTab[]>([]);
    const [active, setActive] = createSignal(-1);
    const [showing, setShowing] = createSignal<Showing | null>(null);
    const [hidden, setHidden] = createSignal(true);
    const [inner, setInner] = createSignal(windowWidth());
    const first = Math.min(DEFAULT_WIDTH, Math.round(windowWidth() * 0.4));
    // The width the person chose; what shows is clamped to the window now,
    // so a window made narrow and wide again gets that width back.
    const [preferred, setPreferred] = createSignal(clampWidth(storedWidth(store, WIDTH_KEY, first), MIN_WIDTH, Number.MAX_SAFE_INTEGER));
    const [dragging, setDragging] = createSignal(false);
    Object.assign(this, { tabs, setTabs, active, setActive, setShowing, setHidden, preferred, setPreferred, inner });
    let disposeRoot = () => undefined as void;
    this.node = createRoot((d) => {
      disposeRoot = d;
      const resize = () => setInner(windowWidth());
      if (typeof window !== "undefined") {
        window.addEventListener("resize", resize);
        onCleanup(() => window.removeEventListener("resize", resize));
      }
      const shown = () => clampWidth(preferred(), MIN_WIDTH, maxWidth(inner()));
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
        <aside class="side-panel" classList={{ resizing: dragging() }} data-testid="side-panel" hidden={hidden()} style={{ width: `${shown()}px` }}>
          <Splitter width={shown} setWidth={(w) => this.setWidth(w)} min={MIN_WIDTH} max={() => maxWidth(inner())} label="Resize the side panel" onDrag={setDragging} />
          <div class="side-main">
            <div class="side-tabs" role="tablist" data-testid="side-tabs">
              <For each={tabs()}>
                {(t) => (
                  <div
                    class={tabs()[active()] === t ? "side-tab active" : "side-tab"}
                    role="tab"
                    aria-selected={tabs()[active()] === t}
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
              <Show when={active() >= 0}>
                {button("⤢", "Open as a full page", "side-full-page", () => deps.fullPage(tabs()[active()].path))}
                {button("⟩", "Hide the panel", "side-hide", () => setHidden(true))}
              </Show>
            </div>
            <div class="side-body" data-testid="side-body">
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
    this.setHidden(false);
    this.show(i, true);
  }

  close(i: number): void {
    const tabs = this.tabs();
    if (i < 0 || i >= tabs.length) return;
    const rest = tabs.filter((_, k) => k !== i);
    const active = this.active();
    this.setTabs(rest);
    if (rest.length === 0) {
      this.setActive(-1);
      this.setShowing(null);
      this.setHidden(true);
      return;
    }
    if (i === active) this.show(Math.min(i, rest.length - 1), true);
    else this.setActive(active > i ? active - 1 : active);
  }

  /** The open tabs' paths, in order (tests and the window title read it). */
  paths(): string[] {
    return this.tabs().map((t) => t.path);
  }

  /** The width shown now (the chosen one, within what the window allows). */
  width(): number {
    return clampWidth(this.preferred(), MIN_WIDTH, maxWidth(this.inner()));
  }

  setWidth(px: number, remember = true): void {
    const w = clampWidth(px, MIN_WIDTH, maxWidth(this.inner()));
    this.setPreferred(w);
    if (remember) rememberWidth(this.deps.storage ?? localStore(), WIDTH_KEY, w);
  }

  private show(i: number, remount: boolean): void {
    const changed = i !== this.active();
    this.setActive(i);
    if (!changed && !remount) return;
    this.setShowing({ tab: this.tabs()[i] });
  }
}

let current: ViewerPanel | null = null;

/** The app's panel (main.tsx makes it at boot). */
export function setSidePanel(p: ViewerPanel | null): void {
  current = p;
}

/** Opens `path` in the side panel when there is one and the window is wide
 *  enough for it; `false` tells the caller to open the full-page viewer. */
export function openInSidePanel(path: string, line?: number): boolean {
  if (!current || windowWidth() <= NARROW) return false;
  current.open(path, line);
  return true;
}
