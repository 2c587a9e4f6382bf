// The file viewer: asks the backend what the file is, shows it by kind, and
// watches it (a LaTeX document: all its inputs) so it reloads in place when
// the agent or the person changes it, keeping page, zoom and scroll. A
// reload sets the view's content signal: only that view changes (the title,
// the toolbar and what is typed in it stay).
import { createSignal, type JSX, Match, onCleanup, Show, Switch } from "solid-js";
import * as api from "../api";
import type { LatexView, OutlineEntry, ViewerChanged, ViewInfo } from "../bindings";
import { mountSolid } from "../solid";
import { type CodeHandle, CodeView } from "../viewer/code_view";
import { HtmlFrame, ImageView, MarkdownView, Note, SvgView, Toggle } from "../viewer/kinds";
import { Outline } from "../viewer/outline";
import { type PdfHandle, type PdfPlace, PdfView } from "../viewer/pdf";
import { recentFiles, rememberFile } from "../viewer/recent";

export type ViewerApi = Pick<
  typeof api,
  "viewerOpen" | "viewFile" | "viewerOutline" | "latexForward" | "latexInverse" | "htmlServe" | "viewerBytes" | "pdfInfo" | "pdfPage" | "pdfFind" | "pdfText" | "latexCompile" | "viewerWatch" | "viewerUnwatch" | "onViewerChanged"
>;

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
export function viewHash(path: string, o: Omit<ViewerOptions, "openDialog" | "own"> = {}): string {
  const q = new URLSearchParams({ path });
  if (o.line && o.line > 0) q.set("line", String(o.line));
  if (o.source) q.set("as", "source");
  if (o.doc) q.set("doc", o.doc);
  if (o.input) q.set("input", o.input);
  return `#/view?${q.toString()}`;
}

/** What a load of the file gave; each kind's view reads its own. */
type Content =
  | { kind: "markdown"; text: string }
  | { kind: "code"; text: string; language?: string }
  | { kind: "text"; text: string }
  | { kind: "html"; url: string; text: string }
  | { kind: "image"; bytes: ArrayBuffer; mime: string }
  | { kind: "svg"; bytes: ArrayBuffer }
  | { kind: "pdf"; path: string }
  | { kind: "latex-source"; text: string }
  | { kind: "latex"; view: LatexView }
  | { kind: "binary" };

/** The viewer without a file: open one, or one of the recent ones. */
export function StartPage(props: { openDialog?: () => void }): JSX.Element {
  const recent = recentFiles();
  return (
    <>
      <h1 class="viewer-title">Files</h1>
      <p class="muted">Open a file, drop one on the window, or run skald-app FILE.</p>
      <button type="button" data-testid="viewer-open-dialog" on:click={() => props.openDialog?.()}>
        Open a file… (Ctrl+O)
      </button>
      <Show when={recent.length} fallback={<p class="muted">No files opened yet.</p>}>
        <section class="recent-files">
          <h2>Recent</h2>
          <ul data-testid="recent-files">
            {recent.map((p) => (
              <li>
                <a href={`#/view?path=${encodeURIComponent(p)}`}>{p}</a>
              </li>
            ))}
          </ul>
        </section>
      </Show>
    </>
  );
}

function LatexErrors(props: { view: LatexView; doc: string }): JSX.Element {
  return (
    <Show when={props.view.failure} fallback={
      <>
        <strong>{props.view.pdf ? "LaTeX failed; showing the last good PDF." : "LaTeX failed."}</strong>
        <ul data-testid="latex-errors">
          {props.view.errors.map((e) => (
            <li>
              {(e.file ? `${e.file}${e.line ? `:${e.line}` : ""}: ` : "") + e.message}
              <Show when={e.file}>
                {(f) => (
                  <>
                    {" "}
                    <a class="latex-error-link" href={viewHash(f(), { line: e.line ?? undefined, source: true, doc: props.doc })}>
                      open
                    </a>
                  </>
                )}
              </Show>
            </li>
          ))}
        </ul>
      </>
    }>
      <strong>{props.view.failure}</strong>
    </Show>
  );
}

export interface ViewerProps {
  path: string;
  api: ViewerApi;
  opts: ViewerOptions;
  /** Called when the first load has finished (or failed). */
  ready?: () => void;
}

export function Viewer(props: ViewerProps): JSX.Element {
  const a = props.api;
  const opts = props.opts;
  const [info, setInfo] = createSignal<ViewInfo>();
  const [failed, setFailed] = createSignal("");
  const [content, setContent] = createSignal<Content>();
  const [outline, setOutline] = createSignal<OutlineEntry[]>([]);
  const [status, setStatus] = createSignal("Loading…");
  const [state, setState] = createSignal<string>();
  const [changes, setChanges] = createSignal(0);
  const [changed, setChanged] = createSignal<string>();
  const [banner, setBanner] = createSignal<JSX.Element | null>(null);
  // Each PDF load is a new PdfView (its pages are other images); the place
  // it was at carries over.
  let pdf: PdfHandle | null = null;
  let place: PdfPlace | undefined;
  let code: CodeHandle | null = null;
  let watch: number | undefined;
  let disposed = false;
  let unlisten: (() => void) | null = null;
  let synced = false;
  let first = true;
  let path = "";

  // Code and text come as raw bytes (no JSON string escaping over IPC:
  // a 4 MB file arrives several times faster) and are decoded here.
  const rawText = async (p: string) => {
    const bytes = await a.viewerBytes(p);
    performance.mark("skald:viewer-bytes");
    return new TextDecoder().decode(bytes);
  };

  /** Loads the file's content for its view; returns the files to watch. */
  const load = async (v: ViewInfo): Promise<string[]> => {
    const kind = v.kind;
    switch (kind.kind) {
      case "markdown":
        setContent({ kind: "markdown", text: await a.viewFile(v.path) });
        break;
      case "code": {
        // The lines first; the outline joins beside them when it arrives.
        const entries = a.viewerOutline(v.path).catch(() => [] as OutlineEntry[]);
        setContent({ kind: "code", text: await rawText(v.path), language: kind.language });
        performance.mark("skald:viewer-built");
        void entries.then((e) => !disposed && setOutline(e));
        break;
      }
      case "text":
        setContent({ kind: "text", text: await rawText(v.path) });
        break;
      case "html": {
        const [url, text] = await Promise.all([a.htmlServe(v.path), a.viewFile(v.path)]);
        setContent({ kind: "html", url, text });
        break;
      }
      case "image":
        setContent({ kind: "image", bytes: await a.viewerBytes(v.path), mime: kind.mime });
        break;
      case "svg":
        setContent({ kind: "svg", bytes: await a.viewerBytes(v.path) });
        break;
      case "pdf":
        place = pdf?.place() ?? place;
        setContent({ kind: "pdf", path: v.path });
        break;
      case "latex": {
        if (opts.source) {
          setContent({ kind: "latex-source", text: await a.viewFile(v.path) });
          break;
        }
        setStatus("Compiling…");
        const lv = await a.latexCompile(v.path);
        place = pdf?.place() ?? place;
        setBanner(lv.failure || lv.errors.length ? <LatexErrors view={lv} doc={v.path} /> : null);
        setContent({ kind: "latex", view: lv });
        setStatus(lv.failure || lv.errors.length ? "" : lv.fromCache ? "From cache" : `Compiled in ${(lv.millis / 1000).toFixed(1)} s`);
        return lv.inputs.length ? lv.inputs : [v.path];
      }
      case "binary":
        setContent({ kind: "binary" });
        break;
    }
    setStatus("");
    return [v.path];
  };

  let rendering: Promise<void> = Promise.resolve();
  const refresh = () => {
    rendering = rendering.then(async () => {
      const v = info();
      if (disposed || !v) return;
      try {
        const files = await load(v);
        if (disposed) return;
        watch = await a.viewerWatch(files, watch);
      } catch (e) {
        setStatus("");
        setBanner(<strong>{api.errorMessage(e)}</strong>);
      }
    });
    return rendering;
  };

  const onChange = (c: ViewerChanged) => {
    const v = info();
    if (disposed || !v || c.watch !== watch) return;
    // How many changes this view followed (tests and bug reports read it).
    setChanges(changes() + 1);
    setChanged(`${c.path} ${c.exists}`);
    if (!c.exists) {
      setStatus(c.path === v.path ? "This file was deleted; showing it as it was." : `${c.path} was deleted.`);
      setState("deleted");
      if (v.kind.kind !== "latex" || c.path === v.path) return;
    }
    setState("reloading");
    void refresh().then(() => {
      if (!disposed) setState("reloaded");
    });
  };

  // SyncTeX: a point in the PDF opens the source line that made it.
  const inverse = (page: number, x: number, y: number) => {
    void a
      .latexInverse(path, page, x, y)
      .then((s) => {
        if (s) location.hash = viewHash(s.file, { line: s.line, source: true, doc: path });
        else setStatus("No source line there.");
      })
      .catch((e) => setStatus(api.errorMessage(e)));
  };
  const pdfReady = (h: PdfHandle, latex?: LatexView) => {
    pdf = h;
    // SyncTeX forward, once: ?line= names a source line to show.
    if (latex && opts.line && !synced && !latex.failure) {
      synced = true;
      void a
        .latexForward(path, opts.input ?? path, opts.line)
        .catch(() => null)
        .then((spot) => spot && !disposed && h.showSpot(spot.page, spot.y, spot.height));
    }
  };
  const showInPdf = () => {
    const marked = document.querySelector<HTMLElement>(".code-row.marked")?.dataset.line;
    location.hash = viewHash(opts.doc ?? path, { line: Number(marked ?? opts.line ?? 1), input: path });
  };
  // The first paint honours ?line=; a reload keeps the view where it was.
  const at = () => (first ? opts.line : undefined);

  onCleanup(() => {
    disposed = true;
    // A view ended before its first load still settles mountViewer's promise.
    props.ready?.();
    unlisten?.();
    if (watch !== undefined) void a.viewerUnwatch(watch).catch(() => undefined);
  });

  void (async () => {
    try {
      const v = await a.viewerOpen(props.path);
      // Marks for the first-paint figure (the viewer E2E reads them).
      performance.mark("skald:viewer-opened");
      if (disposed) return;
      rememberFile(v.path);
      path = v.path;
      setInfo(v);
    } catch (e) {
      setStatus("");
      setFailed(api.errorMessage(e));
      props.ready?.();
      return;
    }
    try {
      const stop = await a.onViewerChanged(onChange);
      if (disposed) stop();
      else unlisten = stop;
    } catch {
      // Without events the view still shows; it just does not follow edits.
    }
    await refresh();
    first = false;
    props.ready?.();
  })();

  const codeView = (text: () => string, language?: string) => <CodeView text={text()} language={language} line={at()} ref={(h) => (code = h)} />;

  return (
    <>
      <h1 class="viewer-title">{info()?.path ?? props.path}</h1>
      <div class="viewer-status muted" data-testid="viewer-status" role="status" data-state={state()} data-changes={changes() ? String(changes()) : undefined} data-changed={changed()}>
        {status()}
      </div>
      <div class="viewer-banner" data-testid="viewer-banner" hidden={!banner()}>
        {banner()}
      </div>
      <div class="viewer-content" data-testid="viewer-content">
        <Show when={failed()}>
          <p class="error" role="alert">
            {failed()}
          </p>
        </Show>
        <Switch>
          <Match when={content()?.kind === "markdown" && (content() as { text: string })}>{(c) => <MarkdownView text={c().text} />}</Match>
          <Match when={content()?.kind === "code" && (content() as Extract<Content, { kind: "code" }>)}>
            {(c) => (
              <div class="viewer-with-outline">
                <Show when={outline().length}>
                  <Outline entries={outline()} goToLine={(l) => code?.goToLine(l)} />
                </Show>
                {codeView(() => c().text, c().language)}
              </div>
            )}
          </Match>
          <Match when={content()?.kind === "text" && (content() as { text: string })}>{(c) => codeView(() => c().text)}</Match>
          <Match when={content()?.kind === "html" && (content() as Extract<Content, { kind: "html" }>)}>
            {(c) => (
              <Toggle
                labels={["Page", "Source"]}
                views={[
                  // A new frame per load: the same URL set again would not reload it.
                  () => (
                    <Show when={c()} keyed>
                      {(h) => <HtmlFrame url={h.url} />}
                    </Show>
                  ),
                  () => <CodeView text={c().text} language="html" />,
                ]}
              />
            )}
          </Match>
          <Match when={content()?.kind === "image" && (content() as Extract<Content, { kind: "image" }>)}>{(c) => <ImageView bytes={c().bytes} mime={c().mime} />}</Match>
          <Match when={content()?.kind === "svg" && (content() as Extract<Content, { kind: "svg" }>)}>{(c) => <SvgView bytes={c().bytes} />}</Match>
          <Match when={content()?.kind === "pdf" && content()} keyed>
            {(c) => <PdfView path={(c as { path: string }).path} api={a} start={place} onReady={(h) => pdfReady(h)} />}
          </Match>
          <Match when={content()?.kind === "latex-source" && (content() as { text: string })}>
            {(c) => (
              <>
                <div class="viewer-toolbar">
                  <button type="button" data-testid="latex-to-pdf" title="SyncTeX: the marked line's place in the PDF" on:click={showInPdf}>
                    Show in PDF
                  </button>
                </div>
                {codeView(() => c().text, "latex")}
              </>
            )}
          </Match>
          <Match when={content()?.kind === "latex" && (content() as Extract<Content, { kind: "latex" }>).view} keyed>
            {(lv) => (
              <Show
                when={lv.pdf}
                fallback={<Toggle labels={["Errors", "Source"]} views={[() => <Note text="No PDF yet." />, () => <CodeView text="" language="latex" />]} />}
              >
                {(p) => (
                  <PdfView
                    path={p()}
                    api={a}
                    start={place}
                    onPointClick={inverse}
                    onReady={(h) => pdfReady(h, lv)}
                    extra={
                      <a href={viewHash(path, { source: true })} data-testid="latex-source">
                        Source
                      </a>
                    }
                  />
                )}
              </Show>
            )}
          </Match>
          <Match when={content()?.kind === "binary"}>
            <Note text={`${info()?.path} is a binary file (${info()?.size} bytes); the viewer does not show its bytes.`} testid="viewer-binary" />
          </Match>
        </Switch>
      </div>
    </>
  );
}

let disposeCurrent: (() => void) | null = null;

/** Ends the open view's watch (the router calls it when leaving the page). */
export function disposeViewer(): void {
  disposeCurrent?.();
  disposeCurrent = null;
}

/** Mounts the viewer (or, without a path, the start page) into `root`;
 *  resolves when the file's first load is done. */
export function mountViewer(root: HTMLElement, path: string, deps: { api: ViewerApi } = { api }, opts: ViewerOptions = {}): Promise<void> {
  if (!opts.own) disposeViewer();
  if (!path) {
    const d = mountSolid(root, () => <StartPage openDialog={opts.openDialog} />);
    if (opts.own) opts.own(d);
    else disposeCurrent = d;
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const d = mountSolid(root, () => <Viewer path={path} api={deps.api} opts={opts} ready={resolve} />);
    if (opts.own) opts.own(d);
    else disposeCurrent = d;
  });
}
