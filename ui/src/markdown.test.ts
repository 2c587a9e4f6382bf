// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "./markdown";

describe("Markdown", () => {
  it("renders math with KaTeX, inline and display", () => {
    const html = renderMarkdown("Euler: $e^{i\\pi} + 1 = 0$\n\n$$\\int_0^1 x\\,dx$$\n");
    expect(html).toContain('class="katex"');
    expect(html).toContain("katex-display");
    expect(html).not.toContain("$e^");
  });

  it("leaves prices alone", () => {
    expect(renderMarkdown("It costs $5 and $10 today.")).toContain("$5 and $10");
  });

  it("highlights fenced code and keeps it escaped", () => {
    const html = renderMarkdown("```rust\nfn main() { let x = \"<b>\"; }\n```\n");
    expect(html).toContain('class="hljs-keyword"');
    expect(html).toContain("&lt;b&gt;");
    expect(html).not.toContain("<b>");
  });

  it("renders footnotes, task lists and strikethrough", () => {
    const html = renderMarkdown("Claim[^1] ~~old~~\n\n- [x] done\n- [ ] open\n\n[^1]: The source.\n");
    expect(html).toContain("<del>old</del>");
    expect(html).toContain('type="checkbox"');
    expect(html).toContain("The source.");
    expect(html).toMatch(/footnote/);
  });

  it("still strips script and handlers", () => {
    const html = renderMarkdown("<img src=x onerror=alert(1)> <script>alert(2)</script> $x$");
    expect(html).not.toContain("onerror");
    expect(html).not.toContain("<script");
  });
});
