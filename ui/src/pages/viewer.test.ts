// @vitest-environment jsdom
import { describe, expect, it, vi } from "vitest";
import type { LatexView, ViewInfo, ViewerChanged } from "../bindings";
import { disposeViewer, mountViewer, type ViewerApi } from "./viewer";

// jsdom has no blob URLs.
URL.createObjectURL = vi.fn(() => "blob:test");
URL.revokeObjectURL = vi.fn();

const flush = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
};

function fakeApi(info: ViewInfo, over: Partial<ViewerApi> = {}) {
  let emit: (c: ViewerChanged) => void = () => undefined;
  const api = {
    viewerOpen: vi.fn(async () => info),
    viewFile: vi.fn(async () => "line one\nline two\nline three\n"),
    viewerOutline: vi.fn(async () => []),
    htmlServe: vi.fn(async () => "skald-html://localhost/t1/index.html"),
    // SVGs are bytes; code and text come as bytes of what viewFile says.
    viewerBytes: vi.fn(async (p: string) =>
      p.endsWith(".svg") ? (new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>").buffer as ArrayBuffer) : (new TextEncoder().encode(await api.viewFile(p)).buffer as ArrayBuffer),
    ),
    pdfInfo: vi.fn(async () => ({ pages: [1, 2, 3, 4].map(() => ({ width: 612, height: 792 })) })),
    pdfPage: vi.fn(async () => new Uint8Array([137, 80, 78, 71]).buffer as ArrayBuffer),
    pdfFind: vi.fn(async () => [{ page: 2, count: 1, snippet: "page 3 says gamma" }]),
    pdfText: vi.fn(async () => [{ text: "Page one words", x: 72, y: 100, width: 200, height: 10 }]),
    latexCompile: vi.fn(),
    latexForward: vi.fn(async () => null),
    latexInverse: vi.fn(async () => null),
    viewerWatch: vi.fn(async () => 7),
    viewerUnwatch: vi.fn(async () => undefined),
    onViewerChanged: vi.fn(async (h: (c: ViewerChanged) => void) => {
      emit = h;
      return () => undefined;
    }),
    ...over,
  } as unknown as ViewerApi & { viewFile: (p: string) => Promise<string> };
  return { api, emit: (c: ViewerChanged) => emit(c) };
}

const root = () => document.createElement("div");

describe("the viewer", () => {
  it("shows code with line numbers and watches the file", async () => {
    const r = root();
    const { api } = fakeApi({ path: "/w/main.rs", kind: { kind: "code", language: "rust" }, size: 30 });
    await mountViewer(r, "main.rs", { api });
    const code = r.querySelector("[data-testid=viewer-code]") as HTMLElement;
    expect(code.dataset.lines).toBe("3");
    expect(Array.from(r.querySelectorAll(".code-ln")).map((n) => n.textContent)).toEqual(["1", "2", "3"]);
    expect(code.className).toContain("language-rust");
    expect(api.viewerWatch).toHaveBeenCalledWith(["/w/main.rs"], undefined);
  });

  it("lists a code file's outline beside it; a click goes to the definition", async () => {
    const r = root();
    document.body.append(r);
    const text = Array.from({ length: 400 }, (_, i) => (i === 299 ? "fn target() {}" : `// ${i + 1}`)).join("\n");
    const { api } = fakeApi(
      { path: "/w/lib.rs", kind: { kind: "code", language: "rust" }, size: text.length },
      {
        viewFile: vi.fn(async () => text),
        viewerOutline: vi.fn(async () => [
          { name: "Top", kind: "struct", line: 1, endLine: 1, depth: 0 },
          { name: "target", kind: "function", line: 300, endLine: 300, depth: 1 },
        ]),
      },
    );
    await mountViewer(r, "lib.rs", { api });
    await flush();
    const items = r.querySelectorAll<HTMLButtonElement>("[data-testid=viewer-outline] .outline-item");
    expect(Array.from(items).map((b) => b.textContent)).toEqual(["struct Top", "function target"]);
    items[1].click();
    const marked = r.querySelector(".code-row.marked");
    expect(marked?.getAttribute("data-line")).toBe("300");
    expect(marked?.textContent).toContain("fn target() {}");
    r.remove();
    disposeViewer();
  });

  it("renders Markdown sanitised, with a toggle to source", async () => {
    const r = root();
    const { api } = fakeApi(
      { path: "/w/a.md", kind: { kind: "markdown" }, size: 10 },
      { viewFile: vi.fn(async () => "| a | b |\n|---|---|\n| 1 | 2 |\n\n<img src=x onerror=alert(1)>") },
    );
    await mountViewer(r, "a.md", { api });
    expect(r.querySelector("table")).not.toBeNull();
    expect(r.innerHTML).not.toContain("onerror");
    (r.querySelector("[data-testid=viewer-toggle]") as HTMLButtonElement).click();
    expect(r.querySelector("[data-testid=viewer-code]")).not.toBeNull();
  });

  it("shows SVG as an image, never as live markup", async () => {
    const r = root();
    const { api } = fakeApi({ path: "/w/logo.svg", kind: { kind: "svg" }, size: 40 });
    await mountViewer(r, "logo.svg", { api });
    const img = r.querySelector("[data-testid=viewer-image]") as HTMLImageElement;
    expect(img.tagName).toBe("IMG");
    expect(r.querySelector("svg")).toBeNull();
  });

  it("puts HTML in a sandboxed iframe without same-origin", async () => {
    const r = root();
    const { api } = fakeApi({ path: "/w/site/index.html", kind: { kind: "html" }, size: 40 });
    await mountViewer(r, "index.html", { api });
    const frame = r.querySelector("[data-testid=viewer-html]") as HTMLIFrameElement;
    expect(frame.getAttribute("sandbox")).toBe("allow-scripts");
    expect(frame.getAttribute("src")).toBe("skald-html://localhost/t1/index.html");
    disposeViewer();
  });

  it("says a binary file is binary", async () => {
    const r = root();
    const { api } = fakeApi({ path: "/w/a.bin", kind: { kind: "binary" }, size: 99 });
    await mountViewer(r, "a.bin", { api });
    expect(r.querySelector("[data-testid=viewer-binary]")?.textContent).toContain("binary file (99 bytes)");
  });

  it("lays out every PDF page, renders lazily and finds text", async () => {
    const r = root();
    document.body.append(r);
    const { api } = fakeApi({ path: "/w/doc.pdf", kind: { kind: "pdf" }, size: 1000 });
    await mountViewer(r, "doc.pdf", { api });
    await flush();
    expect(r.querySelectorAll(".pdf-page")).toHaveLength(4);
    // Not every page at once.
    expect((api.pdfPage as ReturnType<typeof vi.fn>).mock.calls.length).toBeLessThan(4);
    const find = r.querySelector("[data-testid=pdf-find]") as HTMLInputElement;
    find.value = "gamma";
    find.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    await flush();
    expect(api.pdfFind).toHaveBeenCalledWith("/w/doc.pdf", "gamma");
    expect((r.querySelector("[data-testid=pdf-page-input]") as HTMLInputElement).value).toBe("3");
    expect(api.pdfPage).toHaveBeenCalledWith("/w/doc.pdf", 2, expect.any(Number));
    r.remove();
    disposeViewer();
  });

  it("shows LaTeX errors over the last good PDF and reloads when an input changes", async () => {
    const r = root();
    const failed: LatexView = {
      pdf: "/cache/good.pdf",
      fromCache: false,
      millis: 0,
      inputs: ["/w/main.tex", "/w/ch.tex"],
      errors: [{ file: "/w/ch.tex", line: 4, message: "Undefined control sequence \\foo" }],
      failure: null,
    };
    const good: LatexView = { ...failed, errors: [], millis: 900 };
    const latexCompile = vi.fn().mockResolvedValueOnce(failed).mockResolvedValueOnce(good);
    const { api, emit } = fakeApi({ path: "/w/main.tex", kind: { kind: "latex" }, size: 100 }, { latexCompile });
    await mountViewer(r, "main.tex", { api });
    await flush();
    const banner = r.querySelector("[data-testid=viewer-banner]") as HTMLElement;
    expect(banner.hidden).toBe(false);
    expect(banner.textContent).toContain("/w/ch.tex:4: Undefined control sequence \\foo");
    expect(banner.textContent).toContain("last good PDF");
    expect(api.pdfInfo).toHaveBeenCalledWith("/cache/good.pdf");
    expect(api.viewerWatch).toHaveBeenCalledWith(["/w/main.tex", "/w/ch.tex"], undefined);

    emit({ watch: 7, path: "/w/ch.tex", exists: true });
    await flush();
    expect(latexCompile).toHaveBeenCalledTimes(2);
    expect(banner.hidden).toBe(true);
    expect(r.querySelector("[data-testid=viewer-status]")?.textContent).toBe("Compiled in 0.9 s");
    // Another view's watch is not ours.
    emit({ watch: 8, path: "/w/ch.tex", exists: true });
    await flush();
    expect(latexCompile).toHaveBeenCalledTimes(2);
    disposeViewer();
    expect(api.viewerUnwatch).toHaveBeenCalledWith(7);
  });

  it("syncs LaTeX both ways: a line to its spot in the PDF, a Ctrl+click to the source", async () => {
    const r = root();
    document.body.append(r);
    const good: LatexView = { pdf: "/cache/good.pdf", fromCache: true, millis: 1, inputs: ["/w/main.tex", "/w/ch.tex"], errors: [], failure: null };
    const latexForward = vi.fn(async () => ({ page: 2, x: 133, y: 300, width: 340, height: 8 }));
    const latexInverse = vi.fn(async () => ({ file: "/w/ch.tex", line: 12 }));
    const { api } = fakeApi({ path: "/w/main.tex", kind: { kind: "latex" }, size: 100 }, { latexCompile: vi.fn(async () => good), latexForward, latexInverse });
    await mountViewer(r, "main.tex", { api }, { line: 12, input: "/w/ch.tex" });
    await flush();
    expect(latexForward).toHaveBeenCalledWith("/w/main.tex", "/w/ch.tex", 12);
    expect(r.querySelector("[data-testid=pdf-spot]")?.getAttribute("data-page")).toBe("2");
    const page2 = r.querySelector("[data-testid=pdf-page-2]") as HTMLElement;
    page2.getBoundingClientRect = () => ({ left: 0, top: 0, width: 306, height: 396, right: 306, bottom: 396, x: 0, y: 0, toJSON: () => ({}) });
    page2.dispatchEvent(new MouseEvent("click", { clientX: 153, clientY: 198, ctrlKey: true, bubbles: true }));
    await flush();
    // Half the page's 612 × 792 points.
    expect(latexInverse).toHaveBeenCalledWith("/w/main.tex", 2, 306, 396);
    expect(decodeURIComponent(location.hash)).toContain("path=/w/ch.tex&line=12&as=source&doc=/w/main.tex");
    r.remove();
    disposeViewer();
  });

  it("shows a LaTeX file as source with a way back to its place in the PDF", async () => {
    const r = root();
    document.body.append(r);
    const { api } = fakeApi(
      { path: "/w/ch.tex", kind: { kind: "latex" }, size: 100 },
      { viewFile: vi.fn(async () => Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n")) },
    );
    await mountViewer(r, "ch.tex", { api }, { source: true, line: 12, doc: "/w/main.tex" });
    await flush();
    expect(api.latexCompile).not.toHaveBeenCalled();
    expect(r.querySelector(".code-row.marked")?.getAttribute("data-line")).toBe("12");
    (r.querySelector("[data-testid=latex-to-pdf]") as HTMLButtonElement).click();
    expect(decodeURIComponent(location.hash)).toContain("path=/w/main.tex&line=12&input=/w/ch.tex");
    r.remove();
    disposeViewer();
  });

  it("notes a deleted file and reloads when it is back", async () => {
    const r = root();
    const { api, emit } = fakeApi({ path: "/w/notes.txt", kind: { kind: "text" }, size: 5 });
    await mountViewer(r, "notes.txt", { api });
    emit({ watch: 7, path: "/w/notes.txt", exists: false });
    await flush();
    const status = r.querySelector("[data-testid=viewer-status]") as HTMLElement;
    expect(status.textContent).toContain("deleted");
    expect(api.viewFile).toHaveBeenCalledTimes(1);
    emit({ watch: 7, path: "/w/notes.txt", exists: true });
    await flush();
    expect(api.viewFile).toHaveBeenCalledTimes(2);
    expect(status.dataset.state).toBe("reloaded");
    disposeViewer();
  });

  it("a change on disk updates only the view's content: title, toolbar and the chosen toggle stay", async () => {
    const r = root();
    document.body.append(r);
    const viewFile = vi.fn().mockResolvedValueOnce("# First\n").mockResolvedValue("# Second\n\nmore\n");
    const { api, emit } = fakeApi({ path: "/w/n.md", kind: { kind: "markdown" }, size: 9 }, { viewFile });
    await mountViewer(r, "n.md", { api });
    const title = r.querySelector(".viewer-title");
    const toggle = r.querySelector("[data-testid=viewer-toggle]") as HTMLButtonElement;
    expect(r.querySelector("[data-testid=viewer-markdown] h1")?.textContent).toBe("First");
    toggle.click();
    expect(r.querySelector("[data-testid=viewer-code]")?.textContent).toContain("# First");
    emit({ watch: 7, path: "/w/n.md", exists: true });
    await flush();
    expect(viewFile).toHaveBeenCalledTimes(2);
    expect(api.viewerOpen).toHaveBeenCalledTimes(1);
    expect(r.querySelector(".viewer-title")).toBe(title);
    expect(r.querySelector("[data-testid=viewer-toggle]")).toBe(toggle);
    // Still on Source, now showing the new text.
    expect(r.querySelector("[data-testid=viewer-code]")?.textContent).toContain("more");
    expect((r.querySelector("[data-testid=viewer-code]") as HTMLElement).dataset.lines).toBe("3");
    toggle.click();
    expect(r.querySelector("[data-testid=viewer-markdown] h1")?.textContent).toBe("Second");
    expect((r.querySelector("[data-testid=viewer-status]") as HTMLElement).dataset.changes).toBe("1");
    r.remove();
    disposeViewer();
  });

  it("leaving the page ends its listener and watch, even before the first load finished", async () => {
    const stops: number[] = [];
    let release: (v: ViewInfo) => void = () => undefined;
    const { api } = fakeApi({ path: "/w/a.txt", kind: { kind: "text" }, size: 1 }, {
      viewerOpen: vi.fn(() => new Promise<ViewInfo>((res) => (release = res))),
      onViewerChanged: vi.fn(async () => () => void stops.push(1)),
    });
    const r = root();
    const mounted = mountViewer(r, "a.txt", { api });
    disposeViewer();
    await mounted;
    release({ path: "/w/a.txt", kind: { kind: "text" }, size: 1 });
    await flush();
    // Ended before it opened: it never listens or watches.
    expect(api.onViewerChanged).not.toHaveBeenCalled();
    expect(api.viewerWatch).not.toHaveBeenCalled();
    expect(r.textContent).toBe("");

    const { api: api2 } = fakeApi({ path: "/w/b.txt", kind: { kind: "text" }, size: 1 }, { onViewerChanged: vi.fn(async () => () => void stops.push(2)) });
    await mountViewer(r, "b.txt", { api: api2 });
    expect(api2.viewerWatch).toHaveBeenCalledTimes(1);
    // Another file on the page replaces this one: its watch and listener end.
    const { api: api3 } = fakeApi({ path: "/w/c.txt", kind: { kind: "text" }, size: 1 });
    await mountViewer(r, "c.txt", { api: api3 });
    expect(stops).toEqual([2]);
    expect(api2.viewerUnwatch).toHaveBeenCalledWith(7);
    disposeViewer();
    expect(api3.viewerUnwatch).toHaveBeenCalledWith(7);
  });

  it("shows the policy's refusal", async () => {
    const r = root();
    const { api } = fakeApi({ path: "", kind: { kind: "text" }, size: 0 }, {
      viewerOpen: vi.fn(async () => {
        throw { code: "invalidInput", message: "access denied: tools may not read or write paths under secrets/" };
      }),
    });
    await mountViewer(r, "secrets/key", { api });
    expect(r.querySelector("[role=alert]")?.textContent).toContain("secrets/");
  });
});
