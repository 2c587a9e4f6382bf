// The Agent Inbox: every call waiting for a person, across sessions. Pending
// rows in the database are its truth, so it survives a restart. The cards
// themselves are the chat's (approval panel, question card); the Inbox adds
// where each comes from and, for approvals, the rule's reason in words.
import { createMemo, createResource, For, type JSX, onCleanup, Show } from "solid-js";
import * as api from "../api";
import type { PendingApprovalView, PendingQuestionView } from "../bindings";
import { approvalPanel } from "../chat/approval";
import { questionCard } from "../chat/question";
import { plainReason } from "../rule_words";
import { mountSolid } from "../solid";

/** `next` with every item equal to one in `prev` (same key, same content)
 *  replaced by that one, so a refresh keeps unchanged cards — and what the
 *  person is typing into them — instead of rebuilding every node. */
export function keepUnchanged<T>(prev: readonly T[], next: readonly T[], key: (t: T) => string): T[] {
  const old = new Map(prev.map((t) => [key(t), t]));
  return next.map((t) => {
    const was = old.get(key(t));
    return was !== undefined && JSON.stringify(was) === JSON.stringify(t) ? was : t;
  });
}

/** Dispatched on `window` when the waiting set changes: the open Inbox refetches. */
export const INBOX_REFRESH = "skald:inbox-refresh";

type InboxApi = Pick<typeof api, "listPending" | "listQuestions" | "approveCall" | "rejectCall" | "previewAlwaysAllow" | "alwaysAllow" | "answerQuestion">;

function Inbox(props: { api: InboxApi }): JSX.Element {
  const [data, { refetch }] = createResource(() => Promise.all([props.api.listPending(), props.api.listQuestions()]));
  const refresh = () => void refetch();
  window.addEventListener(INBOX_REFRESH, refresh);
  onCleanup(() => window.removeEventListener(INBOX_REFRESH, refresh));
  const actions = {
    approve: async (id: string) => {
      await props.api.approveCall(id);
      refresh();
    },
    reject: async (id: string, note: string | null) => {
      await props.api.rejectCall(id, note);
      refresh();
    },
    previewAlwaysAllow: (id: string) => props.api.previewAlwaysAllow(id),
    alwaysAllow: async (id: string) => {
      await props.api.alwaysAllow(id);
      refresh();
    },
  };
  const answer = async (id: string, text: string) => {
    await props.api.answerQuestion(id, text);
    refresh();
  };
  const pending = createMemo<PendingApprovalView[]>((prev) => keepUnchanged(prev, data.latest?.[0] ?? [], (p) => p.request.toolCallId), []);
  const questions = createMemo<PendingQuestionView[]>((prev) => keepUnchanged(prev, data.latest?.[1] ?? [], (q) => q.toolCallId), []);
  const waiting = () => pending().length + questions().length;
  return (
    <>
      <h1>Inbox</h1>
      <Show when={data.error}>
        <p class="error" role="alert">{api.errorMessage(data.error)}</p>
      </Show>
      <Show when={data.latest}>
        <p class="muted" data-testid="inbox-count">{waiting() === 0 ? "Nothing is waiting for you." : `${waiting()} waiting for you`}</p>
      </Show>
      <For each={pending()}>
        {(p) => (
          <section class="inbox-item" data-testid="inbox-item" data-tool-call={p.request.toolCallId}>
            <h2>
              <a href={`#/chat/${p.sessionId}`}>{p.sessionTitle || "Chat"}</a>
              {" · "}
              <code title={p.request.labelFull}>{p.request.labelShort}</code>
            </h2>
            <p class="muted inbox-reason" data-testid="inbox-reason">{plainReason(p.request.reason, p.request.name)}</p>
            {approvalPanel(p.request, actions)}
          </section>
        )}
      </For>
      <For each={questions()}>
        {(q) => (
          <section class="inbox-item inbox-question" data-testid="inbox-question" data-tool-call={q.toolCallId}>
            <h2>
              <a href={`#/chat/${q.sessionId}`}>{q.sessionTitle || "Chat"}</a>
              {" · "}
              <span class="muted">{`${q.agentId} asks`}</span>
            </h2>
            {questionCard(q, answer)}
          </section>
        )}
      </For>
    </>
  );
}

/** Shows the Inbox in `root`; resolves once the first list is shown. */
export async function mountInbox(root: HTMLElement, deps: { api: InboxApi } = { api }): Promise<() => void> {
  const dispose = mountSolid(root, () => <Inbox api={deps.api} />);
  for (let i = 0; i < 100 && !root.querySelector("[data-testid=inbox-count], [role=alert]"); i++) await new Promise((r) => setTimeout(r, 5));
  return dispose;
}
