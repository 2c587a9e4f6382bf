// The Tools page: every tool the agent can be offered, with its category,
// description and who sees it.
import { createSignal, For, type JSX } from "solid-js";
import type { AllTools, ToolInfo } from "../bindings";
import { mountSolid } from "../solid";

const KIND_LABEL: Record<ToolInfo["kind"], string> = {
  registry: "built-in",
  synthetic: "synthetic",
  mcp: "MCP",
  discovered: "discovered",
};

export function visibility(t: ToolInfo): string {
  if (t.subAgentsOnly && t.rootAgentOnly) return "none (misconfigured)";
  if (t.subAgentsOnly) return "sub-agents only";
  if (t.rootAgentOnly) return "root agent only";
  return "all agents";
}

export function toolCounts(all: AllTools): string {
  const n = (k: ToolInfo["kind"]) => all.builtIn.filter((t) => t.kind === k).length;
  const total = all.builtIn.length + all.mcp.length;
  return `${total} tools: ${n("registry")} built-in, ${n("synthetic")} synthetic, ${all.mcp.length} MCP` + (n("discovered") ? `, ${n("discovered")} discovered` : "");
}

function Row(props: { t: ToolInfo; hidden: boolean }): JSX.Element {
  const [expanded, setExpanded] = createSignal(false);
  // Long descriptions are clamped to two lines; a click shows all of it.
  return (
    <tr data-tool={props.t.name} data-kind={props.t.kind} classList={{ expanded: expanded() }} hidden={props.hidden} onClick={() => setExpanded(!expanded())}>
      <td class="tool-name">
        <code>{props.t.name}</code>
      </td>
      <td>
        <span class={`badge kind-${props.t.kind}`}>{KIND_LABEL[props.t.kind]}</span>
      </td>
      <td class="tool-category">{props.t.category ?? "—"}</td>
      <td class="tool-visibility">{visibility(props.t)}</td>
      <td class="tool-description">
        <div class="text" title="Click to expand">
          {props.t.description}
        </div>
      </td>
    </tr>
  );
}

export function ToolsPage(props: { all: AllTools }): JSX.Element {
  const [query, setQuery] = createSignal("");
  const tools = () => [...props.all.builtIn, ...props.all.mcp];
  const shown = (t: ToolInfo) => {
    const q = query().trim().toLowerCase();
    return q === "" || [t.name, KIND_LABEL[t.kind], t.category ?? "—", visibility(t), t.description].join(" ").toLowerCase().includes(q);
  };
  return (
    <>
      <h1>Tools</h1>
      <p class="counts" data-testid="tool-counts">
        {toolCounts(props.all)}
      </p>
      <input type="search" placeholder="Filter tools…" aria-label="Filter tools" class="filter" on:input={(e) => setQuery((e.currentTarget as HTMLInputElement).value)} />
      <table class="tools" data-testid="tools-table">
        <thead>
          <tr>
            <For each={["Tool", "Kind", "Category", "Visible to", "Description"]}>{(h) => <th>{h}</th>}</For>
          </tr>
        </thead>
        <tbody>
          <For each={tools()}>{(t) => <Row t={t} hidden={!shown(t)} />}</For>
        </tbody>
      </table>
    </>
  );
}

/** Renders the catalogue into `root`, with a filter box over name and description. */
export function renderToolsPage(root: HTMLElement, all: AllTools): () => void {
  return mountSolid(root, () => <ToolsPage all={all} />);
}
