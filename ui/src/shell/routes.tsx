// The pages the router shows, and the navigation's links. A page is one
// line here: a mount function (vanilla pages: fill `root`, optionally
// return a cleanup) or a SolidJS component through `solidPage`.
import type { Component, JSX } from "solid-js";
import { listTools } from "../api";
import { mountChat } from "../pages/chat";
import { mountInbox } from "../pages/inbox";
import { McpScreen } from "../pages/mcp";
import { mountRules } from "../pages/rules";
import { mountSettings } from "../pages/settings";
import { disposeTasks, mountTasks } from "../pages/tasks";
import { renderToolsPage } from "../pages/tools";
import { disposeViewer, mountViewer, type ViewerOptions } from "../pages/viewer";
import { Welcome } from "../pages/welcome";
import { mountSolid } from "../solid";

export interface Route {
  name: string;
  arg: string | null;
  view?: ViewerOptions;
}

export type Cleanup = () => void;
export type PageMount = (root: HTMLElement, route: Route, ctx: PageContext) => void | Cleanup | Promise<void | Cleanup>;

export interface PageContext {
  /** Opens the native file dialog and shows the picked file. */
  openDialog: () => void;
}

/** A SolidJS page component, mounted and disposed by the router. */
export function solidPage(Page: Component<{ route: Route }>): PageMount {
  return (root, route) => mountSolid(root, (): JSX.Element => <Page route={route} />);
}

export const PAGES: Record<string, PageMount> = {
  chat: (root, r) => mountChat(root, r.arg),
  inbox: (root) => mountInbox(root),
  tasks: async (root) => {
    await mountTasks(root);
    return disposeTasks;
  },
  tools: async (root) => renderToolsPage(root, await listTools()),
  permissions: (root, r) => mountRules(root, r.arg ?? "default"),
  mcp: solidPage(McpScreen),
  settings: (root) => mountSettings(root),
  welcome: (root) => mountSolid(root, () => <Welcome />),
  view: async (root, r, ctx) => {
    await mountViewer(root, r.arg ?? "", undefined, { ...r.view, openDialog: ctx.openDialog });
    return disposeViewer;
  },
};

export interface NavLink {
  route: string;
  label: string;
  /** Shown alone when the navigation is collapsed. */
  icon: string;
}

export const NAV: NavLink[] = [
  { route: "chat", label: "Chat", icon: "✎" },
  { route: "inbox", label: "Inbox", icon: "⚑" },
  { route: "view", label: "Files", icon: "▤" },
  { route: "tasks", label: "Tasks", icon: "◷" },
  { route: "tools", label: "Tools", icon: "⚒" },
  { route: "mcp", label: "MCP", icon: "◈" },
  { route: "permissions", label: "Permissions", icon: "⚖" },
  { route: "settings", label: "Settings", icon: "⚙" },
];

export function parseRoute(hash: string): Route {
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
