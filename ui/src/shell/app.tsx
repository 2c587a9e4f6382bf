// The window's frame: the navigation (collapsible; a top bar in narrow
// windows), the page the hash names, the shortcut overlay. Pages mount into
// #page through the route table in routes.tsx.
import { createSignal, For, type JSX, onCleanup, onMount, Show } from "solid-js";
import { errorMessage } from "../api";
import { ShortcutHelp } from "./help";
import { Welcome } from "../pages/welcome";
import { NAV, PAGES, type Cleanup, type PageContext, parseRoute, type Route } from "./routes";

function stored(key: string): boolean {
  try {
    return localStorage.getItem(key) === "1";
  } catch {
    return false;
  }
}

function store(key: string, on: boolean): void {
  try {
    localStorage.setItem(key, on ? "1" : "0");
  } catch {
    // Private mode: the choice lasts this session only.
  }
}

export interface AppProps {
  ctx: PageContext;
  /** Called with the element pages mount into, once it exists. */
  onPage?: (page: HTMLElement) => void;
  about: () => string;
  badge: () => number;
  help: () => boolean;
  setHelp: (on: boolean) => void;
  /** Whether to greet a first launch (nothing to chat with) above the chat. */
  greet: () => boolean;
  setGreet: (on: boolean) => void;
}

export function App(props: AppProps): JSX.Element {
  const [route, setRoute] = createSignal<Route>(parseRoute(location.hash));
  const [navCollapsed, setNavCollapsed] = createSignal(stored("skald.nav.collapsed"));
  const [chatsCollapsed, setChatsCollapsed] = createSignal(stored("skald.chats.collapsed"));
  let page!: HTMLDivElement;
  let cleanup: Cleanup | null = null;
  let generation = 0;

  const show = async (r: Route) => {
    const mine = ++generation;
    const previous = cleanup;
    cleanup = null;
    previous?.();
    const mount = PAGES[r.name] ?? PAGES.chat;
    // Each mount gets a host of its own: a page whose async mount finishes
    // after a later navigation (a chat still reading its sessions when the
    // person or a test moved on) renders into its detached host, never over
    // the newer page (it emptied the shared container: the installed-app
    // E2E lost the Settings form and a sent message that way).
    const host = document.createElement("div");
    host.className = "page-mount";
    page.replaceChildren(host);
    try {
      const done = await mount(host, r, props.ctx);
      // A later navigation won: this page's cleanup runs at once.
      if (mine !== generation) done?.();
      else cleanup = done ?? null;
    } catch (e) {
      if (mine !== generation) return;
      const p = document.createElement("p");
      p.className = "error";
      p.setAttribute("role", "alert");
      p.textContent = `Something went wrong: ${errorMessage(e)}`;
      host.replaceChildren(p);
    }
  };

  const onHash = () => {
    const r = parseRoute(location.hash);
    setRoute(r);
    void show(r);
  };
  onMount(() => {
    props.onPage?.(page);
    window.addEventListener("hashchange", onHash);
    void show(route());
  });
  onCleanup(() => {
    window.removeEventListener("hashchange", onHash);
    cleanup?.();
  });

  const toggleNav = () => {
    setNavCollapsed(!navCollapsed());
    store("skald.nav.collapsed", navCollapsed());
  };
  const toggleChats = () => {
    setChatsCollapsed(!chatsCollapsed());
    store("skald.chats.collapsed", chatsCollapsed());
  };
  // The chat list lives in the chat page; the frame only says whether it shows.
  const bodyClass = () => document.body.classList.toggle("chats-collapsed", chatsCollapsed());
  onMount(bodyClass);

  return (
    <>
      <nav class="sidebar" classList={{ collapsed: navCollapsed() }} data-testid="nav">
        <div class="nav-top">
          <button
            type="button"
            class="nav-toggle"
            data-testid="nav-toggle"
            aria-expanded={!navCollapsed()}
            aria-label={navCollapsed() ? "Show the navigation labels" : "Collapse the navigation"}
            title={navCollapsed() ? "Expand" : "Collapse"}
            onClick={toggleNav}
          >
            {navCollapsed() ? "»" : "«"}
          </button>
          <div class="brand">Skald</div>
        </div>
        <For each={NAV}>
          {(n) => (
            <a href={`#/${n.route}`} data-route={n.route} class="nav-link" classList={{ active: route().name === n.route }} title={n.label}>
              <span class="nav-icon" aria-hidden="true">
                {n.icon}
              </span>
              <span class="nav-label">{n.label}</span>
              <Show when={n.route === "inbox"}>
                <span class="nav-badge" id="inbox-badge" data-testid="inbox-badge" hidden={props.badge() === 0}>
                  {String(props.badge())}
                </span>
              </Show>
            </a>
          )}
        </For>
        <Show when={route().name === "chat"}>
          <button
            type="button"
            class="nav-link chats-toggle"
            data-testid="chat-list-toggle"
            aria-pressed={chatsCollapsed()}
            title={chatsCollapsed() ? "Show the chat list" : "Hide the chat list"}
            onClick={() => {
              toggleChats();
              bodyClass();
            }}
          >
            <span class="nav-icon" aria-hidden="true">
              ☰
            </span>
            <span class="nav-label">{chatsCollapsed() ? "Show chats" : "Hide chats"}</span>
          </button>
        </Show>
        <button type="button" class="nav-link help-link" data-testid="open-shortcuts" title="Keyboard shortcuts (?)" onClick={() => props.setHelp(true)}>
          <span class="nav-icon" aria-hidden="true">
            ⌨
          </span>
          <span class="nav-label">Shortcuts</span>
        </button>
        <div class="about" id="about">
          {props.about()}
        </div>
      </nav>
      {/* data-page: the chat is a fixed-height column (layout.css); other pages scroll. */}
      <main id="page" aria-live="polite" data-page={PAGES[route().name] ? route().name : "chat"}>
        <Show when={props.greet() && route().name === "chat"}>
          <Welcome
            dismiss={() => {
              store("skald.welcome.dismissed", true);
              props.setGreet(false);
            }}
          />
        </Show>
        {/* Pages mount here; the welcome above survives their replaceChildren. */}
        <div class="page-host" ref={page} />
      </main>
      <Show when={props.help()}>
        <ShortcutHelp close={() => props.setHelp(false)} />
      </Show>
    </>
  );
}
