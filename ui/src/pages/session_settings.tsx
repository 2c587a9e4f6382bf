// The session settings panel: its permission group and RunContext (the
// working directory chosen with the native folder dialog), and temporary
// human bypasses ("don't ask again for a while"). It reads the session only
// when first opened.
import { createSignal, For, type JSX, Show } from "solid-js";
import * as api from "../api";
import type { BypassScopeView, GroupView, RunContextView, ToolCategory } from "../bindings";
import { BYPASSES_CHANGED, describeScope } from "../chat/bypass";
import { ChatMcpServers } from "./session_mcp";

export type SessionSettingsApi = Pick<
  typeof api,
  "getRunContext" | "listGroups" | "setRunContext" | "addBypass" | "clearBypasses" | "pickFolder" | "errorMessage"
>;

export function parseList(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

/** `onSaved` hears each RunContext saved (the chat page resolves the files
 *  a turn opens against its working directory). */
export function SessionSettings(props: { sessionId: string; api?: SessionSettingsApi; onSaved?: (ctx: RunContextView) => void }): JSX.Element {
  const [loaded, setLoaded] = createSignal<{ ctx: RunContextView; groups: GroupView[] } | null>(null);
  const [error, setError] = createSignal<string | null>(null);
  let started = false;
  const load = async () => {
    const deps = props.api ?? api;
    try {
      const [ctx, groups] = await Promise.all([deps.getRunContext(props.sessionId), deps.listGroups()]);
      setLoaded({ ctx, groups });
    } catch (e) {
      setError(deps.errorMessage(e));
    }
  };
  return (
    <details
      class="session-settings"
      data-testid="session-settings"
      on:toggle={(e) => {
        if (e.currentTarget.open && !started) {
          started = true;
          void load();
        }
      }}
    >
      <summary>Session settings</summary>
      <div class="session-settings-body">
        <Show when={loaded()} fallback={<p class={error() ? "error" : "muted"}>{error() ?? "Loading…"}</p>}>
          {(l) => <SettingsForm sessionId={props.sessionId} api={props.api ?? api} ctx={l().ctx} groups={l().groups} onSaved={props.onSaved} />}
        </Show>
      </div>
    </details>
  );
}

function SettingsForm(props: {
  sessionId: string;
  api: SessionSettingsApi;
  ctx: RunContextView;
  groups: GroupView[];
  onSaved?: (ctx: RunContextView) => void;
}): JSX.Element {
  const [status, setStatus] = createSignal("");
  const [workdir, setWorkdir] = createSignal(props.ctx.workingDir ?? "");
  const [kind, setKind] = createSignal("all");
  let group!: HTMLSelectElement;
  let prompt!: HTMLTextAreaElement;
  let reads!: HTMLTextAreaElement;
  let writes!: HTMLTextAreaElement;
  let scopeKind!: HTMLSelectElement;
  let scopeValue!: HTMLInputElement;
  let minutes!: HTMLSelectElement;
  const fail = (e: unknown) => setStatus(props.api.errorMessage(e));
  const current = (): RunContextView => ({
    permissionGroup: group.value,
    extraSystemPrompt: prompt.value.trim() || null,
    allowFsReads: parseList(reads.value),
    allowFsWrites: parseList(writes.value),
    workingDir: workdir().trim() || null,
  });
  const save = (done = "Saved.") => {
    const ctx = current();
    return props.api.setRunContext(props.sessionId, ctx).then(() => {
      setStatus(done);
      props.onSaved?.(ctx);
    }, fail);
  };
  // The folder picked in the native dialog is the working directory at
  // once: picking is the person's whole intent, nothing else to confirm.
  const choose = async () => {
    try {
      const picked = await props.api.pickFolder(workdir().trim() || null);
      if (picked === null) return;
      setWorkdir(picked);
      await save(`Working directory: ${picked}`);
    } catch (e) {
      fail(e);
    }
  };
  const bypassesChanged = () => document.dispatchEvent(new Event(BYPASSES_CHANGED));
  const dontAsk = () => {
    const scope = bypassScope(scopeKind.value, scopeValue.value);
    if (typeof scope === "string") return setStatus(scope);
    const m = minutes.value === "" ? null : Number(minutes.value);
    props.api.addBypass(props.sessionId, scope, m).then(() => {
      setStatus(`Not asking for ${describeScope(scope)}${m ? ` for ${m} minutes` : ""} (deny rules still apply; Stop clears it).`);
      bypassesChanged();
    }, fail);
  };
  const askAgain = () =>
    props.api.clearBypasses(props.sessionId).then(() => {
      setStatus("Asking again.");
      bypassesChanged();
    }, fail);
  return (
    <>
      <label>
        Permission group{" "}
        <select ref={group} name="permissionGroup" aria-label="Permission group">
          <For each={props.groups}>{(g) => <option value={g.name} selected={g.name === props.ctx.permissionGroup}>{g.name}</option>}</For>
        </select>
      </label>
      <label>
        Working directory{" "}
        <span class="workdir-row">
          <input name="workingDir" value={workdir()} aria-label="Working directory" data-testid="working-dir" on:input={(e) => setWorkdir(e.currentTarget.value)} />
          <button type="button" data-testid="choose-working-dir" title="Choose a folder" on:click={() => void choose()}>
            Choose…
          </button>
        </span>
      </label>
      <label>
        Extra system prompt{" "}
        <textarea ref={prompt} name="extraSystemPrompt" rows="2" aria-label="Extra system prompt" value={props.ctx.extraSystemPrompt ?? ""} />
      </label>
      <label>
        Readable without asking{" "}
        <textarea ref={reads} name="allowFsReads" rows="2" placeholder="one absolute path per line" aria-label="Readable without asking" value={props.ctx.allowFsReads.join("\n")} />
      </label>
      <label>
        Writable without asking{" "}
        <textarea ref={writes} name="allowFsWrites" rows="2" placeholder="one absolute path per line" aria-label="Writable without asking" value={props.ctx.allowFsWrites.join("\n")} />
      </label>
      <div class="row">
        <button type="button" data-testid="save-run-context" on:click={() => void save()}>
          Save
        </button>
      </div>
      {/* "Don't ask" for a scope (everything, a category, one tool, an MCP
          server) and a while; deny rules still apply and Stop clears it. */}
      <div class="row bypass-row">
        <span class="muted">Don't ask for</span>
        <select ref={scopeKind} name="bypassKind" aria-label="Don't ask for" on:change={(e) => setKind(e.currentTarget.value)}>
          <For each={BYPASS_KINDS}>{([value, text]) => <option value={value}>{text}</option>}</For>
        </select>
        <input ref={scopeValue} name="bypassValue" aria-label="Which" placeholder="tool or server name" hidden={!(kind() === "tool" || kind() === "mcp")} />
        <select ref={minutes} name="bypassMinutes" aria-label="For how long">
          <For each={BYPASS_DURATIONS}>{([value, text]) => <option value={value} selected={value === "60"}>{text}</option>}</For>
        </select>
        <button type="button" data-testid="add-bypass" on:click={dontAsk}>
          Don't ask
        </button>
        <button type="button" on:click={() => void askAgain()}>
          Ask again
        </button>
      </div>
      <ChatMcpServers sessionId={props.sessionId} />
      <p class="form-message" role="status" data-testid="session-settings-status">
        {status()}
      </p>
    </>
  );
}

const CATEGORIES: ToolCategory[] = ["Filesystem", "Shell", "Subagent", "Introspection", "Config"];

const BYPASS_KINDS: [string, string][] = [
  ["all", "anything"],
  ...CATEGORIES.map((c): [string, string] => [`category:${c}`, `${c.toLowerCase()} tools`]),
  ["tool", "one tool…"],
  ["mcp", "an MCP server…"],
];

const BYPASS_DURATIONS: [string, string][] = [
  ["15", "15 minutes"],
  ["60", "1 hour"],
  ["240", "4 hours"],
  ["", "until stopped"],
];

/** The scope the form describes, or what is missing. */
export function bypassScope(kind: string, value: string): BypassScopeView | string {
  const name = value.trim();
  if (kind === "all") return { kind: "all" };
  if (kind.startsWith("category:")) {
    const category = kind.slice("category:".length) as ToolCategory;
    return CATEGORIES.includes(category) ? { kind: "category", category } : `unknown category ${category}`;
  }
  if (kind === "tool") return name ? { kind: "tool", name } : "Name the tool (for example execute_cmd).";
  if (kind === "mcp") return name ? { kind: "mcpServer", server: name } : "Name the MCP server.";
  return `unknown scope ${kind}`;
}
