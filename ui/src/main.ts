// Boots the UI: a hash router over the pages, each fed by typed commands.
import { appInfo, errorMessage, hideWindow, listPending, listQuestions, listTools, onApprovalsChanged, openExternal } from "./api";
import { el, hasUserInput } from "./dom";
import { mountChat } from "./pages/chat";
import { mountInbox } from "./pages/inbox";
import { mountRules } from "./pages/rules";
import { disposeTasks, mountTasks } from "./pages/tasks";
import { mountSettings } from "./pages/settings";
import { renderToolsPage } from "./pages/tools";
import { disposeViewer, mountViewer } from "./pages/viewer";
import { guardLinks, installContextMenu } from "./links";
import { isHideShortcut } from "./shortcuts";

const page = document.getElementById("page") as HTMLElement;

async function showTools(): Promise<void> {
  page.replaceChildren(el("p", { class: "muted" }, "Loading tools…"));
  renderToolsPage(page, await listTools());
}

export function parseRoute(hash: string): { name: string; arg: string | null } {
  const h = hash.replace(/^#\/?/, "");
  if (h.startsWith("view?")) {
    return { name: "view", arg: new URLSearchParams(h.slice(5)).get("path") };
  }
  const [name, ...rest] = h.split("/");
  return { name: name || "chat", arg: rest.length ? decodeURIComponent(rest.join("/")) : null };
}

async function route(): Promise<void> {
  const { name, arg } = parseRoute(location.hash);
  for (const a of Array.from(document.querySelectorAll<HTMLAnchorElement>(".nav-link"))) {
    a.classList.toggle("active", a.dataset.route === name);
  }
  disposeViewer();
  disposeTasks();
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
      case "settings":
        return await mountSettings(page);
      case "view":
        return await mountViewer(page, arg ?? "");
      default:
        return await mountChat(page, arg);
    }
  } catch (e) {
    page.replaceChildren(el("p", { class: "error", role: "alert" }, `Something went wrong: ${errorMessage(e)}`));
  }
}

document.addEventListener("keydown", (e) => {
  if (!isHideShortcut(e)) return;
  e.preventDefault();
  hideWindow().catch(() => undefined);
});

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
