// PDF pages as images rendered by pdfium in Rust: each page is a placeholder
// of the right size until it scrolls into view, then fetched at its on-screen
// width × device pixel ratio. Page navigation, zoom and find (pdfium text),
// and a transparent text layer so the page's words can be selected.
import { createSignal, For, type JSX, onCleanup, onMount, Show } from "solid-js";
import type { PdfFindHit, PdfInfo, PdfTextRun } from "../bindings";

export interface PdfApi {
  pdfInfo(path: string): Promise<PdfInfo>;
  pdfPage(path: string, page: number, width: number): Promise<ArrayBuffer>;
  pdfFind(path: string, query: string): Promise<PdfFindHit[]>;
  /** The page's text with its boxes (optional: no layer without it). */
  pdfText?(path: string, page: number): Promise<PdfTextRun[]>;
}

/** Page (0-based) and zoom survive a reload in place. */
export interface PdfPlace {
  page: number;
  zoom: number;
}

export interface PdfHandle {
  place(): PdfPlace;
  goTo(page: number): void;
  /** Scrolls to and marks a box given in PDF points from the top-left of
   *  1-based `page` (SyncTeX's coordinates; `y` is the baseline). */
  showSpot(page: number, y: number, height: number): void;
}

export interface PdfViewProps {
  path: string;
  api: PdfApi;
  start?: PdfPlace;
  /** Ctrl+click on a page: the point in PDF points from the page's
   *  top-left, page 1-based (SyncTeX inverse search). */
  onPointClick?: (page: number, x: number, y: number) => void;
  /** Called once the pages are laid out. */
  onReady?: (h: PdfHandle) => void;
  /** More controls at the end of the toolbar. */
  extra?: JSX.Element;
}

const ZOOMS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3];

/** Where a text run sits on its page, in percent of the page (the font size
 *  in container-query units, so the layer scales with the page). */
export function runStyle(r: PdfTextRun, page: { width: number; height: number }): JSX.CSSProperties {
  return {
    left: `${(r.x / page.width) * 100}%`,
    top: `${(r.y / page.height) * 100}%`,
    width: `${(r.width / page.width) * 100}%`,
    height: `${(r.height / page.height) * 100}%`,
    "font-size": `${(r.height / page.width) * 100}cqw`,
  };
}

export function PdfView(props: PdfViewProps): JSX.Element {
  const [info, setInfo] = createSignal<PdfInfo>();
  const [error, setError] = createSignal("");
  let live = true;
  onCleanup(() => (live = false));
  props.api.pdfInfo(props.path).then(
    (i) => live && setInfo(i),
    (e) => live && setError(typeof e === "object" && e && "message" in e ? String((e as { message: unknown }).message) : String(e)),
  );
  return (
    <Show when={info()} fallback={<Show when={error()}>{(e) => <p class="error" role="alert">{e()}</p>}</Show>}>
      {(i) => <PdfPages {...props} info={i()} />}
    </Show>
  );
}

interface Page {
  i: number;
  size: { width: number; height: number };
  src: () => string;
  setSrc: (s: string) => void;
  runs: () => PdfTextRun[];
  setRuns: (r: PdfTextRun[]) => void;
  failed: () => string;
  setFailed: (s: string) => void;
  rendered: string;
  el?: HTMLDivElement;
}

/** Resolves once `url` is decoded. WebKit painted a page's blob image
 *  blank (transparent: a canvas read of it was empty, screenshots showed a
 *  white page) until something else decoded the same image; decoding it
 *  before it is shown makes the first paint the page itself. */
function decoded(url: string): Promise<void> {
  if (typeof Image === "undefined") return Promise.resolve();
  const img = new Image();
  img.src = url;
  return typeof img.decode === "function" ? img.decode().catch(() => undefined) : Promise.resolve();
}

function PdfPages(props: PdfViewProps & { info: PdfInfo }): JSX.Element {
  const count = props.info.pages.length;
  const start = props.start ?? { page: 0, zoom: 1 };
  const [zoom, setZoom] = createSignal(start.zoom);
  const [current, setCurrent] = createSignal(Math.min(start.page, Math.max(count - 1, 0)));
  const [base, setBase] = createSignal(800);
  const [spot, setSpot] = createSignal<{ page: number; top: number; height: number } | null>(null);
  const [found, setFound] = createSignal<{ q: string; hits: PdfFindHit[] } | null>(null);
  const urls: string[] = [];
  let pagesEl!: HTMLDivElement;

  const pages: Page[] = props.info.pages.map((size, i) => {
    const [src, setSrc] = createSignal("");
    const [runs, setRuns] = createSignal<PdfTextRun[]>([]);
    const [failed, setFailed] = createSignal("");
    return { i, size, src, setSrc, runs, setRuns, failed, setFailed, rendered: "" };
  });
  const width = () => Math.round(base() * zoom());
  const measure = () => setBase(Math.max(200, Math.min((pagesEl.clientWidth || 800) - 24, 1000)));

  const render = async (i: number) => {
    const p = pages[i];
    if (!p) return;
    const wanted = String(Math.round(width() * (window.devicePixelRatio || 1)));
    if (p.rendered === wanted) return;
    p.rendered = wanted;
    try {
      const png = await props.api.pdfPage(props.path, i, Number(wanted));
      if (!live) return;
      const url = URL.createObjectURL(new Blob([png], { type: "image/png" }));
      urls.push(url);
      await decoded(url);
      if (!live) return;
      p.setSrc(url);
      if (props.api.pdfText && p.runs().length === 0) {
        const runs = await props.api.pdfText(props.path, i).catch(() => []);
        if (live) p.setRuns(runs);
      }
    } catch (e) {
      p.rendered = "";
      p.setFailed(String(e));
    }
  };
  let live = true;
  let observer: IntersectionObserver | null = null;
  const observe = () => {
    if (observer) for (const p of pages) if (p.el) observer.observe(p.el);
    else for (let i = current(); i < Math.min(count, current() + 2); i++) void render(i);
  };
  const goTo = (page: number) => {
    if (count === 0) return;
    const i = Math.max(0, Math.min(count - 1, page));
    setCurrent(i);
    void render(i);
    // .pdf-pages is positioned, so it is the slots' offsetParent.
    const el = pages[i].el;
    if (el) pagesEl.scrollTop = el.offsetTop;
  };
  const step = (dir: number) => {
    const i = ZOOMS.findIndex((z) => z >= zoom());
    setZoom(ZOOMS[Math.max(0, Math.min(ZOOMS.length - 1, (i < 0 ? ZOOMS.length - 1 : i) + dir))]);
    if (observer) {
      observer.disconnect();
      observe();
    }
    goTo(current());
  };
  const showSpot = (page: number, y: number, height: number) => {
    const p = pages[page - 1];
    if (!p?.el) return;
    goTo(page - 1);
    const scale = p.el.offsetHeight / p.size.height;
    const top = Math.max(0, (y - Math.max(height, 10)) * scale);
    setSpot({ page, top, height: Math.max(height, 10) * scale + 4 });
    pagesEl.scrollTop = p.el.offsetTop + Math.max(0, top - pagesEl.clientHeight / 3);
  };
  // The page at the top of the scrolled view is "the page" a reload keeps.
  const onScroll = () => {
    const top = pagesEl.scrollTop + 8;
    const at = pages.findIndex((p) => !!p.el && p.el.offsetTop + p.el.offsetHeight > top);
    if (at >= 0 && at !== current()) setCurrent(at);
  };
  const find = async (q: string) => {
    if (!q) return setFound(null);
    const hits = await props.api.pdfFind(props.path, q);
    if (!live) return;
    setFound({ q, hits });
    if (hits.length) goTo(hits[0].page);
  };
  const click = (p: Page, e: MouseEvent) => {
    // Ctrl+click, as TeX editors do: a plain click or double-click selects
    // text in the text layer.
    if (!props.onPointClick || !(e.ctrlKey || e.metaKey) || !p.el) return;
    const r = p.el.getBoundingClientRect();
    if (!r.width) return;
    const scale = p.size.width / r.width;
    props.onPointClick(p.i + 1, (e.clientX - r.left) * scale, (e.clientY - r.top) * scale);
  };

  onMount(() => {
    measure();
    observer =
      typeof IntersectionObserver === "undefined"
        ? null
        : new IntersectionObserver(
            (entries) => {
              for (const e of entries) if (e.isIntersecting) void render(Number((e.target as HTMLElement).dataset.page));
            },
            { root: pagesEl, rootMargin: "400px 0px" },
          );
    // Placeholders are laid out once the node is in the document: measure
    // then, so no page is fetched at a width about to change.
    queueMicrotask(() => {
      if (!live) return;
      measure();
      observe();
      goTo(current());
      props.onReady?.({ place: () => ({ page: current(), zoom: zoom() }), goTo, showSpot });
    });
  });
  onCleanup(() => {
    live = false;
    observer?.disconnect();
    for (const u of urls) URL.revokeObjectURL(u);
  });

  return (
    <div class="pdf-view" data-testid="pdf-view" data-pages={String(count)}>
      <div class="viewer-toolbar">
        <button type="button" data-testid="pdf-prev" on:click={() => goTo(current() - 1)}>
          ‹
        </button>
        <input
          class="pdf-page-input"
          data-testid="pdf-page-input"
          type="number"
          min="1"
          max={String(count)}
          value={String(current() + 1)}
          aria-label="Page"
          on:change={(e) => goTo(Number(e.currentTarget.value) - 1)}
        />
        <span class="muted">{` / ${count}`}</span>
        <button type="button" data-testid="pdf-next" on:click={() => goTo(current() + 1)}>
          ›
        </button>
        <button type="button" data-testid="pdf-zoom-out" aria-label="Zoom out" on:click={() => step(-1)}>
          −
        </button>
        <span class="pdf-zoom" data-testid="pdf-zoom">{`${Math.round(zoom() * 100)}%`}</span>
        <button type="button" data-testid="pdf-zoom-in" aria-label="Zoom in" on:click={() => step(1)}>
          +
        </button>
        <input
          class="pdf-find"
          data-testid="pdf-find"
          type="search"
          placeholder="Find in PDF"
          aria-label="Find in PDF"
          on:keydown={(e) => {
            if (e.key === "Enter") void find(e.currentTarget.value.trim());
          }}
        />
        {props.extra}
      </div>
      <div class="pdf-find-result muted" data-testid="pdf-find-result">
        <Show when={found()}>
          {(f) => (
            <Show when={f().hits.length} fallback={`No page contains “${f().q}”.`}>
              {`${f().hits.length} page${f().hits.length === 1 ? "" : "s"}: `}
              <For each={f().hits}>
                {(h) => (
                  <button type="button" class="link" data-testid="pdf-hit" title={h.snippet} on:click={() => goTo(h.page)}>
                    {`p. ${h.page + 1} (${h.count})`}
                  </button>
                )}
              </For>
            </Show>
          )}
        </Show>
      </div>
      <div class="pdf-pages" data-testid="pdf-pages" ref={pagesEl} onScroll={onScroll}>
        <For each={pages}>
          {(p) => (
            <div
              ref={(el) => (p.el = el)}
              class="pdf-page"
              data-page={String(p.i)}
              data-testid={`pdf-page-${p.i + 1}`}
              data-loaded={p.src() ? "true" : undefined}
              title={props.onPointClick ? "Ctrl+click: go to the source" : undefined}
              style={{ width: `${width()}px`, height: `${Math.round((width() * p.size.height) / p.size.width)}px` }}
              on:click={(e) => click(p, e)}
            >
              <Show when={p.failed()}>
                <p class="error">{p.failed()}</p>
              </Show>
              <Show when={p.src()}>
                <img src={p.src()} alt={`Page ${p.i + 1}`} draggable={false} style={{ width: "100%" }} />
              </Show>
              <Show when={p.runs().length}>
                <div class="pdf-text" data-testid="pdf-text">
                  <For each={p.runs()}>{(r) => <span style={runStyle(r, p.size)}>{r.text}</span>}</For>
                </div>
              </Show>
              <Show when={spot()?.page === p.i + 1 ? spot() : null}>
                {(s) => <div class="pdf-spot" data-testid="pdf-spot" data-page={String(s().page)} style={{ top: `${s().top}px`, height: `${s().height}px` }} />}
              </Show>
            </div>
          )}
        </For>
      </div>
    </div>
  );
}
