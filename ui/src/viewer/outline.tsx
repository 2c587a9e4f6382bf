// The outline beside a code file: its definitions (from the same engines as
// get_ast_outline), indented by nesting; a click goes to the line.
import { createMemo, createSignal, For, type JSX } from "solid-js";
import type { OutlineEntry } from "../bindings";

/** Entries shown at most: a generated file can have 100,000 definitions,
 *  and a list that long helps nobody (the filter still finds any of them). */
export const MAX_SHOWN = 2000;

export function Outline(props: { entries: OutlineEntry[]; goToLine: (line: number) => void }): JSX.Element {
  const [filter, setFilter] = createSignal("");
  // Filtering searches every entry, not only the ones first shown.
  const shown = createMemo(() => {
    const q = filter().toLowerCase();
    return (q ? props.entries.filter((e) => e.name.toLowerCase().includes(q)) : props.entries).slice(0, MAX_SHOWN);
  });
  return (
    <nav class="viewer-outline" data-testid="viewer-outline" aria-label="Outline">
      <input type="search" placeholder="Filter" class="outline-filter" aria-label="Filter the outline" on:input={(e) => setFilter(e.currentTarget.value)} />
      <ul class="outline-list">
        <For each={shown()}>
          {(e) => {
            // Plain locals, not property reads: Solid makes no effect for
            // them, and 2,000 entries render as fast as static markup.
            const { kind, name, line, depth } = e;
            return (
              <li>
                <button
                  type="button"
                  class={`outline-item outline-${kind}`}
                  title={`${kind} ${name} (line ${line})`}
                  data-line={String(line)}
                  style={`padding-left: ${6 + depth * 12}px`}
                  on:click={() => props.goToLine(line)}
                >
                  <span class="outline-kind">{kind}</span> {name}
                </button>
              </li>
            );
          }}
        </For>
      </ul>
      <p class="muted outline-more">
        {props.entries.length > MAX_SHOWN ? `First ${MAX_SHOWN.toLocaleString()} of ${props.entries.length.toLocaleString()}; filter to find the rest.` : ""}
      </p>
    </nav>
  );
}
