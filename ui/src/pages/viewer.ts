// The file viewer: asks the backend what the file is, shows it by kind, and
// watches it (a LaTeX document: all its inputs) so it reloads in place when
// the agent or the person changes it, keeping page, zoom and scroll.
import { el } from "../dom";
import * as api from "../api";
import type { LatexView, ViewInfo, ViewerChanged } from "../bindings";
import { codeView, imageView, markdownView, note, svgView, toggle } from "../viewer/kinds";
import { codeViewHandle } from "../viewer/code";
import { outlineList } from "../viewer/outline";
import { recentFiles, rememberFile } from "../viewer/recent";
import { pdfView, type PdfOptions, type PdfPlace, type PdfView } from "../viewer/pdf";

export type ViewerApi = Pick<
  typeof api,
  "viewerOpen" | "viewFile" | "viewerOutline" | "latexForward" | "latexInverse" | "htmlServe" | "viewerBytes" | "pdfInfo" | "pdfPage" | "pdfFind" | "pdfText" | "latexCompile" | "viewerWatch" | "viewerUnwatch" | "onViewerChanged"
>;

/** The page in an iframe without allow-same-origin: an opaque origin with
 *  no way to its parent, the IPC or other files (the protocol's CSP). */
export function htmlFrame(url: string): HTMLIFrameElement {
  const f = el("iframe", { class: "viewer-html", "data-testid": "viewer-html", sandbox: "allow-scripts", referrerpolicy: "no-referrer", src: url });
  f.title = "HTML page";
  return f;
}

let disposeCurrent: (() => void) | null = null;

/** Ends the open view's watch (the router calls it when leaving the page). */
export function disposeViewer(): void {
  disposeCurrent?.();
  disposeCurrent = null;
}

export interface ViewerOptions {
  /** 1-based line to show: in a code or text file, or (SyncTeX forward) in
   *  a LaTeX document's PDF. */
  line?: number;
  /** Show a LaTeX file as its source instead of its PDF. */
  source?: boolean;
  /** The LaTeX document a source file belongs to (for "Show in PDF"). */
  doc?: string;
  /** The file `line` is in when it is not the document itself (an \input). */
  input?: string;
  /** The native Open dialog (the start page's button). */
  openDialog?: () => void;
  /** For a viewer the caller owns (the side panel): it gets the disposer
   *  and the page's viewer (disposeViewer) is left alone. */
  own?: (dispose: () => void) => void;
}

/** The route that opens `path` in the viewer. */
export function viewHash(path: string, o: Omit<ViewerOptions, "openDialog"> = {}): string {
  const q = new URLSearchParams({ path });
  if (o.line && o.line > 0) q.set("line", String(o.line));
  if (o.source) q.set("as", "source");
  if (o.doc) q.set("doc", o.doc);
  if (o.input) q.set("input", o.input);
  return `#/view?${q.toString()}`;
}

/** The viewer without a file: open one, or one of the recent ones. */
function startPage(root: HTMLElement, opts: ViewerOptions): void {
  const open = el("button", { type: "button", "data-testid": "viewer-open-dialog" }, "Open a file… (Ctrl+O)");
  open.addEventListener("click", () => opts.openDialog?.());
  const recent = recentFiles();
  root.replaceChildren(
    el("h1", { class: "viewer-title" }, "Files"),
    el("p", { class: "muted" }, "Open a file, drop one on the window, or run skald-app FILE."),
    open,
    recent.length
      ? el("section", { class: "recent-files" }, el("h2", {}, "Recent"), el("ul", { "data-testid": "recent-files" }, ...recent.map((p) => el("li", {}, el("a", { href: `#/view?path=${encodeURIComponent(p)}` }, p)))))
      : el("p", { class: "muted" }, "No files opened yet."),
  );
}

export async function mountViewer(root: HTMLElement, path: string, deps: { api: ViewerApi } = { api }, opts: ViewerOptions = {}): Promise<void> {
  if (!opts.own) disposeViewer();
  if (!path) return startPage(root, opts);
  const a = deps.api;
  const status = el("div", { class: "viewer-status muted", "data-testid": "viewer-status", role: "status" });
  const banner = el("div", { class: "viewer-banner", "data-testid": "viewer-banner", hidden: "" });
  const body = el("div", { class: "viewer-content", "data-testid": "viewer-content" });
  root.replaceChildren(el("h1", { class: "viewer-title" }, path), status, banner, body);
  status.textContent = "Loading…";

  let info: ViewInfo;
  try {
    info = await a.viewerOpen(path);
    // Marks for the first-paint figure (the viewer E2E reads them).
    performance.mark("skald:viewer-opened");
    rememberFile(info.path);
  } catch (e) {
    status.textContent = "";
    body.replaceChildren(el("p", { class: "error", role: "alert" }, api.errorMessage(e)));
    return;
  }
  const urls: string[] = [];
  let pdf: PdfView | null = null;
  let place: PdfPlace | undefined;
  let watch: number | undefined;
  let disposed = false;
  let unlisten: (() => void) | null = null;

  const showBanner = (items: (Node | string)[]) => {
    banner.hidden = items.length === 0;
    banner.replaceChildren(...items);
  };

  const latexBanner = (v: LatexView): (Node | string)[] => {
    if (v.failure) return [el("strong", {}, v.failure)];
    if (v.errors.length === 0) return [];
    return [
      el("strong", {}, v.pdf ? "LaTeX failed; showing the last good PDF." : "LaTeX failed."),
      el(
        "ul",
        { "data-testid": "latex-errors" },
        ...v.errors.map((e) => {
          const at = e.file ? `${e.file}${e.line ? `:${e.line}` : ""}: ` : "";
          const item = el("li", {}, at + e.message);
          if (e.file) {
            const link = el("a", { href: viewHash(e.file, { line: e.line ?? undefined, source: true, doc: info.path }), class: "latex-error-link" }, "open");
            item.append(" ", link);
          }
          return item;
        }),
      ),
    ];
  };

  const showPdf = async (pdfPath: string, pdfOpts: PdfOptions = {}) => {
    const keep = pdf?.place() ?? place;
    pdf?.dispose();
    pdf = await pdfView(pdfPath, a, keep, pdfOpts);
    body.replaceChildren(pdf.node);
  };
  // SyncTeX: a point in the PDF opens the source line that made it.
  const inverse = (page: number, x: number, y: number) => {
    void a
      .latexInverse(info.path, page, x, y)
      .then((s) => {
        if (s) location.hash = viewHash(s.file, { line: s.line, source: true, doc: info.path });
        else status.textContent = "No source line there.";
      })
      .catch((e) => (status.textContent = api.errorMessage(e)));
  };
  let synced = false;

  // Code and text come as raw bytes (no JSON string escaping over IPC:
  // a 4 MB file arrives several times faster) and are decoded here.
  const rawText = async (p: string) => {
    const bytes = await a.viewerBytes(p);
    performance.mark("skald:viewer-bytes");
    return new TextDecoder().decode(bytes);
  };

  /** Renders the file; returns the files to watch. */
  const render = async (): Promise<string[]> => {
    const kind = info.kind;
    const scroll = root.scrollTop;
    // A reload keeps the code view where it was; the first paint honours ?line=.
    const codeTop = body.querySelector<HTMLElement>("[data-testid=viewer-code]")?.scrollTop;
    const at = codeTop === undefined ? { line: opts.line } : {};
    switch (kind.kind) {
      case "markdown":
        body.replaceChildren(markdownView(await a.viewFile(info.path)));
        break;
      case "code": {
        // The lines first; the outline joins beside them when it arrives.
        const outline = a.viewerOutline(info.path).catch(() => []);
        const h = codeViewHandle(await rawText(info.path), kind.language, at);
        performance.mark("skald:viewer-built");
        const wrap = el("div", { class: "viewer-with-outline" }, h.node);
        body.replaceChildren(wrap);
        void outline.then((entries) => {
          if (!disposed && entries.length && wrap.isConnected) wrap.prepend(outlineList(entries, h.goToLine));
        });
        break;
      }
      case "text":
        body.replaceChildren(codeView(await rawText(info.path), undefined, at));
        break;
      case "html": {
        const [url, text] = await Promise.all([a.htmlServe(info.path), a.viewFile(info.path)]);
        body.replaceChildren(toggle(["Page", "Source"], [() => htmlFrame(url), () => codeView(text, "html")]));
        break;
      }
      case "image":
        body.replaceChildren(imageView(await a.viewerBytes(info.path), kind.mime, urls));
        break;
      case "svg":
        body.replaceChildren(svgView(await a.viewerBytes(info.path), urls));
        break;
      case "pdf":
        await showPdf(info.path);
        break;
      case "latex": {
        if (opts.source) {
          const h = codeViewHandle(await a.viewFile(info.path), "latex", at);
          const toPdf = el("button", { type: "button", "data-testid": "latex-to-pdf", title: "SyncTeX: the marked line's place in the PDF" }, "Show in PDF");
          toPdf.addEventListener("click", () => {
            const line = Number(body.querySelector<HTMLElement>(".code-row.marked")?.dataset.line ?? opts.line ?? 1);
            location.hash = viewHash(opts.doc ?? info.path, { line, input: info.path });
          });
          body.replaceChildren(el("div", { class: "viewer-toolbar" }, toPdf), h.node);
          break;
        }
        status.textContent = "Compiling…";
        const v = await a.latexCompile(info.path);
        showBanner(latexBanner(v));
        if (v.pdf) {
          await showPdf(v.pdf, { onPointClick: inverse });
          const source = el("a", { href: viewHash(info.path, { source: true }), "data-testid": "latex-source" }, "Source");
          pdf?.node.querySelector(".viewer-toolbar")?.append(source);
          // SyncTeX forward, once: ?line= names a source line to show.
          if (opts.line && !synced && !v.failure) {
            synced = true;
            const spot = await a.latexForward(info.path, opts.input ?? info.path, opts.line).catch(() => null);
            if (spot) pdf?.showSpot(spot.page, spot.y, spot.height);
          }
        } else {
          body.replaceChildren(toggle(["Errors", "Source"], [() => note("No PDF yet."), () => codeView("", "latex")]));
        }
        status.textContent = v.failure || v.errors.length ? "" : v.fromCache ? "From cache" : `Compiled in ${(v.millis / 1000).toFixed(1)} s`;
        root.scrollTop = scroll;
        return v.inputs.length ? v.inputs : [info.path];
      }
      case "binary":
        body.replaceChildren(note(`${info.path} is a binary file (${info.size} bytes); the viewer does not show its bytes.`, "viewer-binary"));
        break;
    }
    status.textContent = "";
    root.scrollTop = scroll;
    const code = body.querySelector<HTMLElement>("[data-testid=viewer-code]");
    if (code && codeTop) code.scrollTop = codeTop;
    return [info.path];
  };

  let rendering: Promise<void> = Promise.resolve();
  const refresh = () => {
    rendering = rendering.then(async () => {
      if (disposed) return;
      try {
        const files = await render();
        if (disposed) return;
        watch = await a.viewerWatch(files, watch);
      } catch (e) {
        status.textContent = "";
        showBanner([el("strong", {}, api.errorMessage(e))]);
      }
    });
    return rendering;
  };

  const onChange = (c: ViewerChanged) => {
    if (disposed || c.watch !== watch) return;
    // How many changes this view followed (tests and bug reports read it).
    status.dataset.changes = String(Number(status.dataset.changes ?? 0) + 1);
    status.dataset.changed = `${c.path} ${c.exists}`;
    if (!c.exists) {
      status.textContent = c.path === info.path ? "This file was deleted; showing it as it was." : `${c.path} was deleted.`;
      status.dataset.state = "deleted";
      if (info.kind.kind !== "latex" || c.path === info.path) return;
    }
    status.dataset.state = "reloading";
    void refresh().then(() => {
      if (!disposed) status.dataset.state = "reloaded";
    });
  };

  const dispose = () => {
    disposed = true;
    unlisten?.();
    pdf?.dispose();
    for (const u of urls) URL.revokeObjectURL(u);
    if (watch !== undefined) void a.viewerUnwatch(watch).catch(() => undefined);
  };
  if (opts.own) opts.own(dispose);
  else disposeCurrent = dispose;
  try {
    const stop = await a.onViewerChanged(onChange);
    if (disposed) stop();
    else unlisten = stop;
  } catch {
    // Without events the view still shows; it just does not follow edits.
  }
  await refresh();
}
