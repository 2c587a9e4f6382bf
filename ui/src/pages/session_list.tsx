// The chat page's list of sessions: New chat, search by title and content,
// rename in place, delete with Undo (the delete reaches the database only
// when the Undo time is over, so closing the app in between loses nothing).
// A chat hidden for Undo stays hidden when the list is read again (a turn's
// end refreshes it), and the search keeps showing its hits meanwhile.
import { createMemo, createSignal, For, type JSX, Show } from "solid-js";
import type * as api from "../api";
import type { SessionSearchHit, SessionSummary } from "../bindings";

export interface SessionListDeps {
  api: Pick<typeof api, "createSession" | "renameSession" | "deleteSession" | "searchSessions" | "errorMessage">;
  navigate: (hash: string) => void;
}

/** How long Undo is offered after a delete. */
export const UNDO_MS = 8_000;

/** How long typing pauses before the search runs. */
export const SEARCH_DELAY_MS = 150;

const label = (title: string) => title || "New chat";

export function SessionList(props: { sessions: SessionSummary[]; current: string | null; deps: SessionListDeps }): JSX.Element {
  const [hits, setHits] = createSignal<SessionSearchHit[] | null>(null);
  const [hidden, setHidden] = createSignal<ReadonlySet<string>>(new Set());
  // Titles renamed here, until the list is read again with them.
  const [titles, setTitles] = createSignal<Record<string, string>>({});
  const [editing, setEditing] = createSignal<string | null>(null);
  const [status, setStatus] = createSignal<{ text: string; undo?: () => void } | null>(null);
  const hide = (id: string, on: boolean) =>
    setHidden((h) => {
      const next = new Set(h);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const shown = createMemo(() =>
    (hits() ?? props.sessions.map((session) => ({ session, snippet: null }))).filter((h) => !hidden().has(h.session.id)),
  );
  const title = (s: SessionSummary) => titles()[s.id] ?? s.title;

  const newChat = async () => {
    try {
      const s = await props.deps.api.createSession(null, null);
      props.deps.navigate(`#/chat/${s.id}`);
    } catch (e) {
      setStatus({ text: props.deps.api.errorMessage(e) });
    }
  };

  let pending: ReturnType<typeof setTimeout> | null = null;
  const search = (text: string) => {
    if (pending) clearTimeout(pending);
    pending = setTimeout(async () => {
      if (text.trim() === "") return setHits(null);
      try {
        setHits(await props.deps.api.searchSessions(text));
      } catch (e) {
        setStatus({ text: props.deps.api.errorMessage(e) });
      }
    }, SEARCH_DELAY_MS);
  };

  const rename = async (s: SessionSummary, text: string) => {
    const wanted = text.trim();
    setEditing(null);
    if (wanted === "" || wanted === title(s)) return;
    try {
      const renamed = await props.deps.api.renameSession(s.id, text);
      setTitles((t) => ({ ...t, [s.id]: renamed.title }));
    } catch (e) {
      setStatus({ text: props.deps.api.errorMessage(e) });
    }
  };

  const remove = (s: SessionSummary) => {
    hide(s.id, true);
    const name = label(title(s));
    const timer = setTimeout(async () => {
      setStatus(null);
      try {
        await props.deps.api.deleteSession(s.id);
        if (s.id === props.current) props.deps.navigate("#/chat");
      } catch (e) {
        // Refused (a turn runs in it): it stays.
        hide(s.id, false);
        setStatus({ text: props.deps.api.errorMessage(e) });
      }
    }, UNDO_MS);
    setStatus({
      text: `Deleted “${name}”. `,
      undo: () => {
        clearTimeout(timer);
        hide(s.id, false);
        setStatus(null);
      },
    });
  };

  return (
    <aside class="sessions">
      <button type="button" class="new-chat" data-testid="new-chat" on:click={() => void newChat()}>
        + New chat
      </button>
      <input
        type="search"
        class="session-search"
        placeholder="Search chats"
        aria-label="Search chats"
        data-testid="session-search"
        on:input={(e) => search(e.currentTarget.value)}
      />
      <ul class="session-list" data-testid="session-list">
        <For each={shown()}>
          {(hit) => (
            <li data-session={hit.session.id}>
              <div class="session-row">
                <Show
                  when={editing() === hit.session.id}
                  fallback={
                    <>
                      <a href={`#/chat/${hit.session.id}`} class={hit.session.id === props.current ? "active" : ""}>
                        {label(title(hit.session))}
                      </a>
                      <button
                        type="button"
                        class="icon"
                        title="Rename"
                        aria-label={`Rename ${label(title(hit.session))}`}
                        data-testid="rename-session"
                        on:click={() => setEditing(hit.session.id)}
                      >
                        ✎
                      </button>
                      <button
                        type="button"
                        class="icon"
                        title="Delete"
                        aria-label={`Delete ${label(title(hit.session))}`}
                        data-testid="delete-session"
                        on:click={() => remove(hit.session)}
                      >
                        ×
                      </button>
                    </>
                  }
                >
                  <RenameInput title={title(hit.session)} done={(text) => void (text === null ? setEditing(null) : rename(hit.session, text))} />
                </Show>
              </div>
              <Show when={hit.snippet}>
                <div class="session-snippet muted">{hit.snippet}</div>
              </Show>
            </li>
          )}
        </For>
      </ul>
      <div class="session-status" role="status" data-testid="session-status">
        <Show when={status()}>
          {(s) => (
            <>
              {s().text}
              <Show when={s().undo}>
                {(undo) => (
                  <button type="button" data-testid="undo-delete" on:click={() => undo()()}>
                    Undo
                  </button>
                )}
              </Show>
            </>
          )}
        </Show>
      </div>
    </aside>
  );
}

/** The title being edited: Enter or leaving the field keeps it, Esc
 *  drops it (and does not reach the chat's Esc, which stops a turn). */
function RenameInput(props: { title: string; done: (text: string | null) => void }): JSX.Element {
  let finished = false;
  const finish = (text: string | null) => {
    if (finished) return;
    finished = true;
    props.done(text);
  };
  return (
    <input
      ref={(input) =>
        queueMicrotask(() => {
          input.focus();
          input.select();
        })
      }
      class="session-rename"
      value={props.title}
      aria-label="New title"
      data-testid="session-title-input"
      on:keydown={(e) => {
        if (e.key === "Enter") finish(e.currentTarget.value);
        if (e.key === "Escape") {
          e.stopPropagation();
          finish(null);
        }
      }}
      on:blur={(e) => finish(e.currentTarget.value)}
    />
  );
}
