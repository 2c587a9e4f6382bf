// The outline beside a code file: its definitions (from the same engines as
// get_ast_outline), indented by nesting; a click goes to the line.
import type { OutlineEntry } from "../bindings";
import { el } from "../dom";

/** Entries shown at most: a generated file can have 100,000 definitions,
 *  and a list that long helps nobody (the filter still finds any of them). */
export const MAX_SHOWN = 2000;

export function outlineList(all: OutlineEntry[], goToLine: (line: number) => void): HTMLElement {
  const filter = el("input", { type: "search", placeholder: "Filter", class: "outline-filter", "aria-label": "Filter the outline" }) as HTMLInputElement;
  const item = (e: OutlineEntry) => {
    const b = el("button", { type: "button", class: `outline-item outline-${e.kind}`, title: `${e.kind} ${e.name} (line ${e.line})`, "data-line": String(e.line) }, el("span", { class: "outline-kind" }, e.kind), " ", e.name);
    b.style.paddingLeft = `${6 + e.depth * 12}px`;
    b.addEventListener("click", () => goToLine(e.line));
    return el("li", {}, b);
  };
  const list = el("ul", { class: "outline-list" }, ...all.slice(0, MAX_SHOWN).map(item));
  const more = el("p", { class: "muted outline-more" }, all.length > MAX_SHOWN ? `First ${MAX_SHOWN.toLocaleString()} of ${all.length.toLocaleString()}; filter to find the rest.` : "");
  filter.addEventListener("input", () => {
    const q = filter.value.toLowerCase();
    // Filtering searches every entry, not only the ones first shown.
    list.replaceChildren(...(q ? all.filter((e) => e.name.toLowerCase().includes(q)) : all).slice(0, MAX_SHOWN).map(item));
  });
  return el("nav", { class: "viewer-outline", "data-testid": "viewer-outline", "aria-label": "Outline" }, filter, list, more);
}
