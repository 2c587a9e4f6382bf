// A plain file view for clicked tool paths, until the full viewer lands.
import { el } from "../dom";
import * as api from "../api";

export async function mountViewer(root: HTMLElement, path: string, deps = { api }): Promise<void> {
  root.replaceChildren(el("h1", {}, path), el("p", { class: "muted" }, "Loading…"));
  try {
    const text = await deps.api.viewFile(path);
    root.replaceChildren(el("h1", { class: "viewer-title" }, path), el("pre", { class: "viewer-text", "data-testid": "viewer-text" }, text));
  } catch (e) {
    root.replaceChildren(el("h1", {}, path), el("p", { class: "error", role: "alert" }, api.errorMessage(e)));
  }
}
