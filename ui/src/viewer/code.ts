// The code view's arithmetic: lines, the window of lines worth rendering for
// a scroll position, find, and highlighting a block of lines at a time (the
// component is code_view.tsx).
import { highlightHtml, splitHighlightedLines } from "./highlight";

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

/** Highlighted HTML of line `i`, computed a block at a time on first use:
 *  only blocks that scroll into view are ever highlighted. */
export function blockHighlighter(lines: string[], language?: string): (i: number) => string {
  const blockSize = lines.length <= SINGLE_BLOCK ? SINGLE_BLOCK : BLOCK;
  const blocks = new Map<number, string[]>();
  return (i) => {
    const b = Math.floor(i / blockSize);
    let html = blocks.get(b);
    if (!html) {
      const src = lines.slice(b * blockSize, (b + 1) * blockSize).join("\n");
      html = splitHighlightedLines(highlightHtml(src, language));
      blocks.set(b, html);
    }
    return html[i - b * blockSize] ?? "";
  };
}
