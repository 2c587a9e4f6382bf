// @vitest-environment jsdom
// (jsdom has no PointerEvent: MouseEvents of the pointer types stand in.)
import { describe, expect, it, vi } from "vitest";
import { mountViewer, type ViewerApi } from "../pages/viewer";
import { openInSidePanel, type PanelTab, setSidePanel, ViewerPanel } from "./panel";

const flush = () => new Promise((r) => setTimeout(r, 0));

function panel() {
  const disposed: string[] = [];
  const mounted: PanelTab[] = [];
  const store = new Map<string, string>();
  const deps = {
    mount: vi.fn(async (root: HTMLElement, tab: PanelTab, own: (d: () => void) => void) => {
      mounted.push({ ...tab });
      root.textContent = `view of ${tab.path}`;
      own(() => disposed.push(tab.path));
    }),
    detach: vi.fn(async () => undefined),
    fullPage: vi.fn(),
    storage: { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) },
  };
  const p = new ViewerPanel(deps);
  document.body.append(p.node);
  return { p, deps, disposed, mounted, store };
}

const tabs = (p: ViewerPanel) => Array.from(p.node.querySelectorAll<HTMLElement>("[data-testid=side-tab]"));

describe("the side panel", () => {
  it("opens files as tabs, one view at a time, each ended when it leaves", async () => {
    const { p, disposed, mounted } = panel();
    expect(p.node.hidden).toBe(true);
    p.open("/w/a.md");
    p.open("/w/b.rs", 40);
    await flush();
    expect(p.node.hidden).toBe(false);
    expect(p.paths()).toEqual(["/w/a.md", "/w/b.rs"]);
    expect(mounted.map((t) => t.path)).toEqual(["/w/a.md", "/w/b.rs"]);
    expect(mounted[1].line).toBe(40);
    expect(disposed).toEqual(["/w/a.md"]);
    expect(p.node.querySelector("[data-testid=side-body]")?.textContent).toBe("view of /w/b.rs");
    // Clicking the first tab shows it again; opening an open file reuses its tab.
    tabs(p)[0].click();
    await flush();
    expect(p.node.querySelector("[data-testid=side-body]")?.textContent).toBe("view of /w/a.md");
    p.open("/w/b.rs", 7);
    await flush();
    expect(p.paths()).toHaveLength(2);
    expect(mounted.at(-1)).toEqual({ path: "/w/b.rs", line: 7 });
    // Closing the active tab shows its neighbour; closing the last hides the panel.
    (tabs(p)[1].querySelector("[data-testid=side-tab-close]") as HTMLButtonElement).click();
    await flush();
    expect(p.paths()).toEqual(["/w/a.md"]);
    expect(p.node.querySelector("[data-testid=side-body]")?.textContent).toBe("view of /w/a.md");
    (tabs(p)[0].querySelector("[data-testid=side-tab-close]") as HTMLButtonElement).click();
    await flush();
    expect(p.node.hidden).toBe(true);
    expect(disposed.at(-1)).toBe("/w/a.md");
    p.node.remove();
  });

  it("detaches a tab into a window and takes it back when that window closes", async () => {
    const { p, deps } = panel();
    p.open("/w/a.md");
    p.open("/w/b.pdf");
    await flush();
    (tabs(p)[1].querySelector("[data-testid=side-tab-detach]") as HTMLButtonElement).click();
    await flush();
    expect(deps.detach).toHaveBeenCalledWith("/w/b.pdf");
    expect(p.paths()).toEqual(["/w/a.md"]);
    p.open("/w/b.pdf"); // what main.ts does on viewer-returned
    expect(p.paths()).toEqual(["/w/a.md", "/w/b.pdf"]);
    p.node.remove();
  });

  it("keeps its width within bounds and remembers it", () => {
    const { p, store } = panel();
    p.setWidth(100);
    expect(p.width()).toBe(280);
    p.setWidth(400);
    expect(p.width()).toBe(400);
    expect(store.get("skald.sidePanelWidth")).toBe("400");
    // Never so wide that the chat loses its 420 px (plus the navigation).
    p.setWidth(5000);
    expect(p.width()).toBe(window.innerWidth - 600);
    p.node.remove();
  });

  it("is where the chat opens files when registered and the window is wide", () => {
    expect(openInSidePanel("/w/x.md")).toBe(false);
    const { p } = panel();
    setSidePanel(p);
    expect(openInSidePanel("/w/x.md", 3)).toBe(true);
    expect(p.paths()).toEqual(["/w/x.md"]);
    setSidePanel(null);
    p.node.remove();
  });
});

describe("the side panel's width", () => {
  it("follows a drag of its edge and the arrow keys, and a new panel starts at the remembered width", () => {
    const { p, store } = panel();
    p.setWidth(400);
    const edge = p.node.querySelector("[data-testid=side-resizer]") as HTMLElement;
    expect(edge.getAttribute("role")).toBe("separator");
    expect(edge.tabIndex).toBe(0);
    // Dragged 60 px right: the panel (on the right) narrows by 60.
    edge.dispatchEvent(new MouseEvent("pointerdown", { clientX: 700, button: 0, bubbles: true }));
    expect(p.node.classList.contains("resizing")).toBe(true);
    window.dispatchEvent(new MouseEvent("pointermove", { clientX: 760 }));
    window.dispatchEvent(new MouseEvent("pointerup", { clientX: 760 }));
    expect(p.width()).toBe(340);
    expect(p.node.style.width).toBe("340px");
    expect(p.node.classList.contains("resizing")).toBe(false);
    // After the drag ended, moves do nothing.
    window.dispatchEvent(new MouseEvent("pointermove", { clientX: 100 }));
    expect(p.width()).toBe(340);
    const key = (k: string, shiftKey = false) => edge.dispatchEvent(new KeyboardEvent("keydown", { key: k, shiftKey, bubbles: true }));
    key("ArrowLeft");
    expect(p.width()).toBe(356);
    key("ArrowRight", true);
    expect(p.width()).toBe(292);
    expect(edge.getAttribute("aria-valuenow")).toBe("292");
    key("End");
    expect(p.width()).toBe(280);
    key("Home");
    expect(p.width()).toBe(window.innerWidth - 600);
    key("ArrowLeft");
    expect(p.width()).toBe(window.innerWidth - 600);
    key("ArrowRight");
    expect(store.get("skald.sidePanelWidth")).toBe(String(window.innerWidth - 616));
    p.node.remove();
    p.dispose();

    const again = new ViewerPanel({ mount: vi.fn(), detach: vi.fn(), fullPage: vi.fn(), storage: { getItem: (k) => store.get(k) ?? null, setItem: () => undefined } });
    expect(again.width()).toBe(window.innerWidth - 616);
    again.dispose();
  });

  it("gives way when the window narrows and takes its chosen width back when it widens", () => {
    const { p } = panel();
    const inner = window.innerWidth;
    try {
      Object.defineProperty(window, "innerWidth", { value: 1400, configurable: true });
      window.dispatchEvent(new Event("resize"));
      p.setWidth(600);
      Object.defineProperty(window, "innerWidth", { value: 1000, configurable: true });
      window.dispatchEvent(new Event("resize"));
      expect(p.width()).toBe(400);
      Object.defineProperty(window, "innerWidth", { value: 800, configurable: true });
      window.dispatchEvent(new Event("resize"));
      // Under the narrow mark the chat opens files full page instead.
      setSidePanel(p);
      expect(openInSidePanel("/w/x.md")).toBe(false);
      Object.defineProperty(window, "innerWidth", { value: 1400, configurable: true });
      window.dispatchEvent(new Event("resize"));
      expect(p.width()).toBe(600);
    } finally {
      Object.defineProperty(window, "innerWidth", { value: inner, configurable: true });
      setSidePanel(null);
      p.node.remove();
      p.dispose();
    }
  });
});

describe("the side panel with real viewers", () => {
  it("switching files ends each view's watch and event listener: none leak", async () => {
    URL.createObjectURL = vi.fn(() => "blob:test");
    URL.revokeObjectURL = vi.fn();
    const listening = new Set<number>();
    const watching = new Set<number>();
    let next = 0;
    const enc = (s: string) => new TextEncoder().encode(s).buffer as ArrayBuffer;
    const api = {
      viewerOpen: vi.fn(async (p: string) => ({ path: p, kind: p.endsWith(".md") ? { kind: "markdown" } : { kind: "code", language: "rust" }, size: 3 })),
      viewFile: vi.fn(async () => "# hi\n"),
      viewerBytes: vi.fn(async () => enc("fn a() {}\n")),
      viewerOutline: vi.fn(async () => []),
      viewerWatch: vi.fn(async (_: string[], w?: number) => {
        const id = w ?? ++next;
        watching.add(id);
        return id;
      }),
      viewerUnwatch: vi.fn(async (w: number) => void watching.delete(w)),
      onViewerChanged: vi.fn(async () => {
        const id = ++next;
        listening.add(id);
        return () => void listening.delete(id);
      }),
    } as unknown as ViewerApi;
    const p = new ViewerPanel({
      mount: (r, tab, own) => mountViewer(r, tab.path, { api }, { line: tab.line, own }),
      detach: vi.fn(),
      fullPage: vi.fn(),
      storage: { getItem: () => null, setItem: () => undefined },
    });
    document.body.append(p.node);
    const settle = async () => {
      for (let i = 0; i < 10; i++) await flush();
    };
    p.open("/w/a.md");
    p.open("/w/b.rs");
    await settle();
    for (let k = 0; k < 5; k++) {
      tabs(p)[k % 2].click();
      await settle();
      expect(listening.size).toBe(1);
      expect(watching.size).toBe(1);
    }
    // Switching before a view finished loading leaks nothing either.
    tabs(p)[0].click();
    tabs(p)[1].click();
    await settle();
    expect(listening.size).toBe(1);
    expect(watching.size).toBe(1);
    expect(p.node.querySelector("[data-testid=viewer-code]")).not.toBeNull();
    for (const b of Array.from(p.node.querySelectorAll<HTMLButtonElement>("[data-testid=side-tab-close]"))) b.click();
    await settle();
    expect(listening.size).toBe(0);
    expect(watching.size).toBe(0);
    expect(p.node.hidden).toBe(true);
    p.node.remove();
    p.dispose();
  });
});
