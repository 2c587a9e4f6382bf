// Bridges the router's plain containers to SolidJS components while pages
// move over one by one: a page mounts a component into its container and
// gets back the function that disposes of it (and of every effect it owns).
import type { JSX } from "solid-js";
import { render } from "solid-js/web";

export function mountSolid(container: HTMLElement, component: () => JSX.Element): () => void {
  container.replaceChildren();
  return render(component, container);
}
