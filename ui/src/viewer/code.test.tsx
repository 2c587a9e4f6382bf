// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { render } from "solid-js/web";
import { createSignal } from "solid-js";
import { findLines, LINE_HEIGHT, splitLines, visibleRange } from "./code";
import { type CodeHandle, CodeView } from "./code_view";
import { highlightHtml, splitHighlightedLines } from "./highlight";
import { MAX_SHOWN, Outline } from "./outline";

/** Mounts a code view; `h.node` is its container, `h.dispose` ends it. */
function codeViewHandle(text: string, language?: string) {
  const node = document.createElement("div");
  document.body.append(node);
  let handle!: CodeHandle;
  const dispose = render(() => <CodeView text={text} language={language} ref={(h) => (handle = h)} />, node);
  return { node, goToLine: (l: number) => handle.goToLine(l), dispose };
}

describe("highlighted lines", () => {
  it("keeps a multi-line comment coloured on every line it spans", () => {
    const html = highlightHtml("let a = 1; /* one\ntwo\nthree */ let b;", "rust");
    const lines = splitHighlightedLines(html);
    expect(lines).toHaveLength(3);
    for (const l of lines) {
      // Every line is balanced on its own, so it can be rendered alone.
      expect((l.match(/<span/g) ?? []).length).toBe((l.match(/<\/span>/g) ?? []).length);
    }
    expect(lines[1]).toContain('class="hljs-comment"');
    expect(lines[1]).toContain("two");
    expect(lines[0]).toContain('class="hljs-keyword"');
  });

  it("escapes text in languages it does not know", () => {
    expect(highlightHtml("<script>x</script>", "no-such-language")).toBe("&lt;script&gt;x&lt;/script&gt;");
  });
});

describe("the virtualised code view", () => {
  it("renders only the lines around the visible window of a 100,000-line file", () => {
    const text = Array.from({ length: 100_000 }, (_, i) => `fn f${i}() {}`).join("\n");
    const h = codeViewHandle(text, "rust");
    const rows = h.node.querySelectorAll(".code-row");
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(200);
    const scroller = h.node.querySelector("[data-testid=viewer-code]") as HTMLElement;
    expect(scroller.dataset.lines).toBe("100000");
    expect((scroller.firstElementChild as HTMLElement).style.height).toBe(`${100_000 * LINE_HEIGHT}px`);
    h.goToLine(100_000);
    const last = h.node.querySelector("[data-line='100000']") as HTMLElement;
    expect(last.className).toContain("marked");
    expect(last.textContent).toContain("fn f99999() {}");
    expect(h.node.querySelectorAll(".code-row").length).toBeLessThan(200);
    h.dispose();
    h.node.remove();
  });

  it("finds lines and steps through the matches", () => {
    const h = codeViewHandle("alpha\nbeta\nALPHA two\ngamma\n", "text");
    const find = h.node.querySelector("[data-testid=code-find]") as HTMLInputElement;
    find.value = "alpha";
    find.dispatchEvent(new Event("input"));
    expect(h.node.querySelector("[data-testid=code-find-count]")?.textContent).toBe("2 lines");
    (h.node.querySelector("[data-testid=code-find-next]") as HTMLButtonElement).click();
    (h.node.querySelector("[data-testid=code-find-next]") as HTMLButtonElement).click();
    expect(h.node.querySelector("[data-testid=code-find-count]")?.textContent).toBe("2 of 2");
    expect(h.node.querySelector(".code-row.marked")?.getAttribute("data-line")).toBe("3");
    h.dispose();
    h.node.remove();
  });

  it("takes a new text in place: the toolbar, what is typed in it and the scroll stay", () => {
    const node = document.createElement("div");
    document.body.append(node);
    const [text, setText] = createSignal("alpha\nbeta\n");
    const dispose = render(() => <CodeView text={text()} />, node);
    const find = node.querySelector("[data-testid=code-find]") as HTMLInputElement;
    find.value = "beta";
    find.dispatchEvent(new Event("input"));
    expect(node.querySelector("[data-testid=code-find-count]")?.textContent).toBe("1 lines");
    const firstRow = node.querySelector("[data-line='1']");
    setText("alpha\nbeta\ngamma beta\n");
    // Same input, same typed query, now counted over the new text.
    expect(node.querySelector("[data-testid=code-find]")).toBe(find);
    expect(find.value).toBe("beta");
    expect(node.querySelector("[data-testid=code-find-count]")?.textContent).toBe("2 lines");
    expect((node.querySelector("[data-testid=viewer-code]") as HTMLElement).dataset.lines).toBe("3");
    // Rows are keyed by line: line 1 is the same node with its text updated.
    expect(node.querySelector("[data-line='1']")).toBe(firstRow);
    expect(node.querySelector("[data-line='3']")?.textContent).toContain("gamma beta");
    dispose();
    node.remove();
  });

  it("computes its window and splits lines like the file has them", () => {
    expect(splitLines("a\nb\n")).toEqual(["a", "b"]);
    expect(splitLines("a\nb")).toEqual(["a", "b"]);
    expect(visibleRange(0, 10 * LINE_HEIGHT, 1000, 5)).toEqual([0, 15]);
    expect(visibleRange(500 * LINE_HEIGHT, 10 * LINE_HEIGHT, 505, 5)).toEqual([495, 505]);
    expect(findLines(["x", "Yx", "z"], "X")).toEqual([0, 1]);
    expect(findLines(["x"], "")).toEqual([]);
  });
});

describe("the outline list", () => {
  it("shows the first entries of a huge outline and filters all of them", async () => {
    const all = Array.from({ length: 100_000 }, (_, i) => ({ name: `f${i}`, kind: "function", line: i + 1, endLine: i + 1, depth: 0 }));
    const lines: number[] = [];
    const nav = document.createElement("div");
    render(() => <Outline entries={all} goToLine={(l) => lines.push(l)} />, nav);
    expect(nav.querySelectorAll(".outline-item")).toHaveLength(MAX_SHOWN);
    expect(nav.querySelector(".outline-more")?.textContent).toContain("100,000");
    const filter = nav.querySelector("input") as HTMLInputElement;
    filter.value = "f99999";
    filter.dispatchEvent(new Event("input"));
    const hits = nav.querySelectorAll<HTMLButtonElement>(".outline-item");
    expect(hits).toHaveLength(1);
    hits[0].click();
    expect(lines).toEqual([100_000]);
    // 2,000 buttons in a simulated DOM on a loaded machine take seconds; the webview takes milliseconds.
  }, 30_000);
});
