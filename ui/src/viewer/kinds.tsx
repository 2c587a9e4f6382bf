// The simple kinds: Markdown, images and SVG as images (an <img> never runs
// an SVG's scripts), HTML in its sandbox, notes. Each takes its content as a
// prop, so a reload updates the view in place (a toggle stays on Source,
// an image keeps its zoom).
import { createMemo, createSignal, type JSX, onCleanup, Show } from "solid-js";
import { renderMarkdown } from "../markdown";
import { CodeView } from "./code_view";

export function Toggle(props: { labels: [string, string]; views: [() => JSX.Element, () => JSX.Element] }): JSX.Element {
  const [showing, setShowing] = createSignal(0);
  return (
    <div>
      <div class="viewer-toolbar">
        <button type="button" data-testid="viewer-toggle" on:click={() => setShowing(1 - showing())}>
          {props.labels[1 - showing()]}
        </button>
      </div>
      <div class="viewer-body">
        <Show when={showing() === 0} fallback={props.views[1]()}>
          {props.views[0]()}
        </Show>
      </div>
    </div>
  );
}

export function MarkdownView(props: { text: string }): JSX.Element {
  return (
    <Toggle
      labels={["Rendered", "Source"]}
      views={[() => <div class="markdown viewer-markdown" data-testid="viewer-markdown" innerHTML={renderMarkdown(props.text)} />, () => <CodeView text={props.text} />]}
    />
  );
}

/** A blob URL for `bytes`, revoked when they change or the view ends. */
export function blobUrl(bytes: () => ArrayBuffer, mime: () => string): () => string {
  return createMemo(() => {
    const url = URL.createObjectURL(new Blob([bytes()], { type: mime() }));
    onCleanup(() => URL.revokeObjectURL(url));
    return url;
  });
}

export function ImageView(props: { bytes: ArrayBuffer; mime: string }): JSX.Element {
  const url = blobUrl(() => props.bytes, () => props.mime);
  const [mode, setMode] = createSignal<"fit" | "actual" | "zoom">("fit");
  const [zoom, setZoom] = createSignal(1);
  const [natural, setNatural] = createSignal<[number, number] | null>(null);
  const width = () => (mode() === "zoom" && natural() ? `${Math.round(natural()![0] * zoom())}px` : undefined);
  return (
    <div class="viewer-image-wrap">
      <div class="viewer-toolbar">
        <button type="button" data-testid="image-fit" on:click={() => setMode("fit")}>
          Fit
        </button>
        <button type="button" data-testid="image-actual" on:click={() => (setMode("actual"), setZoom(1))}>
          Actual size
        </button>
        <button type="button" data-testid="image-zoom-out" on:click={() => (setMode("zoom"), setZoom(Math.max(0.1, zoom() / 1.25)))}>
          −
        </button>
        <button type="button" data-testid="image-zoom-in" on:click={() => (setMode("zoom"), setZoom(Math.min(16, zoom() * 1.25)))}>
          +
        </button>
        <span class="muted" data-testid="viewer-image-size">
          {natural() ? `${natural()![0]} × ${natural()![1]} px` : ""}
        </span>
      </div>
      <div class="viewer-image-box">
        <img
          src={url()}
          class="viewer-image"
          classList={{ fit: mode() === "fit" }}
          data-testid="viewer-image"
          alt=""
          style={{ width: width() }}
          onLoad={(e) => setNatural([e.currentTarget.naturalWidth, e.currentTarget.naturalHeight])}
        />
      </div>
    </div>
  );
}

export function SvgView(props: { bytes: ArrayBuffer }): JSX.Element {
  const text = createMemo(() => new TextDecoder().decode(props.bytes));
  return <Toggle labels={["Image", "Source"]} views={[() => <ImageView bytes={props.bytes} mime="image/svg+xml" />, () => <CodeView text={text()} language="xml" />]} />;
}

/** The page in an iframe without allow-same-origin: an opaque origin with
 *  no way to its parent, the IPC or other files (the protocol's CSP). */
export function HtmlFrame(props: { url: string }): JSX.Element {
  return <iframe class="viewer-html" data-testid="viewer-html" sandbox="allow-scripts" referrerpolicy="no-referrer" src={props.url} title="HTML page" />;
}

export function Note(props: { text: string; testid?: string }): JSX.Element {
  return (
    <p class="muted viewer-note" data-testid={props.testid ?? "viewer-note"}>
      {props.text}
    </p>
  );
}
