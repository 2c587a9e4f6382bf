// Boots the UI: a hash router over the pages, each fed by a typed command.
import { appInfo, errorMessage, listTools } from "./api";
import { el } from "./dom";
import { renderToolsPage } from "./pages/tools";

const page = document.getElementById("page") as HTMLElement;

async function showTools(): Promise<void> {
  page.replaceChildren(el("p", { class: "muted" }, "Loading tools…"));
  try {
    renderToolsPage(page, await listTools());
  } catch (e) {
    page.replaceChildren(el("p", { class: "error", role: "alert" }, `Could not load tools: ${errorMessage(e)}`));
  }
}

function route(): void {
  const name = location.hash.replace(/^#\//, "") || "tools";
  for (const a of Array.from(document.querySelectorAll<HTMLAnchorElement>(".nav-link"))) {
    a.classList.toggle("active", a.dataset.route === name);
  }
  // Only one page exists so far; unknown routes land on Tools.
  void showTools();
}

window.addEventListener("hashchange", route);
route();

appInfo()
  .then((info) => {
    const about = document.getElementById("about");
    if (about) about.textContent = `v${info.version} · schema ${info.schemaVersion}`;
  })
  .catch(() => undefined);
