// Code and text in the viewer: only the lines on screen are in the DOM (a
// 100,000-line file paints as fast as a short one), highlighted a block at a
// time as blocks scroll into view, with line numbers, go to line and find.
// A new text (the file changed on disk) keeps the scroll position, the
// toolbar and what is typed in it: only the rows' contents change.
import { createEffect, createMemo, createSignal, For, type JSX, on, onCleanup, onMount } from "solid-js";
import { knowsLanguage } from "./highlight";
import { blockHighlighter, findLines, LINE_HEIGHT, splitLines, visibleRange } from "./code";

export interface CodeHandle {
  goToLine(line: number): void;
  /** Paints the visible lines now (the view paints on scroll and resize). */
  paint(): void;
}

export interface CodeViewProps {
  text: string;
  language?: string;
  /** 1-based line to show first and mark. */
  line?: number;
  ref?: (h: CodeHandle) => void;
}

const sameRange = (a: [number, number], b: [number, number]) => a[0] === b[0] && a[1] === b[1];

export function CodeView(props: CodeViewProps): JSX.Element {
  const lines = createMemo(() => splitLines(props.text));
  const lang = () => (knowsLanguage(props.language) ? props.language : undefined);
  const lineHtml = createMemo(() => blockHighlighter(lines(), lang()));
  const total = () => lines().length;
  const [range, setRange] = createSignal<[number, number]>([0, 0], { equals: sameRange });
  const [marked, setMarked] = createSignal(props.line ? props.line - 1 : -1);
  let scroller!: HTMLDivElement;

  const paint = () => setRange(visibleRange(scroller.scrollTop, scroller.clientHeight || 600, total()));
  const goToLine = (line: number) => {
    const n = Math.min(Math.max(1, Math.round(line)), total());
    setMarked(n - 1);
    scroller.scrollTop = Math.max(0, (n - 1) * LINE_HEIGHT - (scroller.clientHeight || 600) / 3);
    paint();
  };
  const rows = createMemo(() => {
    const [a, b] = range();
    return Array.from({ length: b - a }, (_, k) => a + k);
  });

  let frame = 0;
  const onScroll = () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      paint();
    });
  };
  // A shorter or longer text (a reload) changes which lines exist.
  createEffect(on(total, () => paint(), { defer: true }));

  const [query, setQuery] = createSignal("");
  const hits = createMemo(() => findLines(lines(), query()));
  const [at, setAt] = createSignal(-1);
  const [stepped, setStepped] = createSignal(false);
  const count = () => {
    if (!query()) return "";
    if (!hits().length) return "no match";
    return stepped() ? `${at() + 1} of ${hits().length}` : `${hits().length} lines`;
  };
  const show = (k: number) => {
    const h = hits();
    if (!h.length) return;
    const i = (k + h.length) % h.length;
    setAt(i);
    setStepped(true);
    goToLine(h[i] + 1);
  };

  onMount(() => {
    const ro = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => paint());
    ro?.observe(scroller);
    onCleanup(() => {
      ro?.disconnect();
      if (frame) cancelAnimationFrame(frame);
    });
    paint();
    // Once laid out (the node may join the document after this runs).
    queueMicrotask(() => (props.line ? goToLine(props.line) : paint()));
  });
  props.ref?.({ goToLine, paint });

  return (
    <div class="viewer-code-wrap">
      <div class="viewer-toolbar code-toolbar">
        <input
          type="number"
          min="1"
          max={String(total())}
          placeholder="Line"
          class="code-goto"
          data-testid="code-goto"
          aria-label="Go to line"
          on:keydown={(e) => {
            if (e.key === "Enter" && e.currentTarget.value) goToLine(Number(e.currentTarget.value));
          }}
        />
        <input
          type="search"
          placeholder="Find"
          class="code-find"
          data-testid="code-find"
          aria-label="Find in file"
          on:input={(e) => {
            setQuery(e.currentTarget.value);
            setAt(-1);
            setStepped(false);
          }}
          on:keydown={(e) => {
            if (e.key === "Enter") show(e.shiftKey ? at() - 1 : at() + 1);
          }}
        />
        <button type="button" data-testid="code-find-prev" title="Previous match" on:click={() => show(at() - 1)}>
          ↑
        </button>
        <button type="button" data-testid="code-find-next" title="Next match" on:click={() => show(at() + 1)}>
          ↓
        </button>
        <span class="muted" data-testid="code-find-count">
          {count()}
        </span>
        <span class="muted">{`${total().toLocaleString()} lines`}</span>
      </div>
      <div
        ref={scroller}
        class={`viewer-code${lang() ? ` language-${lang()}` : ""}`}
        data-testid="viewer-code"
        data-lines={String(total())}
        data-first={String(range()[0] + 1)}
        data-last={String(range()[1])}
        tabindex="0"
        style={{ "--gutter": `${String(total()).length + 1}ch` }}
        onScroll={onScroll}
      >
        <div class="code-spacer" style={{ height: `${total() * LINE_HEIGHT}px` }}>
          <div class="code-rows" style={{ transform: `translateY(${range()[0] * LINE_HEIGHT}px)` }}>
            <For each={rows()}>
              {(i) => (
                <div class={i === marked() ? "code-row marked" : "code-row"} data-line={String(i + 1)}>
                  <span class="code-ln">{String(i + 1)}</span>
                  <span class="code-line" innerHTML={lineHtml()(i) || " "} />
                </div>
              )}
            </For>
          </div>
        </div>
      </div>
    </div>
  );
}
