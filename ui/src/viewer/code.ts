// Code and text in the viewer: only the lines on screen are in the DOM (a
// 100,000-line file paints as fast as a short one), highlighted a block at a
// time as blocks scroll into view, with line numbers, go to line and find.
import { el } from "../dom";
import { highlightHtml, knowsLanguage, splitHighlightedLines } from "./highlight";

/** Pixel height of one line; the CSS (`.code-row`) uses the same number. */
export const LINE_HEIGHT = 18;
/** Lines highlighted together. A construct spanning a block boundary (a
 *  long comment) loses its colour there; whole files under SINGLE_BLOCK
 *  lines are highlighted as one and never do. */
const BLOCK = 400;
const SINGLE_BLOCK = 1500;
const OVERSCAN = 30;

export function splitLines(text: string): string[] {
  return text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
}

/** The first and last (exclusive) line to render for a scroll position. */
export function visibleRange(scrollTop: number, viewHeight: number, total: number, overscan = OVERSCAN): [number, number] {
  const first = Math.max(0, Math.floor(scrollTop / LINE_HEIGHT) - overscan);
  const last = Math.min(total, Math.ceil((scrollTop + viewHeight) / LINE_HEIGHT) + overscan);
  return [first, Math.max(first, last)];
}

/** Lines (0-based) containing `query`, case-insensitive. */
export function findLines(lines: string[], query: string): number[] {
  const q = query.toLowerCase();
  if (!q) return [];
  const hits: number[] = [];
  for (let i = 0; i < lines.length; i++) if (lines[i].toLowerCase().includes(q)) hits.push(i);
  return hits;
}

export interface CodeViewOptions {
  /** 1-based line to show first and mark. */
  line?: number;
}

export interface CodeViewHandle {
  node: HTMLElement;
  goToLine(line: number): void;
  /** Paints the visible lines now (the view paints on scroll and resize). */
  paint(): void;
}

export function codeViewHandle(text: string, language?: string, opts: CodeViewOptions = {}): CodeViewHandle {
  const lines = splitLines(text);
  const total = lines.length;
  const lang = knowsLanguage(language) ? language : undefined;
  const blockSize = total <= SINGLE_BLOCK ? SINGLE_BLOCK : BLOCK;
  const blocks = new Map<number, string[]>();
  const lineHtml = (i: number): string => {
    const b = Math.floor(i / blockSize);
    let html = blocks.get(b);
    if (!html) {
      const src = lines.slice(b * blockSize, (b + 1) * blockSize).join("\n");
      html = splitHighlightedLines(highlightHtml(src, lang));
      blocks.set(b, html);
    }
    return html[i - b * blockSize] ?? "";
  };

  const gutterWidth = `${String(total).length + 1}ch`;
  const rows = el("div", { class: "code-rows" });
  const spacer = el("div", { class: "code-spacer" }, rows);
  spacer.style.height = `${total * LINE_HEIGHT}px`;
  const scroller = el(
    "div",
    {
      class: `viewer-code${lang ? ` language-${lang}` : ""}`,
      "data-testid": "viewer-code",
      "data-lines": String(total),
      tabindex: "0",
    },
    spacer,
  );
  scroller.style.setProperty("--gutter", gutterWidth);

  let marked = opts.line ? opts.line - 1 : -1;
  let painted: [number, number] = [-1, -1];
  const paint = (force = false) => {
    const range = visibleRange(scroller.scrollTop, scroller.clientHeight || 600, total);
    if (!force && range[0] === painted[0] && range[1] === painted[1]) return;
    painted = range;
    const frag = document.createDocumentFragment();
    for (let i = range[0]; i < range[1]; i++) {
      const code = el("span", { class: "code-line" });
      code.innerHTML = lineHtml(i) || " ";
      const row = el("div", { class: i === marked ? "code-row marked" : "code-row", "data-line": String(i + 1) }, el("span", { class: "code-ln" }, String(i + 1)), code);
      frag.append(row);
    }
    rows.style.transform = `translateY(${range[0] * LINE_HEIGHT}px)`;
    rows.replaceChildren(frag);
    scroller.dataset.first = String(range[0] + 1);
    scroller.dataset.last = String(range[1]);
  };
  let frame = 0;
  scroller.addEventListener("scroll", () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      paint();
    });
  });

  const goToLine = (line: number) => {
    const n = Math.min(Math.max(1, Math.round(line)), total);
    marked = n - 1;
    scroller.scrollTop = Math.max(0, (n - 1) * LINE_HEIGHT - (scroller.clientHeight || 600) / 3);
    paint(true);
  };

  // Go to line and find: the toolbar over the lines.
  const lineInput = el("input", { type: "number", min: "1", max: String(total), placeholder: "Line", class: "code-goto", "data-testid": "code-goto", "aria-label": "Go to line" }) as HTMLInputElement;
  lineInput.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && lineInput.value) goToLine(Number(lineInput.value));
  });
  const findInput = el("input", { type: "search", placeholder: "Find", class: "code-find", "data-testid": "code-find", "aria-label": "Find in file" }) as HTMLInputElement;
  const count = el("span", { class: "muted", "data-testid": "code-find-count" });
  let hits: number[] = [];
  let at = -1;
  const show = (k: number) => {
    if (!hits.length) return;
    at = (k + hits.length) % hits.length;
    count.textContent = `${at + 1} of ${hits.length}`;
    goToLine(hits[at] + 1);
  };
  findInput.addEventListener("input", () => {
    hits = findLines(lines, findInput.value);
    at = -1;
    count.textContent = findInput.value ? (hits.length ? `${hits.length} lines` : "no match") : "";
  });
  findInput.addEventListener("keydown", (e) => {
    if (e.key === "Enter") show(e.shiftKey ? at - 1 : at + 1);
  });
  const step = (label: string, testid: string, d: number) => {
    const b = el("button", { type: "button", "data-testid": testid, title: d > 0 ? "Next match" : "Previous match" }, label);
    b.addEventListener("click", () => show(at + d));
    return b;
  };
  const toolbar = el("div", { class: "viewer-toolbar code-toolbar" }, lineInput, findInput, step("↑", "code-find-prev", -1), step("↓", "code-find-next", 1), count, el("span", { class: "muted" }, `${total.toLocaleString()} lines`));
  const node = el("div", { class: "viewer-code-wrap" }, toolbar, scroller);

  // Paint once the scroller has a size (it is attached after we return).
  const ro = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => paint(true));
  ro?.observe(scroller);
  queueMicrotask(() => (opts.line ? goToLine(opts.line) : paint(true)));
  paint(true);
  return { node, goToLine, paint: () => paint(true) };
}

/** Lines with numbers; `data-line` on each rendered row for go-to-line. */
export function codeView(text: string, language?: string, opts: CodeViewOptions = {}): HTMLElement {
  return codeViewHandle(text, language, opts).node;
}
