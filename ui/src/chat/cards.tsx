// A tool card: label, status, clickable path, expandable arguments and
// result with its content blocks; while it runs, its live output; while it
// waits, the approval panel. The card is one <details> for the call's whole
// life: its status and result change in place, so a card the person opened
// stays open while tokens stream and when the call finishes.
import { createEffect, type JSX, Show, untrack } from "solid-js";
import type { ApprovalRequest, ContentBlock, ToolCallView } from "../bindings";
import { el } from "../dom";
import { plainReason } from "../rule_words";
import { type ApprovalActions, approvalPanel, writeDiff } from "./approval";
import type { LiveProgress } from "./state";

export const STATUS_TEXT: Record<ToolCallView["status"], string> = {
  running: "running",
  pending: "waiting for approval",
  done: "done",
  failed: "failed",
  cancelled: "cancelled",
  rejected: "rejected",
};

/** The line a file call is about (read_file's start, insert_at_line's line),
 *  so its path opens the viewer there. */
export function callLine(call: Pick<ToolCallView, "arguments">): number | undefined {
  const a = call.arguments as Record<string, unknown> | null;
  const n = a && typeof a === "object" ? (a.start_line ?? a.line) : undefined;
  return typeof n === "number" && n > 0 ? n : undefined;
}

/** A result's first line, short enough for one line of a card. */
function firstLine(text: string): string {
  const line = text.split("\n", 1)[0];
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** Largest image (base64 characters, about 3 MB of bytes) shown inline. */
export const MAX_INLINE_IMAGE = 4 * 1024 * 1024;
const INLINE_IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml"];

/** The local path a resource link names (`file://` URI or a plain path);
 *  null for other schemes, which the viewer cannot open. */
export function linkPath(uri: string): string | null {
  if (uri.startsWith("file://")) {
    try {
      return decodeURIComponent(new URL(uri).pathname);
    } catch {
      return null;
    }
  }
  return /^[a-z][a-z0-9+.-]*:/i.test(uri) ? null : uri;
}

/** One content block of a result: an image inline, a link to a file that
 *  opens the viewer, JSON pretty-printed and collapsible. */
export function blockNode(block: ContentBlock, openFile: (path: string) => void): HTMLElement {
  switch (block.type) {
    case "image": {
      const kb = Math.round((block.dataBase64.length * 3) / 4 / 1024);
      if (!INLINE_IMAGE_TYPES.includes(block.mime) || block.dataBase64.length > MAX_INLINE_IMAGE) {
        return el("p", { class: "tool-block muted" }, `[image: ${block.mime}, ${kb} KB, not shown]`);
      }
      return el("img", { class: "tool-block tool-image", src: `data:${block.mime};base64,${block.dataBase64}`, alt: `${block.mime}, ${kb} KB` });
    }
    case "resource_link": {
      const text = block.name ?? block.uri;
      const path = linkPath(block.uri);
      if (path === null) return el("p", { class: "tool-block tool-link" }, el("code", {}, block.uri));
      const link = el("a", { href: "#", class: "tool-block tool-link", title: `Open ${path}` }, text);
      link.addEventListener("click", (e) => {
        e.preventDefault();
        openFile(path);
      });
      return link;
    }
    case "json":
      return el("details", { class: "tool-block tool-json" }, el("summary", {}, "JSON"), el("pre", {}, JSON.stringify(block.value, null, 2)));
  }
}

/** What a running call produced so far: progress and the output's tail. */
function LiveOutput(p: { live: LiveProgress }) {
  const figures = () => {
    const l = p.live;
    const n = l.progress === undefined ? "" : l.total ? `${l.progress} / ${l.total}` : `${l.progress}`;
    return [n, l.message].filter(Boolean).join(" — ");
  };
  return (
    <div class="tool-live" data-testid="live-output">
      <Show when={p.live.progress !== undefined || p.live.message}>
        <p class="tool-progress muted">{figures()}</p>
      </Show>
      <Show when={p.live.output}>
        <pre class="tool-live-output">{p.live.output}</pre>
      </Show>
    </div>
  );
}

export interface ToolCardProps {
  call: ToolCallView;
  openFile: (path: string, line?: number) => void;
  /** The call's waiting approval (kept by identity: the panel, and a
   *  reason typed into it, live as long as the request) and who answers it. */
  request?: ApprovalRequest;
  actions?: ApprovalActions;
  /** A sub-agent's conversation, inside the card's body. */
  nested?: JSX.Element;
  live?: LiveProgress;
}

/** Cards the person opened, by call id: a card built again (its message
 *  re-keyed when the history reloads, the page mounted again) opens again. */
const openCards = new Set<string>();

export function ToolCard(p: ToolCardProps) {
  const blocks = () => p.call.blocks ?? [];
  const card = (
    <details class={`tool-card status-${p.call.status}`} data-tool-call={p.call.id} data-tool-name={p.call.name}>
      <summary>
        <span class="tool-label" title={p.call.labelFull}>
          {p.call.labelShort}
        </span>
        <span class={`tool-status status-${p.call.status}`} data-status={p.call.status}>
          {STATUS_TEXT[p.call.status]}
        </span>
        <Show when={p.call.path}>
          {(path) => (
            <a
              href="#"
              class="tool-path"
              title={`Open ${path()}`}
              on:click={(e) => {
                e.preventDefault();
                e.stopPropagation();
                p.openFile(path(), callLine(p.call));
              }}
            >
              {path()}
            </a>
          )}
        </Show>
      </summary>
      <div class="tool-body">
        {/* Why the gate let it run (or not): "allowed by rule 12: @fs_read docs/*". */}
        <Show when={p.call.decisionReason}>
          <p class="tool-decision muted" data-testid="decision" title={p.call.decisionReason ?? ""}>
            {plainReason(p.call.decisionReason, p.call.name)}
          </p>
        </Show>
        {/* A write that ran (whatever allowed it) or was rejected keeps its
            diff; a large file's is cut to the changed lines, and says so. */}
        <Show when={!(p.actions && p.request) && p.call.writePreview}>
          {(w) => (
            <div class="tool-write-diff" data-testid="write-diff">
              <div class="tool-section">Changes</div>
              {writeDiff(p.call.path ?? "", w().oldContent, w().newContent)}
              <Show when={w().note}>
                <p class="muted" data-testid="write-diff-note">
                  {w().note}
                </p>
              </Show>
            </div>
          )}
        </Show>
        <div class="tool-section">Arguments</div>
        <pre class="tool-args">{JSON.stringify(p.call.arguments, null, 2)}</pre>
        {p.nested}
        <Show when={p.call.result !== null}>
          <div class="tool-section">Result</div>
          <pre class="tool-result">{p.call.result}</pre>
        </Show>
        <Show when={blocks().length > 0}>
          <div class="tool-blocks">{blocks().map((b) => blockNode(b, p.openFile))}</div>
        </Show>
      </div>
      {/* Outside the collapsed body: why a call did not run (stopped,
          rejected) is seen without opening the card. */}
      <Show when={(p.call.status === "cancelled" || p.call.status === "rejected") && p.call.result}>
        {(why) => (
          <p class="tool-why muted" data-testid="tool-why">
            {firstLine(why())}
          </p>
        )}
      </Show>
      {/* Outside the collapsed body: what a running command prints is seen. */}
      <Show when={p.call.result === null && p.live}>{(live) => <LiveOutput live={live()} />}</Show>
      <Show when={p.actions && p.request} keyed>
        {(request) => approvalPanel(request, p.actions as ApprovalActions)}
      </Show>
    </details>
  ) as HTMLDetailsElement;
  // Opened for what needs the person's eyes (a waiting approval, an image
  // result); never closed by an update, so what the person opened stays open.
  createEffect(() => {
    if ((p.actions && p.request) || blocks().some((b) => b.type === "image")) card.open = true;
  });
  const id = untrack(() => p.call.id);
  if (openCards.has(id)) card.open = true;
  card.addEventListener("toggle", () => (card.open ? openCards.add(id) : openCards.delete(id)));
  return card;
}
