// The bridge from the pure reducer's views to a SolidJS store. The reducer
// stays the truth (a new `ChatView` per event); `set` hands the store only
// the parts that changed, so a streamed token writes one string and touches
// one text node, and everything else is reconciled by message key: an
// unchanged message keeps its store object, hence its DOM node and state
// (an expanded card, a collapsed "Thinking", a half-typed answer).
import { batch } from "solid-js";
import { createStore, reconcile } from "solid-js/store";
import { type ChatView, emptyView } from "./state";

export interface ChatStore {
  /** The reactive view the components read. */
  view: ChatView;
  /** Makes the store show `next`. */
  set(next: ChatView): void;
  /** The last view handed to `set`. */
  current(): ChatView;
}

export function createChatStore(initial: ChatView = emptyView()): ChatStore {
  const [view, setView] = createStore<ChatView>(emptyView());
  let last = emptyView();
  const set = (next: ChatView) => {
    const prev = last;
    last = next;
    batch(() => {
      if (next.messages !== prev.messages) setView("messages", reconcile(next.messages, { key: "key" }));
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
    });
  };
  set(initial);
  return { view, set, current: () => last };
}
