// The chat page's list of sessions: New chat, search by title and content,
// rename in place, delete with Undo (the delete reaches the database only
// when the Undo time is over, so closing the app in between loses nothing).
import type * as api from "../api";
import type { SessionSearchHit, SessionSummary } from "../bindings";
import { el } from "../dom";

export interface SessionListDeps {
  api: Pick<typeof api, "createSession" | "renameSession" | "deleteSession" | "searchSessions" | "errorMessage">;
  navigate: (hash: string) => void;
}

/** How long Undo is offered after a delete. */
export const UNDO_MS = 8_000;

export function sessionList(sessions: SessionSummary[], current: string | null, deps: SessionListDeps): HTMLElement {
  const newBtn = el("button", { class: "new-chat", type: "button", "data-testid": "new-chat" }, "+ New chat");
  newBtn.addEventListener("click", async () => {
    const s = await deps.api.createSession(null, null);
    deps.navigate(`#/chat/${s.id}`);
  });
  const search = el("input", {
    type: "search",
    class: "session-search",
    placeholder: "Search chats",
    "aria-label": "Search chats",
    "data-testid": "session-search",
  });
  const list = el("ul", { class: "session-list", "data-testid": "session-list" });
  const status = el("div", { class: "session-status", role: "status", "data-testid": "session-status" });
  const hidden = new Set<string>();

  const fill = (hits: SessionSearchHit[]) => {
    list.replaceChildren(...hits.filter((h) => !hidden.has(h.session.id)).map((h) => item(h)));
  };
  const item = (hit: SessionSearchHit): HTMLElement => {
    const s = hit.session;
    const a = el("a", { href: `#/chat/${s.id}`, class: s.id === current ? "active" : "" }, s.title || "New chat");
    const rename = el("button", { type: "button", class: "icon", title: "Rename", "aria-label": `Rename ${s.title || "New chat"}`, "data-testid": "rename-session" }, "✎");
    const del = el("button", { type: "button", class: "icon", title: "Delete", "aria-label": `Delete ${s.title || "New chat"}`, "data-testid": "delete-session" }, "×");
    const li = el("li", { "data-session": s.id }, el("div", { class: "session-row" }, a, rename, del));
    if (hit.snippet) li.append(el("div", { class: "session-snippet muted" }, hit.snippet));
    rename.addEventListener("click", () => {
      const input = el("input", { class: "session-rename", value: s.title, "aria-label": "New title", "data-testid": "session-title-input" });
      const row = li.querySelector(".session-row") as HTMLElement;
      row.replaceChildren(input);
      input.focus();
      input.select();
      const done = async (save: boolean) => {
        if (save && input.value.trim() !== "" && input.value.trim() !== s.title) {
          try {
            const renamed = await deps.api.renameSession(s.id, input.value);
            s.title = renamed.title;
            a.textContent = renamed.title;
          } catch (e) {
            status.textContent = deps.api.errorMessage(e);
          }
        }
        row.replaceChildren(a, rename, del);
      };
      input.addEventListener("keydown", (e) => {
        if (e.key === "Enter") void done(true);
        if (e.key === "Escape") {
          e.stopPropagation();
          void done(false);
        }
      });
      input.addEventListener("blur", () => void done(true), { once: true });
    });
    del.addEventListener("click", () => {
      hidden.add(s.id);
      li.remove();
      const undo = el("button", { type: "button", "data-testid": "undo-delete" }, "Undo");
      status.replaceChildren(`Deleted “${s.title || "New chat"}”. `, undo);
      const timer = setTimeout(async () => {
        status.replaceChildren();
        try {
          await deps.api.deleteSession(s.id);
          if (s.id === current) deps.navigate("#/chat");
        } catch (e) {
          // Refused (a turn runs in it): it stays.
          hidden.delete(s.id);
          list.prepend(li);
          status.textContent = deps.api.errorMessage(e);
        }
      }, UNDO_MS);
      undo.addEventListener("click", () => {
        clearTimeout(timer);
        hidden.delete(s.id);
        status.replaceChildren();
        list.prepend(li);
      });
    });
    return li;
  };

  let pending: ReturnType<typeof setTimeout> | null = null;
  search.addEventListener("input", () => {
    if (pending) clearTimeout(pending);
    pending = setTimeout(async () => {
      try {
        fill(await deps.api.searchSessions(search.value));
      } catch (e) {
        status.textContent = deps.api.errorMessage(e);
      }
    }, 150);
  });
  fill(sessions.map((session) => ({ session, snippet: null })));
  return el("aside", { class: "sessions" }, newBtn, search, list, status);
}
