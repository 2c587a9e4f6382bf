// PDF pages as images rendered by pdfium in Rust: each page is a placeholder
// of the right size until it scrolls into view, then fetched at its on-screen
// width × device pixel ratio. Page navigation, zoom and find (pdfium text).
import { el } from "../dom";
import type { PdfFindHit, PdfInfo, PdfTextRun } from "../bindings";

export interface PdfApi {
  pdfInfo(path: string): Promise<PdfInfo>;
  pdfPage(path: string, page: number, width: number): Promise<ArrayBuffer>;
  pdfFind(path: string, query: string): Promise<PdfFindHit[]>;
  /** The page's text with its boxes (optional: no layer without it). */
  pdfText?(path: string, page: number): Promise<PdfTextRun[]>;
}

/** Transparent text over a rendered page, placed where pdfium says each
 *  run sits, so the page's text can be selected and copied. */
export function textLayer(runs: PdfTextRun[], page: { width: number; height: number }): HTMLElement {
  const layer = el("div", { class: "pdf-text", "data-testid": "pdf-text" });
  for (const r of runs) {
    const span = el("span", {}, r.text);
    span.style.left = `${(r.x / page.width) * 100}%`;
    span.style.top = `${(r.y / page.height) * 100}%`;
    span.style.width = `${(r.width / page.width) * 100}%`;
    span.style.height = `${(r.height / page.height) * 100}%`;
    // Font size in container-query units: the layer scales with the page.
    span.style.fontSize = `${(r.height / page.width) * 100}cqw`;
    layer.append(span);
  }
  return layer;
}

/** Page (0-based) and zoom survive a reload in place. */
export interface PdfPlace {
  page: number;
  zoom: number;
}

const ZOOMS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3];

export interface PdfView {
  node: HTMLElement;
  place(): PdfPlace;
  goTo(page: number): void;
  /** Scrolls to and marks a box given in PDF points from the top-left of
   *  1-based `page` (SyncTeX's coordinates; `y` is the baseline). */
  showSpot(page: number, y: number, height: number): void;
  dispose(): void;
}

export interface PdfOptions {
  /** Ctrl+click on a page: the point in PDF points from
   *  the page's top-left, page 1-based (SyncTeX inverse search). */
  onPointClick?: (page: number, x: number, y: number) => void;
}

export async function pdfView(path: string, api: PdfApi, start: PdfPlace = { page: 0, zoom: 1 }, opts: PdfOptions = {}): Promise<PdfView> {
  const info = await api.pdfInfo(path);
  const count = info.pages.length;
  let zoom = start.zoom;
  let current = Math.min(start.page, Math.max(count - 1, 0));
  const urls: string[] = [];
  const pages = el("div", { class: "pdf-pages", "data-testid": "pdf-pages" });
  const pageInput = el("input", { class: "pdf-page-input", "data-testid": "pdf-page-input", type: "number", min: "1", max: String(count), value: String(current + 1) });
  const pageCount = el("span", { class: "muted" }, ` / ${count}`);
  const findInput = el("input", { class: "pdf-find", "data-testid": "pdf-find", type: "search", placeholder: "Find in PDF" });
  const findResult = el("div", { class: "pdf-find-result muted", "data-testid": "pdf-find-result" });
  const zoomLabel = el("span", { class: "pdf-zoom", "data-testid": "pdf-zoom" }, `${Math.round(zoom * 100)}%`);
  const button = (label: string, testid: string, onClick: () => void) => {
    const b = el("button", { type: "button", "data-testid": testid }, label);
    b.addEventListener("click", onClick);
    return b;
  };
  const toolbar = el(
    "div",
    { class: "viewer-toolbar" },
    button("‹", "pdf-prev", () => goTo(current - 1)),
    pageInput,
    pageCount,
    button("›", "pdf-next", () => goTo(current + 1)),
    button("−", "pdf-zoom-out", () => setZoom(-1)),
    zoomLabel,
    button("+", "pdf-zoom-in", () => setZoom(1)),
    findInput,
  );
  const node = el("div", { class: "pdf-view", "data-testid": "pdf-view", "data-pages": String(count) }, toolbar, findResult, pages);

  const baseWidth = () => Math.max(200, Math.min((pages.clientWidth || 800) - 24, 1000));
  const slots: HTMLElement[] = info.pages.map((size, i) => {
    const slot = el("div", { class: "pdf-page", "data-page": String(i), "data-testid": `pdf-page-${i + 1}` });
    slot.dataset.aspect = String(size.height / size.width);
    if (opts.onPointClick) {
      const click = (e: MouseEvent) => {
        const r = slot.getBoundingClientRect();
        if (!r.width) return;
        const scale = size.width / r.width;
        opts.onPointClick?.(i + 1, (e.clientX - r.left) * scale, (e.clientY - r.top) * scale);
      };
      // Ctrl+click, as TeX editors do: a plain click or double-click
      // selects text in the text layer.
      slot.title = "Ctrl+click: go to the source";
      slot.addEventListener("click", (e) => {
        if (e.ctrlKey || e.metaKey) click(e);
      });
    }
    pages.append(slot);
    return slot;
  });
  let marker: HTMLElement | null = null;
  const showSpot = (page: number, y: number, height: number) => {
    const slot = slots[page - 1];
    const size = info.pages[page - 1];
    if (!slot || !size) return;
    goTo(page - 1);
    const scale = slot.offsetHeight / size.height;
    const top = Math.max(0, (y - Math.max(height, 10)) * scale);
    marker?.remove();
    marker = el("div", { class: "pdf-spot", "data-testid": "pdf-spot", "data-page": String(page) });
    marker.style.top = `${top}px`;
    marker.style.height = `${Math.max(height, 10) * scale + 4}px`;
    slot.append(marker);
    pages.scrollTop = slot.offsetTop + Math.max(0, top - pages.clientHeight / 3);
  };
  const layout = () => {
    const w = Math.round(baseWidth() * zoom);
    for (const slot of slots) {
      slot.style.width = `${w}px`;
      slot.style.height = `${Math.round(w * Number(slot.dataset.aspect))}px`;
    }
  };
  const render = async (i: number) => {
    const slot = slots[i];
    if (!slot) return;
    const w = Math.round(baseWidth() * zoom);
    const wanted = String(Math.round(w * (window.devicePixelRatio || 1)));
    if (slot.dataset.rendered === wanted) return;
    slot.dataset.rendered = wanted;
    try {
      const png = await api.pdfPage(path, i, Number(wanted));
      const url = URL.createObjectURL(new Blob([png], { type: "image/png" }));
      urls.push(url);
      const img = el("img", { src: url, alt: `Page ${i + 1}`, draggable: "false" });
      img.style.width = "100%";
      slot.replaceChildren(img, ...(marker && marker.parentElement === slot ? [marker] : []));
      slot.dataset.loaded = "true";
      if (api.pdfText && !slot.querySelector(".pdf-text")) {
        const runs = await api.pdfText(path, i).catch(() => []);
        if (runs.length && !slot.querySelector(".pdf-text")) slot.append(textLayer(runs, info.pages[i]));
      }
    } catch (e) {
      slot.dataset.rendered = "";
      slot.replaceChildren(el("p", { class: "error" }, String(e)));
    }
  };
  const observer =
    typeof IntersectionObserver === "undefined"
      ? null
      : new IntersectionObserver(
          (entries) => {
            for (const e of entries) if (e.isIntersecting) void render(Number((e.target as HTMLElement).dataset.page));
          },
          { root: pages, rootMargin: "400px 0px" },
        );
  const renderVisible = () => {
    if (observer) for (const s of slots) observer.observe(s);
    else for (let i = current; i < Math.min(count, current + 2); i++) void render(i);
  };
  const goTo = (page: number) => {
    if (count === 0) return;
    current = Math.max(0, Math.min(count - 1, page));
    pageInput.value = String(current + 1);
    void render(current);
    const slot = slots[current];
    // .pdf-pages is positioned, so it is the slots' offsetParent.
    if (slot) pages.scrollTop = slot.offsetTop;
  };
  const setZoom = (dir: number) => {
    const i = ZOOMS.findIndex((z) => z >= zoom);
    zoom = ZOOMS[Math.max(0, Math.min(ZOOMS.length - 1, (i < 0 ? ZOOMS.length - 1 : i) + dir))];
    zoomLabel.textContent = `${Math.round(zoom * 100)}%`;
    layout();
    if (observer) {
      observer.disconnect();
      renderVisible();
    }
    goTo(current);
  };
  // The page at the top of the scrolled view is "the page" a reload keeps.
  pages.addEventListener("scroll", () => {
    const top = pages.scrollTop + 8;
    const at = slots.findIndex((s) => s.offsetTop + s.offsetHeight > top);
    if (at >= 0 && at !== current) {
      current = at;
      pageInput.value = String(at + 1);
    }
  });
  pageInput.addEventListener("change", () => goTo(Number(pageInput.value) - 1));
  findInput.addEventListener("keydown", async (e) => {
    if (e.key !== "Enter") return;
    const q = findInput.value.trim();
    if (!q) return findResult.replaceChildren();
    const hits = await api.pdfFind(path, q);
    if (hits.length === 0) return findResult.replaceChildren(`No page contains “${q}”.`);
    findResult.replaceChildren(
      `${hits.length} page${hits.length === 1 ? "" : "s"}: `,
      ...hits.map((h) => {
        const b = el("button", { type: "button", class: "link", "data-testid": "pdf-hit" }, `p. ${h.page + 1} (${h.count})`);
        b.title = h.snippet;
        b.addEventListener("click", () => goTo(h.page));
        return b;
      }),
    );
    goTo(hits[0].page);
  });
  layout();
  renderVisible();
  // Placeholders are laid out; jump once the node is in the document.
  queueMicrotask(() => goTo(current));
  return {
    node,
    place: () => ({ page: current, zoom }),
    goTo,
    showSpot,
    dispose: () => {
      observer?.disconnect();
      for (const u of urls) URL.revokeObjectURL(u);
    },
  };
}
