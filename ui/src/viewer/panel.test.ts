// @vitest-environment jsdom
import { describe, expect, it, vi } from "vitest";
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
