// The conversation as SolidJS components over the chat store: a message's
// node lives as long as its key, a streamed token updates the streaming
// answer's text alone, and only the newest messages are in the DOM (older
// pages come back as the person scrolls up), so a 1,000-message session
// opens as fast as a short one.
import { type Accessor, createComputed, createMemo, createSignal, For, on, onCleanup, onMount, type Setter, Show, untrack } from "solid-js";
import { render } from "solid-js/web";
import type { ToolCallView } from "../bindings";
import { copyText } from "../links";
import type { ApprovalActions } from "./approval";
import { ToolCard } from "./cards";
import { addCodeCopy, flash, Markdown, StreamingMarkdown } from "./markdown";
import { type AnswerQuestion, askedQuestion, type Question, questionCard } from "./question";
import { type ChatView, incompleteNote, outcomeText, type ViewMessage } from "./state";
import { createChatStore } from "./store";
import { formatUsage, turnUsage } from "./usage";
import "./chat.css";

export { addCodeCopy };

export interface ChatHandlers {
  openFile: (path: string, line?: number) => void;
  actions?: ApprovalActions;
  answerQuestion?: AnswerQuestion;
  /** The question an MCP server asks through the running call `id` (an
   *  elicitation, with its form), if one waits. */
  elicitation?: (id: string) => Question | null;
  /** Sends `text` in place of the last message of the person (and what followed it). */
  edit?: (text: string) => void;
  /** Asks again for the last answer. */
  regenerate?: () => void;
  /** Runs a failed turn again. */
  retry?: () => void;
}

export function Thinking(p: { text: string; live: boolean }) {
  const block = (
    <details class="reasoning" data-testid="thinking">
      <summary>{p.live ? "Thinking…" : "Thinking"}</summary>
      <div class="reasoning-text">{p.text}</div>
    </details>
  ) as HTMLDetailsElement;
  // Open while it streams, collapsed once stored; set once, so the person's
  // own collapse or expand sticks while the text grows.
  block.open = untrack(() => p.live);
  return block;
}

/** A waiting question's card, built once per call (a typed answer survives
 *  every update of the message around it). */
function WaitingQuestion(p: { call: ToolCallView; answer?: AnswerQuestion; elicitation?: (id: string) => Question | null }) {
  const question = createMemo<Question | null>(
    () => (p.answer ? (askedQuestion(p.call) ?? (p.call.status === "running" ? (p.elicitation?.(p.call.id) ?? null) : null)) : null),
    null,
    { equals: (a, b) => a?.toolCallId === b?.toolCallId && (a === null) === (b === null) },
  );
  return (
    <Show when={question()} keyed>
      {(q) => questionCard(q, p.answer as AnswerQuestion)}
    </Show>
  );
}

function Call(p: { call: ToolCallView; own: ChatView; top: ChatView; h: ChatHandlers }) {
  return (
    <>
      <ToolCard
        call={p.call}
        openFile={p.h.openFile}
        request={p.top.approvals[p.call.id]}
        actions={p.h.actions}
        live={p.own.progress[p.call.id]}
        nested={
          <Show when={p.top.subAgents[p.call.id]}>{(sub) => <SubAgent agentId={sub().agentId} view={sub().view} top={p.top} h={p.h} />}</Show>
        }
      />
      <WaitingQuestion call={p.call} answer={p.h.answerQuestion} elicitation={p.h.elicitation} />
    </>
  );
}

/** A sub-agent's activity inside its call's card. */
function SubAgent(p: { agentId: string; view: ChatView; top: ChatView; h: ChatHandlers }) {
  const state = () => (p.view.running ? "working" : (outcomeText(p.view.outcome) ?? "finished"));
  return (
    <div class="sub-agent" data-sub-agent={p.agentId}>
      <div class="tool-section">{`↳ ${p.agentId} — ${state()}`}</div>
      <For each={p.view.messages}>{(m) => <Message m={m} own={p.view} top={p.top} h={p.h} />}</For>
    </div>
  );
}

/** The calls of `calls` that wait for the person, with those of the
 *  sub-agents they started: a message's own calls that need the person are
 *  asked all at once, and delegations run side by side. */
export function waitingCalls(calls: ToolCallView[], top: ChatView): string[] {
  const out: string[] = [];
  for (const c of calls) {
    if (top.approvals[c.id]) out.push(c.id);
    const sub = top.subAgents[c.id];
    if (sub) for (const m of sub.view.messages) out.push(...waitingCalls(m.toolCalls, top));
  }
  return out;
}

/** Several calls of one message waiting at once: one click answers them all. */
function ApproveAll(p: { calls: ToolCallView[]; top: ChatView; actions?: ApprovalActions }) {
  const waiting = () => waitingCalls(p.calls, p.top);
  const [busy, setBusy] = createSignal(false);
  return (
    <Show when={p.actions && waiting().length > 1}>
      <div class="approve-all-bar" data-testid="approve-all-bar">
        <span>{`${waiting().length} calls wait for your approval`}</span>
        <button
          type="button"
          class="approve"
          data-testid="approve-all"
          disabled={busy()}
          on:click={() => {
            setBusy(true);
            // All at once: the calls still run one by one in the model's
            // order, each as soon as its turn comes.
            const ids = waiting();
            void Promise.allSettled(ids.map((id) => (p.actions as ApprovalActions).approve(id))).finally(() => setBusy(false));
          }}
        >
          Approve all
        </button>
      </div>
    </Show>
  );
}

interface Footer {
  usage?: string;
  lastUser: boolean;
  lastAnswer: boolean;
}

function Message(p: { m: ViewMessage; own: ChatView; top: ChatView; h: ChatHandlers; footer?: Footer }) {
  const [editing, setEditing] = createSignal(false);
  const idle = () => !p.top.running;
  let editor: HTMLTextAreaElement | undefined;
  return (
    <div class={`msg msg-${p.m.role}${p.m.incomplete ? " incomplete" : ""}`} data-role={p.m.role} data-key={p.m.key}>
      <Show when={p.m.reasoning}>{(r) => <Thinking text={r()} live={false} />}</Show>
      <Show when={p.m.content.trim() !== "" && !editing()}>
        {p.m.role === "assistant" ? <Markdown src={p.m.content} /> : <div class="text">{p.m.content}</div>}
      </Show>
      <Show when={editing()}>
        <div class="msg-edit">
          <textarea ref={editor} class="msg-edit-input" rows="3" aria-label="Edit the message" data-testid="edit-input" value={untrack(() => p.m.content)} />
          <button
            type="button"
            data-testid="edit-send"
            on:click={() => {
              const text = editor?.value.trim() ?? "";
              if (text === "") return;
              setEditing(false);
              p.h.edit?.(text);
            }}
          >
            Send
          </button>
          <button type="button" on:click={() => setEditing(false)}>
            Cancel
          </button>
        </div>
      </Show>
      <For each={p.m.toolCalls}>{(c) => <Call call={c} own={p.own} top={p.top} h={p.h} />}</For>
      <Show when={p.footer}>
        {(f) => (
          <>
            <ApproveAll calls={p.m.toolCalls} top={p.top} actions={p.h.actions} />
            <Show when={incompleteNote(p.m)}>
              {(note) => (
                <p class="msg-incomplete muted" data-testid="msg-incomplete" data-cause={p.m.incompleteCause?.by ?? ""}>
                  {note()}
                </p>
              )}
            </Show>
            <Show when={p.m.error}>
              <p class="msg-error error" role="alert" data-testid="msg-error">{`The turn failed: ${p.m.error}`}</p>
            </Show>
            <div class="msg-footer">
              <Show when={f().usage}>
                <span class="msg-usage muted" data-testid="msg-usage">
                  {f().usage}
                </span>
              </Show>
              <span class="msg-actions">
                <Show when={p.m.content.trim() !== ""}>
                  <button
                    type="button"
                    class="msg-action"
                    data-testid="copy-message"
                    title="Copy the message"
                    on:click={(e) => {
                      const b = e.currentTarget;
                      void copyText(p.m.content).then(() => flash(b));
                    }}
                  >
                    Copy
                  </button>
                </Show>
                <Show when={f().lastUser && p.h.edit && idle() && !editing()}>
                  <button type="button" class="msg-action" data-testid="edit-message" title="Edit and send again" on:click={() => setEditing(true)}>
                    Edit
                  </button>
                </Show>
                <Show when={f().lastAnswer && p.h.regenerate && idle() && !p.m.error}>
                  <button type="button" class="msg-action" data-testid="regenerate" title="Ask again for this answer" on:click={() => p.h.regenerate?.()}>
                    Regenerate
                  </button>
                </Show>
                <Show when={p.m.error && (f().lastUser || f().lastAnswer) && p.h.retry && idle()}>
                  <button type="button" class="msg-action" data-testid="retry" on:click={() => p.h.retry?.()}>
                    Retry
                  </button>
                </Show>
              </span>
            </div>
          </>
        )}
      </Show>
    </div>
  );
}

/** Where a summary stands in for the turns above it: collapsed, it says
 *  how much it covers; expanded, the summary the model now reads. */
function SummaryDivider(p: { m: ViewMessage }) {
  const s = () => p.m.summary;
  return (
    <details class="summary-divider" data-testid="summary-divider" data-key={p.m.key} data-role="summary">
      <summary>
        {`${s()?.manual ? "Compacted" : "Summarised to fit the context window"}: the ${s()?.messageCount ?? 0} messages above (about ${s()?.coveredTokens ?? 0} tokens) are sent as this summary`}
      </summary>
      <Markdown src={p.m.content} />
    </details>
  );
}

/** "rate limited, retrying in 3 s, attempt 2 of 5", counting down. */
function RetryNotice(p: { notice: { attempt: number; maxAttempts: number; reason: string; detail: string; until: number } }) {
  const [now, setNow] = createSignal(Date.now());
  const timer = setInterval(() => setNow(Date.now()), 250);
  onCleanup(() => clearInterval(timer));
  const left = () => Math.max(0, Math.ceil((p.notice.until - now()) / 1000));
  return (
    <div class="retrying muted" role="status" data-testid="retrying" title={p.notice.detail}>
      {`${p.notice.reason}, retrying in ${left()} s, attempt ${p.notice.attempt} of ${p.notice.maxAttempts}`}
    </div>
  );
}

/** How many of the newest messages are in the DOM; scrolling up shows more. */
export interface Paging {
  page: number;
  shown: Accessor<number>;
  setShown: Setter<number>;
}

export function createPaging(page = 60): Paging {
  const [shown, setShown] = createSignal(page);
  return { page, shown, setShown };
}

export interface ConversationControl {
  /** Scrolls to the newest text, if the person is at the bottom. */
  follow(): void;
  /** Back to the bottom and following (the person just sent). */
  toBottom(): void;
}

export function Conversation(p: {
  view: ChatView;
  h: ChatHandlers;
  paging?: Paging;
  control?: (c: ConversationControl) => void;
  /** The store's `revision` and its latest plain view: per-turn sums read
   *  those, not the reactive messages field by field. */
  plain?: { revision: Accessor<number>; current: () => ChatView };
}) {
  const paging = p.paging ?? createPaging();
  const { page, shown, setShown } = paging;
  // Follow the answer only while the person is at the bottom: scrolled up
  // to read, they stay where they are while tokens arrive.
  let stick = true;
  // Where the page last scrolled itself while following: the scroll event
  // of that jump comes a frame later, when the content may have grown again
  // (a card, a form), and must not read as the person scrolling up.
  let pinned = -1;
  let root!: HTMLDivElement;
  const pin = () => {
    root.scrollTop = root.scrollHeight;
    pinned = root.scrollTop;
  };
  const first = createMemo(() => Math.max(0, p.view.messages.length - shown()));
  const visible = createMemo(() => p.view.messages.slice(first()));
  // Read while scrolled up, new messages do not push the oldest shown out
  // from above the reader (the page would jump).
  createComputed(
    on(
      () => p.view.messages.length,
      (len, prev) => {
        if (prev !== undefined && len > prev && !stick) setShown((s) => s + len - prev);
      },
    ),
  );
  const lastUser = createMemo(() => {
    const ms = p.view.messages;
    for (let i = ms.length - 1; i >= 0; i--) if (ms[i].role === "user") return ms[i].key;
    return null;
  });
  const lastAnswer = createMemo(() => {
    const ms = p.view.messages;
    const m = ms[ms.length - 1];
    return m && m.role === "assistant" ? m.key : null;
  });
  const usage = createMemo(() => {
    if (!p.plain) return turnUsage(p.view.messages);
    p.plain.revision();
    return turnUsage(p.plain.current().messages);
  });
  const loadEarlier = () => {
    const height = root.scrollHeight;
    const top = root.scrollTop;
    setShown((s) => s + page);
    // The text the person was reading stays under their eyes.
    root.scrollTop = top + (root.scrollHeight - height);
  };
  const onScroll = () => {
    const atBottom = root.scrollHeight - root.scrollTop - root.clientHeight < 40;
    const ownJump = stick && pinned >= 0 && root.scrollTop >= pinned - 1;
    stick = atBottom || ownJump;
    if (!stick) pinned = -1;
    if (root.scrollTop < 120 && first() > 0) loadEarlier();
    else if (stick && shown() > 2 * page) {
      // Back at the bottom: the pages read above leave the DOM again.
      setShown(page);
      pin();
    }
  };
  p.control?.({
    follow: () => {
      if (stick) pin();
    },
    toBottom: () => {
      stick = true;
      pin();
    },
  });
  // A card that waits for the person (an approval, a question, a server's
  // form) comes into view when it appears, if the person was following:
  // it may arrive without a new event of the turn (an MCP form is read
  // apart), and may be taller than the view (then its top is shown).
  onMount(() => {
    const observer = new MutationObserver((records) => {
      const added: Element[] = [];
      for (const r of records)
        for (const n of Array.from(r.addedNodes)) {
          if (!(n instanceof Element)) continue;
          if (n.matches(WAITING_CARD)) added.push(n);
          else added.push(...Array.from(n.querySelectorAll(WAITING_CARD)));
        }
      const card = added.filter((c) => c.isConnected).sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1))[0];
      if (!card) return;
      // Inside a collapsed card (a sub-agent's call in its delegation's
      // card) it would wait unseen: the cards around it open.
      for (const c of added) for (let d = c.parentElement?.closest("details"); d; d = d.parentElement?.closest("details")) d.open = true;
      if (stick) reveal(root, card, pin, () => ((stick = false), (pinned = -1)));
    });
    observer.observe(root, { childList: true, subtree: true });
    onCleanup(() => observer.disconnect());
  });
  const streaming = () => p.view.streaming;
  return (
    <div class="conversation" data-testid="conversation" ref={root} onScroll={onScroll}>
      <Show when={first() > 0}>
        <button type="button" class="load-earlier" data-testid="load-earlier" on:click={loadEarlier}>
          {`Show earlier messages (${first()})`}
        </button>
      </Show>
      <For each={visible()}>
        {(m) => {
          if (untrack(() => m.summary)) return <SummaryDivider m={m} />;
          // Memos per message: a new message elsewhere re-renders no footer
          // whose text stays the same.
          const own = createMemo(() => {
            const u = usage().get(m.key);
            return u ? formatUsage(u) : undefined;
          });
          const isLastUser = createMemo(() => lastUser() === m.key);
          const isLastAnswer = createMemo(() => lastAnswer() === m.key);
          return (
            <Message
              m={m}
              own={p.view}
              top={p.view}
              h={p.h}
              footer={{
                get usage() {
                  return own();
                },
                get lastUser() {
                  return isLastUser();
                },
                get lastAnswer() {
                  return isLastAnswer();
                },
              }}
            />
          );
        }}
      </For>
      <Show when={streaming() && (streaming()?.text !== "" || streaming()?.reasoning !== "")}>
        <div class="msg msg-assistant streaming" data-role="streaming">
          <Show when={streaming()?.reasoning}>
            <Thinking text={streaming()?.reasoning ?? ""} live={true} />
          </Show>
          <Show when={streaming()?.text}>
            <StreamingMarkdown text={streaming()?.text ?? ""} />
          </Show>
          {/* The turn's model, named from its request (before the first token). */}
          <Show when={p.view.context?.model}>
            <div class="msg-footer">
              <span class="msg-usage muted" data-testid="streaming-model" title="The model writing this answer">
                {p.view.context?.model}
              </span>
            </div>
          </Show>
        </div>
      </Show>
      <Show when={p.view.retrying}>{(r) => <RetryNotice notice={r()} />}</Show>
      <Show when={p.view.running}>
        <div class="thinking" data-testid="turn-running">
          Working… (Esc to stop)
        </div>
      </Show>
      <Show when={outcomeText(p.view.outcome)}>
        {(note) => (
          <div class="turn-end">
            <div class="turn-note" role="status">
              {note()}
            </div>
            <Show when={p.view.outcome?.kind === "failed" && p.h.retry && !p.view.running && !lastHasError(p.view)}>
              <button type="button" class="msg-action" data-testid="retry" on:click={() => p.h.retry?.()}>
                Retry
              </button>
            </Show>
          </div>
        )}
      </Show>
    </div>
  );
}

/** What waits for the person's answer in the conversation. */
const WAITING_CARD = "[data-testid=approval], [data-testid=question-card]";

/** Scrolls a following conversation to `card`: to the bottom when the card
 *  then shows whole, else to the card's top (and the view stops following,
 *  as if the person had scrolled there to read it). */
function reveal(root: HTMLElement, card: Element, toBottom: () => void, unfollow: () => void): void {
  toBottom();
  const view = root.getBoundingClientRect();
  const top = card.getBoundingClientRect().top;
  if (top >= view.top) return;
  root.scrollTop = Math.max(0, root.scrollTop - (view.top - top) - 8);
  unfollow();
}

/** Whether the stored history already shows the failure (with its Retry). */
function lastHasError(view: ChatView): boolean {
  const m = view.messages[view.messages.length - 1];
  return !!m?.error;
}

/** A conversation alone in `root`, driven by `set` (the page composes its
 *  own; the tests and the bench use this). */
export function mountConversation(
  root: HTMLElement,
  initial: ChatView,
  h: ChatHandlers,
  paging?: Paging,
): { set: (view: ChatView) => void; control: ConversationControl; dispose: () => void } {
  const store = createChatStore(initial);
  let control!: ConversationControl;
  const dispose = render(() => <Conversation view={store.view} h={h} paging={paging} control={(c) => (control = c)} plain={store} />, root);
  return {
    set: (view) => {
      store.set(view);
      control.follow();
    },
    control,
    dispose,
  };
}
