// A line diff of a pending write, for the approval card: what the file is
// now against what the tool would make it. Computed with jsdiff.
import { diffLines } from "diff";
import { el } from "../dom";

export interface DiffStats {
  added: number;
  removed: number;
}

function lines(value: string): string[] {
  const parts = value.split("\n");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/** Renders old → new as rows of `-`/`+`/` ` lines; long unchanged runs are folded. */
export function renderDiff(oldText: string, newText: string, context = 3): { node: HTMLElement; stats: DiffStats } {
  const stats: DiffStats = { added: 0, removed: 0 };
  const rows: HTMLElement[] = [];
  const changes = diffLines(oldText, newText);
  changes.forEach((part, i) => {
    const ls = lines(part.value);
    if (part.added || part.removed) {
      const sign = part.added ? "+" : "-";
      if (part.added) stats.added += ls.length;
      else stats.removed += ls.length;
      for (const l of ls) rows.push(el("div", { class: part.added ? "diff-add" : "diff-del" }, `${sign} ${l}`));
      return;
    }
    // Unchanged: keep `context` lines next to changes, fold the middle.
    const first = i === 0;
    const last = i === changes.length - 1;
    const keepHead = first ? 0 : context;
    const keepTail = last ? 0 : context;
    if (ls.length <= keepHead + keepTail + 1) {
      for (const l of ls) rows.push(el("div", { class: "diff-ctx" }, `  ${l}`));
      return;
    }
    for (const l of ls.slice(0, keepHead)) rows.push(el("div", { class: "diff-ctx" }, `  ${l}`));
    rows.push(el("div", { class: "diff-fold" }, `⋯ ${ls.length - keepHead - keepTail} unchanged lines`));
    for (const l of ls.slice(ls.length - keepTail)) rows.push(el("div", { class: "diff-ctx" }, `  ${l}`));
  });
  const node = el("div", { class: "diff", "data-testid": "diff" }, ...rows);
  return { node, stats };
}
