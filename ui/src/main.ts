// Boots the UI: a hash router over the pages, each fed by typed commands.
import { appInfo, detachViewer, errorMessage, hideWindow, listPending, listQuestions, listTools, onApprovalsChanged, onOpenFiles, onViewerReturned, openExternal, pickFile, takeLaunchFiles } from "./api";
import { el, hasUserInput } from "./dom";
import { mountChat } from "./pages/chat";
import { mountInbox } from "./pages/inbox";
import { disposeMcp, mountMcp } from "./pages/mcp";
import { mountRules } from "./pages/rules";
import { disposeTasks, mountTasks } from "./pages/tasks";
import { mountSettings } from "./pages/settings";
import { renderToolsPage } from "./pages/tools";
import { disposeViewer, mountViewer, type ViewerOptions } from "./pages/viewer";
import { guardLinks, installContextMenu } from "./links";
import { rememberFile } from "./viewer/recent";
import { setSidePanel, ViewerPanel } from "./viewer/panel";
import { isHideShortcut, isOpenShortcut } from "./shortcuts";
import { openFileHash } from "./pages/chat";

const page = document.getElementById("page") as HTMLElement;
// A viewer window of its own (a detached tab) shows just the viewer.
const detached = new URLSearchParams(location.hash.split("?")[1] ?? "").get("detached") === "1";
document.body.classList.toggle("detached", detached);

// The viewer beside the chat: files the chat opens land here as tabs.
if (!detached) {
  const panel = new ViewerPanel({
    mount: (root, tab, own) => mountViewer(root, tab.path, undefined, { line: tab.line, own }),
    detach: async (path) => void (await detachViewer(path, openFileHash(path))),
    fullPage: (path) => (location.hash = openFileHash(path)),
  });
  document.getElementById("app")?.append(panel.node);
  setSidePanel(panel);
  onViewerReturned((path) => panel.open(path));
}

async function showTools(): Promise<void> {
  page.replaceChildren(el("p", { class: "muted" }, "Loading tools…"));
  renderToolsPage(page, await listTools());
}

export function parseRoute(hash: string): { name: string; arg: string | null; view?: ViewerOptions } {
  const h = hash.replace(/^#\/?/, "");
  if (h.startsWith("view?")) {
    const q = new URLSearchParams(h.slice(5));
    const line = Number(q.get("line"));
    const view: ViewerOptions = {};
    if (line > 0) view.line = line;
    if (q.get("as") === "source") view.source = true;
    if (q.get("doc")) view.doc = q.get("doc") as string;
    if (q.get("input")) view.input = q.get("input") as string;
    return { name: "view", arg: q.get("path"), view };
  }
  const [name, ...rest] = h.split("/");
  return { name: name || "chat", arg: rest.length ? decodeURIComponent(rest.join("/")) : null };
}

async function route(): Promise<void> {
  const { name, arg, view } = parseRoute(location.hash);
  for (const a of Array.from(document.querySelectorAll<HTMLAnchorElement>(".nav-link"))) {
    a.classList.toggle("active", a.dataset.route === name);
  }
  disposeViewer();
  disposeTasks();
  disposeMcp();
  try {
    switch (name) {
      case "tools":
        return await showTools();
      case "inbox":
        return await mountInbox(page);
      case "tasks":
        return await mountTasks(page);
      case "permissions":
        return await mountRules(page, arg ?? "default");
      case "mcp":
        return mountMcp(page);
      case "settings":
        return await mountSettings(page);
      case "view":
        return await mountViewer(page, arg ?? "", undefined, { ...view, openDialog: () => void openWithDialog() });
      default:
        return await mountChat(page, arg);
    }
  } catch (e) {
    page.replaceChildren(el("p", { class: "error", role: "alert" }, `Something went wrong: ${errorMessage(e)}`));
  }
}

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
    page.replaceChildren(el("p", { class: "error", role: "alert" }, `Could not open the file dialog: ${errorMessage(e)}`));
  }
}

document.addEventListener("keydown", (e) => {
  if (isOpenShortcut(e)) {
    e.preventDefault();
    void openWithDialog();
    return;
  }
  if (!isHideShortcut(e)) return;
  e.preventDefault();
  hideWindow().catch(() => undefined);
});
onOpenFiles(openFiles);
takeLaunchFiles().then(openFiles, () => undefined);

guardLinks(document, openExternal);
installContextMenu(document, openExternal);

window.addEventListener("hashchange", () => void route());
void route();

appInfo()
  .then((info) => {
    const about = document.getElementById("about");
    if (about) about.textContent = `v${info.version} · schema ${info.schemaVersion}`;
  })
  .catch(() => undefined);

// The Inbox badge: how many calls and questions wait for the person, across sessions.
async function refreshBadge(): Promise<void> {
  const badge = document.getElementById("inbox-badge");
  if (!badge) return;
  try {
    const [calls, questions] = await Promise.all([listPending(), listQuestions()]);
    const n = calls.length + questions.length;
    badge.textContent = String(n);
    badge.hidden = n === 0;
  } catch {
    badge.hidden = true;
  }
}
void refreshBadge();
// The backend says when the waiting set changes (its own turns at once,
// other processes' within seconds); the slow poll is only a safety net.
onApprovalsChanged(() => {
  void refreshBadge();
  // The open Inbox follows too, unless the person is typing a note there.
  if (parseRoute(location.hash).name === "inbox" && !hasUserInput(page)) void route();
});
setInterval(() => void refreshBadge(), 15_000);
