// Boots the UI: the frame (navigation, routed pages, shortcut overlay), the
// side panel, the app-wide keyboard shortcuts and the live Inbox badge.
import { createSignal } from "solid-js";
import { render } from "solid-js/web";
import {
  appInfo,
  detachViewer,
  errorMessage,
  hideWindow,
  listPending,
  listQuestions,
  onApprovalsChanged,
  onOpenFiles,
  onViewerReturned,
  openExternal,
  pickFile,
  searchSessions,
  takeLaunchFiles,
} from "./api";
import { guardLinks, installContextMenu } from "./links";
import { openFileHash } from "./pages/chat";
import { mountViewer } from "./pages/viewer";
import { needsWelcome } from "./pages/welcome";
import { App } from "./shell/app";
import { parseRoute } from "./shell/routes";
import { INBOX_REFRESH } from "./pages/inbox";
import {
  chatCycleShortcut,
  chatNumberShortcut,
  isFocusComposerShortcut,
  isHelpShortcut,
  isHideShortcut,
  isNewChatShortcut,
  isOpenShortcut,
  isTyping,
} from "./shortcuts";
import { rememberFile } from "./viewer/recent";
import { setSidePanel, ViewerPanel } from "./viewer/panel";

export { parseRoute };

const root = document.getElementById("app") as HTMLElement;
// A viewer window of its own (a detached tab) shows just the viewer.
const detached = new URLSearchParams(location.hash.split("?")[1] ?? "").get("detached") === "1";
document.body.classList.toggle("detached", detached);

const [about, setAbout] = createSignal("");
const [badge, setBadge] = createSignal(0);
const [help, setHelp] = createSignal(false);
const [greet, setGreet] = createSignal(false);
let page: HTMLElement | null = null;

/** Opens files that came from outside the window (the first one shows;
 *  all of them join the recent list the viewer's start page offers). */
function openFiles(paths: string[]): void {
  for (const p of paths.slice(1).reverse()) rememberFile(p);
  if (paths.length) location.hash = openFileHash(paths[0]);
}

async function openWithDialog(): Promise<void> {
  try {
    const path = await pickFile();
    if (path) openFiles([path]);
  } catch (e) {
    const p = document.createElement("p");
    p.className = "error";
    p.setAttribute("role", "alert");
    p.textContent = `Could not open the file dialog: ${errorMessage(e)}`;
    page?.replaceChildren(p);
  }
}

render(
  () => (
    <App
      ctx={{ openDialog: () => void openWithDialog() }}
      onPage={(p) => (page = p)}
      about={about}
      badge={badge}
      help={help}
      setHelp={setHelp}
      greet={greet}
      setGreet={setGreet}
    />
  ),
  root,
);

// The viewer beside the chat: files the chat opens land here as tabs.
if (!detached) {
  const panel = new ViewerPanel({
    mount: (r, tab, own) => mountViewer(r, tab.path, undefined, { line: tab.line, own }),
    detach: async (path) => void (await detachViewer(path, openFileHash(path))),
    fullPage: (path) => (location.hash = openFileHash(path)),
  });
  root.append(panel.node);
  setSidePanel(panel);
  onViewerReturned((path) => panel.open(path));
}

/** Resolves to the element once `selector` matches (or null after `ms`). */
function whenShown<T extends Element>(selector: string, ms = 3000): Promise<T | null> {
  return new Promise((resolve) => {
    const start = performance.now();
    const look = () => {
      const found = document.querySelector<T>(selector);
      if (found || performance.now() - start > ms) return resolve(found);
      requestAnimationFrame(look);
    };
    look();
  });
}

async function newChat(): Promise<void> {
  if (parseRoute(location.hash).name !== "chat") location.hash = "#/chat";
  (await whenShown<HTMLButtonElement>("[data-testid=new-chat]"))?.click();
}

/** Goes to chat `n` (1-based) of the list's order, or `step` chats on from the open one. */
async function switchChat(pick: { n: number } | { step: 1 | -1 }): Promise<void> {
  const chats = (await searchSessions("")).map((h) => h.session.id);
  if (chats.length === 0) return;
  let i: number;
  if ("n" in pick) {
    i = pick.n - 1;
    if (i >= chats.length) return;
  } else {
    const r = parseRoute(location.hash);
    const at = r.name === "chat" && r.arg ? chats.indexOf(r.arg) : -1;
    i = at < 0 ? 0 : (at + pick.step + chats.length) % chats.length;
  }
  location.hash = `#/chat/${chats[i]}`;
}

document.addEventListener("keydown", (e) => {
  const typing = isTyping(e.target);
  if (isHelpShortcut(e, typing)) {
    e.preventDefault();
    setHelp(!help());
    return;
  }
  if (help() && e.key === "Escape") {
    e.preventDefault();
    setHelp(false);
    return;
  }
  if (isOpenShortcut(e)) {
    e.preventDefault();
    void openWithDialog();
    return;
  }
  if (isHideShortcut(e)) {
    e.preventDefault();
    hideWindow().catch(() => undefined);
    return;
  }
  if (detached) return;
  if (isNewChatShortcut(e)) {
    e.preventDefault();
    void newChat();
    return;
  }
  if (isFocusComposerShortcut(e)) {
    e.preventDefault();
    const composer = document.querySelector<HTMLTextAreaElement>("[data-testid=composer]");
    if (composer) composer.focus();
    else void whenShown<HTMLTextAreaElement>("[data-testid=composer]").then((c) => c?.focus(), () => undefined);
    if (!composer) location.hash = "#/chat";
    return;
  }
  const n = chatNumberShortcut(e);
  if (n !== null) {
    e.preventDefault();
    void switchChat({ n }).catch(() => undefined);
    return;
  }
  const step = chatCycleShortcut(e);
  if (step !== null) {
    e.preventDefault();
    void switchChat({ step }).catch(() => undefined);
  }
});
onOpenFiles(openFiles);
takeLaunchFiles().then(openFiles, () => undefined);

guardLinks(document, openExternal);
installContextMenu(document, openExternal);

// The first launch, with nothing to chat with: a welcome above the chat
// until a provider exists or the person says "Not now". Checked again when
// the chat is shown (a provider may have been added meanwhile).
function dismissed(): boolean {
  try {
    return localStorage.getItem("skald.welcome.dismissed") === "1";
  } catch {
    return false;
  }
}
function checkWelcome(): void {
  if (detached || dismissed()) return void setGreet(false);
  needsWelcome().then(setGreet, () => setGreet(false));
}
checkWelcome();
window.addEventListener("hashchange", () => {
  if (greet() && parseRoute(location.hash).name === "chat") checkWelcome();
});

appInfo()
  .then((info) => setAbout(`v${info.version} · schema ${info.schemaVersion}`))
  .catch(() => undefined);

// The Inbox badge: how many calls and questions wait for the person, across sessions.
async function refreshBadge(): Promise<void> {
  try {
    const [calls, questions] = await Promise.all([listPending(), listQuestions()]);
    setBadge(calls.length + questions.length);
  } catch {
    setBadge(0);
  }
}
void refreshBadge();
// The backend says when the waiting set changes (its own turns at once,
// other processes' within seconds); the slow poll is only a safety net.
onApprovalsChanged(() => {
  void refreshBadge();
  // The open Inbox refreshes in place: unchanged cards (and what is typed
  // into them) stay; a re-mount would replace them under the person's hand.
  window.dispatchEvent(new Event(INBOX_REFRESH));
});
setInterval(() => void refreshBadge(), 15_000);
