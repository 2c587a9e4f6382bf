// @vitest-environment jsdom
// The side panel's pinned tabs (the chat's todos, scratchpad and tasks), the
// chat header's toggle with its tab count, and the overlay of a narrow window.
import { render } from "solid-js/web";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HIDDEN_KEY, PanelToggle, type PanelTab, PINNED_OPEN_KEY, type PinnedTab, setSidePanel, TAB_KEY, ViewerPanel, WIDTH_KEY } from "./panel";
import { sessionTabs } from "../chat/session_tabs";
import type { TaskView } from "../bindings";

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};
const inner = window.innerWidth;
const setWindowWidth = (w: number) => {
  Object.defineProperty(window, "innerWidth", { value: w, configurable: true });
  window.dispatchEvent(new Event("resize"));
};

function panel(store = new Map<string, string>()) {
  const deps = {
    mount: vi.fn(async (root: HTMLElement, tab: PanelTab, own: (d: () => void) => void) => {
      root.textContent = `view of ${tab.path}`;
      own(() => undefined);
    }),
    detach: vi.fn(async () => undefined),
    fullPage: vi.fn(),
    storage: { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) },
  };
  const p = new ViewerPanel(deps);
  document.body.append(p.node);
  return { p, store };
}

function pins(): PinnedTab[] {
  const todos = document.createElement("div");
  todos.textContent = "the todos";
  const scratch = document.createElement("div");
  scratch.textContent = "the scratchpad";
  return [
    { id: "todos", label: "Todos", render: () => todos },
    { id: "scratchpad", label: "Scratchpad", render: () => scratch },
  ];
}

const body = (p: ViewerPanel) => Array.from(p.node.querySelectorAll<HTMLElement>("[data-testid=side-body] > .side-view:not([hidden])")).map((n) => n.textContent);
const pinTabs = (p: ViewerPanel) => Array.from(p.node.querySelectorAll<HTMLElement>("[data-testid=side-pin-tab]"));

afterEach(() => {
  setWindowWidth(inner);
  setSidePanel(null);
  document.body.replaceChildren();
});

describe("the side panel's pinned tabs", () => {
  it("shows a page's tabs beside the files, one view at a time, and remembers the chosen tab", async () => {
    const { p, store } = panel();
    expect(p.node.hidden).toBe(true);
    const release = p.setPinned(pins());
    await flush();
    // A chat's tabs alone leave the panel closed (an empty todo list must
    // not take a third of the chat) until the person opens it.
    expect(p.node.hidden).toBe(true);
    p.toggle();
    expect(p.node.hidden).toBe(false);
    expect(store.get(PINNED_OPEN_KEY)).toBe("1");
    expect(pinTabs(p).map((t) => t.textContent)).toEqual(["Todos", "Scratchpad"]);
    expect(body(p)).toEqual(["the todos"]);
    pinTabs(p)[1].click();
    expect(body(p)).toEqual(["the scratchpad"]);
    expect(store.get(TAB_KEY)).toBe("scratchpad");
    // A file opens as a tab of its own and shows; the pinned tab comes back without remounting it.
    p.open("/w/a.md");
    await flush();
    expect(body(p)).toEqual(["view of /w/a.md"]);
    pinTabs(p)[0].click();
    expect(body(p)).toEqual(["the todos"]);
    expect(p.tabCount()).toBe(3);
    // The page leaves: its tabs go, the file stays.
    release();
    await flush();
    expect(pinTabs(p)).toHaveLength(0);
    expect(body(p)).toEqual(["view of /w/a.md"]);
    // The next chat opens on the tab chosen last.
    p.close(0);
    p.setPinned(pins());
    expect(p.activeTab()).toBe("pin:todos");
    store.set(TAB_KEY, "scratchpad");
    const again = panel(store).p;
    again.setPinned(pins());
    expect(body(again)).toEqual(["the scratchpad"]);
    p.dispose();
    again.dispose();
  });

  it("a page's late release never unpins the tabs a newer page pinned", () => {
    const { p } = panel();
    const older = p.setPinned(pins());
    p.setPinned([{ id: "todos", label: "Todos of chat 2", render: () => "two" }]);
    older();
    expect(pinTabs(p).map((t) => t.textContent)).toEqual(["Todos of chat 2"]);
    p.dispose();
  });

  it("hidden by the person stays hidden after a reload, and the width chosen is kept", () => {
    const store = new Map<string, string>();
    const { p } = panel(store);
    p.setPinned(pins());
    p.toggle();
    p.setWidth(420);
    (p.node.querySelector("[data-testid=side-hide]") as HTMLButtonElement).click();
    expect(p.node.hidden).toBe(true);
    expect(store.get(HIDDEN_KEY)).toBe("1");
    expect(store.get(WIDTH_KEY)).toBe("420");
    p.dispose();
    const again = panel(store).p;
    again.setPinned(pins());
    expect(again.node.hidden).toBe(true);
    expect(again.width()).toBe(420);
    // Opening a file shows it again.
    again.open("/w/a.md");
    expect(again.node.hidden).toBe(false);
    again.dispose();
  });
});

describe("when the panel opens by itself", () => {
  it("a chat's tabs alone do not open it, a file does; the person's choice for the chat's tabs is remembered", () => {
    const store = new Map<string, string>();
    const { p } = panel(store);
    p.setPinned(pins());
    expect(p.isOpen()).toBe(false);
    expect(p.tabCount()).toBe(2);
    p.open("/w/a.md");
    expect(p.isOpen()).toBe(true);
    p.close(0);
    expect(p.isOpen()).toBe(false);
    p.toggle();
    expect(p.isOpen()).toBe(true);
    p.dispose();
    const again = panel(store).p;
    again.setPinned(pins());
    expect(again.isOpen()).toBe(true);
    again.toggle();
    expect(again.isOpen()).toBe(false);
    again.dispose();
    const third = panel(store).p;
    third.setPinned(pins());
    expect(third.isOpen()).toBe(false);
    third.dispose();
  });
});

describe("new todos", () => {
  it("open the panel on the Todos tab until the chat leaves, unless the person hid it", () => {
    const store = new Map<string, string>();
    const { p } = panel(store);
    const release = p.setPinned(pins());
    p.showTab("scratchpad");
    expect(p.isOpen()).toBe(false);
    p.reveal("todos");
    expect(p.isOpen()).toBe(true);
    expect(p.activeTab()).toBe("pin:todos");
    release();
    p.setPinned(pins());
    expect(p.isOpen()).toBe(false);
    // Hidden by the person: new todos do not bring it back.
    p.toggle();
    p.toggle();
    expect(store.get(HIDDEN_KEY)).toBe("1");
    p.reveal("todos");
    expect(p.isOpen()).toBe(false);
    p.dispose();
  });
});

describe("the chat header's panel toggle", () => {
  it("says how many tabs are open and shows or hides the panel beside the chat", async () => {
    const { p } = panel();
    setSidePanel(p);
    const host = document.createElement("div");
    document.body.append(host);
    const dispose = render(() => <PanelToggle />, host);
    // No tabs, no button.
    expect(host.querySelector("[data-testid=side-panel-toggle]")).toBeNull();
    p.setPinned(pins());
    p.open("/w/a.md");
    const toggle = () => host.querySelector("[data-testid=side-panel-toggle]") as HTMLButtonElement;
    expect(toggle().querySelector("[data-testid=side-panel-count]")?.textContent).toBe("3");
    expect(toggle().getAttribute("aria-expanded")).toBe("true");
    toggle().click();
    expect(p.node.hidden).toBe(true);
    expect(toggle().getAttribute("aria-expanded")).toBe("false");
    toggle().click();
    expect(p.node.hidden).toBe(false);
    dispose();
    p.dispose();
  });

  it("in a narrow window opens the hidden panel as an overlay over the chat and closes it", async () => {
    setWindowWidth(700);
    const { p } = panel();
    setSidePanel(p);
    const host = document.createElement("div");
    document.body.append(host);
    const dispose = render(() => <PanelToggle />, host);
    p.setPinned(pins());
    const toggle = host.querySelector("[data-testid=side-panel-toggle]") as HTMLButtonElement;
    // Under the narrow mark the panel is hidden until asked for.
    expect(p.node.hidden).toBe(true);
    expect(toggle.textContent).toContain("2");
    toggle.click();
    expect(p.node.hidden).toBe(false);
    expect(p.node.classList.contains("side-overlay")).toBe(true);
    // Over the chat, leaving a strip of it: never wider than the window less 96 px.
    expect(Number.parseInt(p.node.style.width)).toBeLessThanOrEqual(700 - 96);
    // The panel's own close button closes the overlay.
    (p.node.querySelector("[data-testid=side-hide]") as HTMLButtonElement).click();
    expect(p.node.hidden).toBe(true);
    toggle.click();
    expect(p.node.hidden).toBe(false);
    toggle.click();
    expect(p.node.hidden).toBe(true);
    // A press on the chat beside it closes it too; one inside it does not.
    toggle.click();
    p.node.querySelector("[data-testid=side-body]")!.dispatchEvent(new MouseEvent("pointerdown", { bubbles: true }));
    expect(p.node.hidden).toBe(false);
    host.dispatchEvent(new MouseEvent("pointerdown", { bubbles: true }));
    expect(p.node.hidden).toBe(true);
    // Widened again with the overlay open: the panel is back beside the chat, not over it.
    toggle.click();
    setWindowWidth(1400);
    expect(p.node.classList.contains("side-overlay")).toBe(false);
    expect(p.node.hidden).toBe(false);
    dispose();
    p.dispose();
  });
});

describe("the chat's tabs", () => {
  it("lists the tasks that report to this chat, live, with the Tasks page's rows", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const task = (id: number, parent: string | null, state: string): TaskView =>
        ({ id, kind: "async", title: `task ${id}`, description: null, agentId: "main", prompt: "", state, enabled: true, cron: null, cronWords: null, timeZone: null, nextRunAt: null, parentSessionId: parent, lastRun: null }) as unknown as TaskView;
      let states = [task(1, "s1", "running"), task(2, "other", "running")];
      const api = { listTasks: vi.fn(async () => states), stopTask: vi.fn(), runTaskNow: vi.fn(), setTaskEnabled: vi.fn(), deleteTask: vi.fn(), errorMessage: String };
      const { p } = panel();
      const companion = { todos: document.createElement("div"), scratch: document.createElement("div") };
      p.setPinned(sessionTabs("s1", companion, api));
      expect(api.listTasks).not.toHaveBeenCalled();
      p.showTab("tasks");
      await vi.advanceTimersByTimeAsync(10);
      const rows = () => Array.from(p.node.querySelectorAll<HTMLElement>("[data-testid=session-tasks] [data-testid=task-item]")).map((r) => [r.dataset.task, r.dataset.state]);
      expect(rows()).toEqual([["1", "running"]]);
      // Its status follows the backend while the tab shows.
      states = [task(1, "s1", "done"), task(2, "other", "running")];
      await vi.advanceTimersByTimeAsync(1100);
      expect(rows()).toEqual([["1", "done"]]);
      // Another tab: the list stops asking.
      p.showTab("todos");
      const asked = api.listTasks.mock.calls.length;
      await vi.advanceTimersByTimeAsync(3000);
      expect(api.listTasks.mock.calls.length).toBe(asked);
      p.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});
