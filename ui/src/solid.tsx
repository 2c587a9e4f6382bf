// Bridges the router's plain containers to SolidJS components while pages
// move over one by one: a page mounts a component into its container and
// gets back the function that disposes of it (and of every effect it owns).
import { createRoot, type JSX } from "solid-js";
import { insert } from "solid-js/web";

/** Mounts `component` into `container` (emptied first). The returned
 *  disposer removes only this mount's nodes: a stale page's cleanup that runs
 *  after the next page mounted into the same container (an async mount that
 *  finished late) leaves that page alone — solid's `render` would empty the
 *  whole container. */
export function mountSolid(container: HTMLElement, component: () => JSX.Element): () => void {
  container.replaceChildren();
  const start = document.createComment("");
  const end = document.createComment("");
  container.append(start, end);
  let disposeRoot = () => undefined as void;
  createRoot((d) => {
    disposeRoot = d;
    insert(container, component(), end);
  });
  return () => {
    disposeRoot();
    if (start.parentNode === container) {
      for (let n = start.nextSibling; n && n !== end; ) {
        const next: ChildNode | null = n.nextSibling;
        n.remove();
        n = next;
      }
    }
    start.remove();
    end.remove();
  };
}
