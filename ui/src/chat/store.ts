// The bridge from the pure reducer's views to a SolidJS store. The reducer
// stays the truth (a new `ChatView` per event); `set` hands the store only
// the parts that changed, so a streamed token writes one string and touches
// one text node, and everything else is reconciled by message key: an
// unchanged message keeps its store object, hence its DOM node and state
// (an expanded card, a collapsed "Thinking", a half-typed answer).
import { type Accessor, batch, createSignal } from "solid-js";
import { createStore, reconcile } from "solid-js/store";
import { type ChatView, emptyView } from "./state";

export interface ChatStore {
  /** The reactive view the components read. */
  view: ChatView;
  /** Makes the store show `next`. */
  set(next: ChatView): void;
  /** The last view handed to `set`. */
  current(): ChatView;
  /** Changes whenever the messages do: sums over the whole history read
   *  the plain messages under it instead of subscribing to every field. */
  revision: Accessor<number>;
}

export function createChatStore(initial: ChatView = emptyView()): ChatStore {
  const [view, setView] = createStore<ChatView>(emptyView());
  let last = emptyView();
  const [revision, setRevision] = createSignal(0);
  // The reducer shares unchanged messages between views: when the old list
  // is a prefix of the new one by key, only the replaced and added messages
  // are written (a sent message, a finished call cost one message, not the
  // whole history); anything else is reconciled whole.
  const setMessages = (a: ChatView["messages"], b: ChatView["messages"]) => {
    const prefix = b.length >= a.length && a.every((m, i) => m.key === b[i].key);
    if (!prefix) return setView("messages", reconcile(b, { key: "key" }));
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) setView("messages", i, reconcile(b[i], { key: "key" }));
    for (let i = a.length; i < b.length; i++) setView("messages", i, b[i]);
  };
  const set = (next: ChatView) => {
    const prev = last;
    last = next;
    batch(() => {
      if (next.messages !== prev.messages) {
        setMessages(prev.messages, next.messages);
        setRevision((r) => r + 1);
      }
      if (next.streaming !== prev.streaming) {
        // A fresh object each token: only the field that grew is written.
        if (next.streaming && view.streaming) {
          if (next.streaming.text !== view.streaming.text) setView("streaming", "text", next.streaming.text);
          if (next.streaming.reasoning !== view.streaming.reasoning) setView("streaming", "reasoning", next.streaming.reasoning);
        } else setView("streaming", next.streaming ? { ...next.streaming } : null);
      }
      if (next.running !== prev.running) setView("running", next.running);
      if (next.outcome !== prev.outcome) setView("outcome", reconcile(next.outcome));
      if (next.usage !== prev.usage) setView("usage", reconcile(next.usage));
      if (next.approvals !== prev.approvals) setView("approvals", reconcile(next.approvals));
      if (next.subAgents !== prev.subAgents) setView("subAgents", reconcile(next.subAgents, { key: "key" }));
      if (next.progress !== prev.progress) setView("progress", reconcile(next.progress));
      if (next.retrying !== prev.retrying) setView("retrying", reconcile(next.retrying));
      if (next.context !== prev.context) setView("context", reconcile(next.context));
    });
  };
  set(initial);
  return { view, set, current: () => last, revision };
}
