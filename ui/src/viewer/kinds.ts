// The simple kinds: Markdown, code and text with line numbers, images and
// SVG as images (an <img> never runs an SVG's scripts), binary notes.
import { el } from "../dom";
import { renderMarkdown } from "../markdown";
import { codeView } from "./code";

export { codeView };

export function toggle(labels: [string, string], views: [() => HTMLElement, () => HTMLElement]): HTMLElement {
  let showing = 0;
  const body = el("div", { class: "viewer-body" }, views[0]());
  const b = el("button", { type: "button", "data-testid": "viewer-toggle" }, labels[1]);
  b.addEventListener("click", () => {
    showing = 1 - showing;
    b.textContent = labels[1 - showing];
    body.replaceChildren(views[showing]());
  });
  return el("div", {}, el("div", { class: "viewer-toolbar" }, b), body);
}

export function markdownView(text: string): HTMLElement {
  return toggle(["Rendered", "Source"], [
    () => {
      const d = el("div", { class: "markdown viewer-markdown", "data-testid": "viewer-markdown" });
      d.innerHTML = renderMarkdown(text);
      return d;
    },
    () => codeView(text),
  ]);
}

const FIT = ["fit", "actual"] as const;

export function imageView(bytes: ArrayBuffer, mime: string, urls: string[]): HTMLElement {
  const url = URL.createObjectURL(new Blob([bytes], { type: mime }));
  urls.push(url);
  let mode: (typeof FIT)[number] | "zoom" = "fit";
  let zoom = 1;
  const img = el("img", { src: url, class: "viewer-image fit", "data-testid": "viewer-image", alt: "" });
  const dims = el("span", { class: "muted", "data-testid": "viewer-image-size" });
  img.addEventListener("load", () => {
    dims.textContent = `${img.naturalWidth} × ${img.naturalHeight} px`;
  });
  const apply = () => {
    img.classList.toggle("fit", mode === "fit");
    img.style.width = mode === "zoom" ? `${Math.round(img.naturalWidth * zoom)}px` : "";
  };
  const button = (label: string, testid: string, f: () => void) => {
    const b = el("button", { type: "button", "data-testid": testid }, label);
    b.addEventListener("click", () => {
      f();
      apply();
    });
    return b;
  };
  return el(
    "div",
    { class: "viewer-image-wrap" },
    el(
      "div",
      { class: "viewer-toolbar" },
      button("Fit", "image-fit", () => (mode = "fit")),
      button("Actual size", "image-actual", () => ((mode = "actual"), (zoom = 1))),
      button("−", "image-zoom-out", () => ((mode = "zoom"), (zoom = Math.max(0.1, zoom / 1.25)))),
      button("+", "image-zoom-in", () => ((mode = "zoom"), (zoom = Math.min(16, zoom * 1.25)))),
      dims,
    ),
    el("div", { class: "viewer-image-box" }, img),
  );
}

export function svgView(bytes: ArrayBuffer, urls: string[]): HTMLElement {
  const text = new TextDecoder().decode(bytes);
  return toggle(["Image", "Source"], [() => imageView(bytes, "image/svg+xml", urls), () => codeView(text, "xml")]);
}

export function note(text: string, testid = "viewer-note"): HTMLElement {
  return el("p", { class: "muted viewer-note", "data-testid": testid }, text);
}
