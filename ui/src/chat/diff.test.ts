import { describe, expect, it } from "vitest";
import { renderDiff } from "./diff";

describe("renderDiff", () => {
  it("marks added and removed lines with counts", () => {
    const { node, stats } = renderDiff("a\nb\nc\n", "a\nB\nc\nd\n");
    const rows = Array.from(node.children).map((r) => [r.className, r.textContent]);
    expect(rows).toEqual([
      ["diff-ctx", "  a"],
      ["diff-del", "- b"],
      ["diff-add", "+ B"],
      ["diff-ctx", "  c"],
      ["diff-add", "+ d"],
    ]);
    expect(stats).toEqual({ added: 2, removed: 1 });
  });

  it("shows a new file as all additions", () => {
    const { stats, node } = renderDiff("", "one\ntwo\n");
    expect(stats).toEqual({ added: 2, removed: 0 });
    expect(node.textContent).toBe("+ one+ two");
  });

  it("folds long unchanged runs", () => {
    const old = Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const changed = old.replace("line 25\n", "LINE 25\n");
    const { node } = renderDiff(old, changed);
    const text = Array.from(node.children).map((r) => r.textContent);
    expect(text).toContain("⋯ 22 unchanged lines");
    expect(text).toContain("⋯ 21 unchanged lines");
    expect(text).toContain("- line 25");
    expect(text).toContain("+ LINE 25");
    expect(text.length).toBeLessThan(15);
  });
});
