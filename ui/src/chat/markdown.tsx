// Markdown in the chat. A stored answer is parsed once (its effect runs only
// when its text changes, which a stored message's never does). A streaming
// answer is split where a block ends (a blank line outside a fence): the
// finished blocks are parsed once each and kept, only the open tail is
// parsed again per painted frame — so a token costs the tail, not the answer.
import { createEffect, onCleanup } from "solid-js";
import { copyText } from "../links";
import { renderMarkdown } from "../markdown";

/** Gives every code block under `root` a Copy button (its code, not the button). */
export function addCodeCopy(root: HTMLElement): void {
  for (const pre of Array.from(root.querySelectorAll("pre"))) {
    if (pre.querySelector(":scope > .copy-code")) continue;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "copy-code";
    b.dataset.testid = "copy-code";
    b.title = "Copy the code";
    b.textContent = "Copy";
    b.addEventListener("click", (e) => {
      e.preventDefault();
      e.stopPropagation();
      const code = pre.querySelector("code") ?? pre;
      void copyText(code.textContent ?? "").then(() => flash(b));
    });
    pre.prepend(b);
  }
}

/** Says "Copied" on a copy button for a moment. */
export function flash(b: HTMLElement): void {
  const label = b.textContent;
  b.textContent = "Copied";
  b.classList.add("copied");
  setTimeout(() => {
    b.textContent = label === "Copied" ? "Copy" : label;
    b.classList.remove("copied");
  }, 1200);
}

export function Markdown(p: { src: string }) {
  const div = (<div class="md" />) as HTMLDivElement;
  createEffect(() => {
    div.innerHTML = renderMarkdown(p.src);
    addCodeCopy(div);
  });
  return div;
}

/** Where the finished blocks of a growing Markdown text end. It scans each
 *  complete line once: fenced code (``` or ~~~) and `$$` math blocks are
 *  never split, whatever blank lines they hold. */
export class BlockSplitter {
  private scanned = 0;
  private fence: string | null = null;
  /** The end of the last finished block (just after a blank line). */
  stable = 0;

  feed(text: string): number {
    let nl = text.indexOf("\n", this.scanned);
    while (nl !== -1) {
      const line = text.slice(this.scanned, nl);
      const t = line.trimStart();
      if (this.fence) {
        if (t.startsWith(this.fence) && t.slice(this.fence.length).trim() === "") this.fence = null;
      } else if (/^(```|~~~)/.test(t) && line.length - t.length < 4) {
        this.fence = t.slice(0, 3);
      } else if (t.trimEnd() === "$$") {
        this.fence = "$$";
      } else if (t.trim() === "" && this.scanned > this.stable) {
        this.stable = nl + 1;
      }
      this.scanned = nl + 1;
      nl = text.indexOf("\n", this.scanned);
    }
    return this.stable;
  }
}

/** How often at most the open tail of a streaming answer is parsed again;
 *  text that arrives between two parses is appended as plain text. */
export const TAIL_PARSE_MS = 80;

/** The element new plain text joins: the deepest last element (the open
 *  paragraph, list item or code block). */
function lastLeaf(root: HTMLElement): HTMLElement {
  let at = root;
  while (at.lastElementChild && !at.lastElementChild.classList.contains("katex")) at = at.lastElementChild as HTMLElement;
  return at;
}

export function StreamingMarkdown(p: { text: string }) {
  const done = (<div class="md-done" />) as HTMLDivElement;
  const tail = (<div class="md-tail" />) as HTMLDivElement;
  const root = (
    <div class="md">
      {done}
      {tail}
    </div>
  ) as HTMLDivElement;
  let splitter = new BlockSplitter();
  let parsed = 0;
  // How far the tail is shown (parsed or appended) and when it was parsed.
  let shown = 0;
  let parsedAt = -Infinity;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let latest = "";
  const parseTail = () => {
    tail.innerHTML = renderMarkdown(latest.slice(parsed));
    shown = latest.length;
    parsedAt = performance.now();
  };
  const paint = (text: string) => {
    latest = text;
    if (text.length < shown) {
      // A new round started over: nothing of the old one stays.
      splitter = new BlockSplitter();
      parsed = 0;
      shown = 0;
      done.replaceChildren();
      tail.replaceChildren();
    }
    const stable = splitter.feed(text);
    if (stable > parsed) {
      const block = document.createElement("div");
      block.className = "md-block";
      block.innerHTML = renderMarkdown(text.slice(parsed, stable));
      addCodeCopy(block);
      done.append(block);
      parsed = stable;
      return parseTail();
    }
    if (performance.now() - parsedAt >= TAIL_PARSE_MS) return parseTail();
    // Between parses a token costs one text node; the parse that follows
    // (at most TAIL_PARSE_MS later) formats it.
    if (text.length > shown) {
      lastLeaf(tail).append(document.createTextNode(text.slice(shown)));
      shown = text.length;
    }
    timer ??= setTimeout(() => {
      timer = null;
      parseTail();
    }, TAIL_PARSE_MS);
  };
  createEffect(() => paint(p.text));
  onCleanup(() => timer !== null && clearTimeout(timer));
  return root;
}
