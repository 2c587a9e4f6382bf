// The MCP page: every configured server with its live status (connecting,
// ready with its tools, failed with why and its last stderr lines,
// disabled), its log, and add / edit / import / enable / test / remove;
// which servers are always on (their tools in every chat from the first
// message) and whether servers may sample the model.
// It re-reads the list every second while shown: servers connect, fail and
// restart in the background, and the CLI may change them too.
import { createSignal, For, Match, onCleanup, onMount, Show, Switch } from "solid-js";
import { createStore, reconcile } from "solid-js/store";
import { errorMessage } from "../api";
import { listen } from "@tauri-apps/api/event";
import type { McpServerInput, McpServerView, McpStatusView, McpTransportView } from "../bindings";
import * as cmd from "../commands";
import { ImportPanel, ServerForm, ToolList } from "./mcp_form";
import "./mcp.css";

export type McpDeps = {
  list: () => Promise<McpServerView[]>;
  save: (input: McpServerInput, previousName: string | null) => Promise<unknown>;
  remove: (name: string) => Promise<boolean>;
  setEnabled: (name: string, enabled: boolean) => Promise<unknown>;
  import: typeof cmd.mcpImport;
  log: (name: string) => Promise<string>;
  test: typeof cmd.mcpTestServer;
  retry: (name: string) => Promise<boolean>;
  /** OAuth for an HTTP server: opens the browser, resolves after the redirect. */
  signIn: (name: string) => Promise<unknown>;
  signOut: (name: string) => Promise<unknown>;
  /** Servers whose tools every chat gets without `activate_tools`. */
  alwaysOn: () => Promise<string[]>;
  setAlwaysOn: (servers: string[]) => Promise<string[]>;
  /** Whether servers may ask the model for completions (MCP sampling). */
  allowSampling: () => Promise<boolean>;
  setAllowSampling: (allow: boolean) => Promise<boolean>;
  /** Calls `handler` on every server status change; resolves to an unlisten. */
  onStatus?: (handler: () => void) => Promise<() => void>;
  errorMessage: (e: unknown) => string;
};

/** The safety net under the `mcp-status` event (and what shows servers the
 *  CLI added meanwhile). */
export const REFRESH_MS = 3000;

const realDeps: McpDeps = {
  list: cmd.mcpListServers,
  save: cmd.mcpSaveServer,
  remove: cmd.mcpRemoveServer,
  setEnabled: cmd.mcpSetEnabled,
  import: cmd.mcpImport,
  log: cmd.mcpServerLog,
  test: cmd.mcpTestServer,
  retry: cmd.mcpRetry,
  signIn: cmd.mcpSignIn,
  signOut: cmd.mcpSignOut,
  alwaysOn: () => cmd.mcpGetAlwaysOn(null),
  setAlwaysOn: (servers) => cmd.mcpSetAlwaysOn(null, servers),
  allowSampling: cmd.mcpGetAllowSampling,
  setAllowSampling: cmd.mcpSetAllowSampling,
  onStatus: (handler) => listen("mcp-status", () => handler()),
  errorMessage,
};

/** The command line or the URL (env and header values are not shown). */
export function targetOf(t: McpTransportView): string {
  return t.transport === "stdio" ? [t.command, ...t.args].join(" ") : t.url;
}

/** What the edit form starts from. */
function inputOf(s: McpServerView): McpServerInput {
  return { name: s.name, transport: s.transport, enabled: s.enabled, timeoutMs: s.timeoutMs, description: s.description };
}

export function statusText(s: McpStatusView): string {
  switch (s.state) {
    case "ready":
      return `ready · ${s.tools} tool${s.tools === 1 ? "" : "s"}`;
    case "failed":
      return "failed";
    case "needs_sign_in":
      return "needs sign-in";
    default:
      return s.state;
  }
}

type Panel = { kind: "add" } | { kind: "edit"; input: McpServerInput } | { kind: "import" } | null;

export function McpPage(props: { deps: McpDeps; refreshMs?: number }) {
  const deps = props.deps;
  const [servers, setServers] = createStore<McpServerView[]>([]);
  const [loaded, setLoaded] = createSignal(false);
  const [error, setError] = createSignal("");
  const [panel, setPanel] = createSignal<Panel>(null);
  const [alwaysOn, setAlwaysOn] = createSignal<string[]>([]);
  const [sampling, setSampling] = createSignal(false);

  const refresh = async () => {
    try {
      // Keyed by name, so a row keeps its open log and tools across polls.
      const [list, always, sample] = await Promise.all([deps.list(), deps.alwaysOn(), deps.allowSampling()]);
      setServers(reconcile(list, { key: "name" }));
      setAlwaysOn(always);
      setSampling(sample);
      setLoaded(true);
    } catch (e) {
      setError(deps.errorMessage(e));
    }
  };
  const act = async (what: () => Promise<unknown>) => {
    setError("");
    try {
      await what();
    } catch (e) {
      setError(deps.errorMessage(e));
    }
    await refresh();
  };
  const edit = (s: McpServerView) => setPanel({ kind: "edit", input: inputOf(s) });
  const toggleAlwaysOn = (name: string, on: boolean) =>
    act(async () => {
      const rest = alwaysOn().filter((n) => n !== name);
      setAlwaysOn(await deps.setAlwaysOn(on ? [...rest, name] : rest));
    });

  onMount(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), props.refreshMs ?? REFRESH_MS);
    let unlisten: (() => void) | null = null;
    let gone = false;
    deps.onStatus?.(() => void refresh()).then(
      (u) => (gone ? u() : (unlisten = u)),
      () => undefined,
    );
    onCleanup(() => {
      gone = true;
      clearInterval(timer);
      unlisten?.();
    });
  });

  const formDeps = { save: deps.save, test: deps.test, errorMessage: deps.errorMessage };
  const close = () => {
    setPanel(null);
    void refresh();
  };

  return (
    <section class="mcp-page" data-testid="mcp-page">
      <h1>MCP servers</h1>
      <p class="muted">
        Servers connect in the background. A chat uses a server's tools once the agent activates it (<code>activate_tools</code>), unless the server is <em>always on</em>.
      </p>
      <div class="mcp-sampling" data-testid="mcp-sampling-box">
        <label class="inline">
          <input
            type="checkbox"
            data-testid="mcp-sampling"
            checked={sampling()}
            disabled={!loaded()}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              void act(async () => setSampling(await deps.setAllowSampling(on)));
            }}
          />{" "}
          Let servers use the model (sampling)
        </label>
        <p class="muted">
          A server may ask Skald's model to write something for it while one of its tools runs. With this on, the request goes to the chat's default model, is paid with your key and tokens, and the answer goes back to the server. Off, such requests are declined and the server is told why.
        </p>
      </div>
      <div class="row">
        <button type="button" class="send" data-testid="mcp-add" onClick={() => setPanel({ kind: "add" })}>
          Add server
        </button>
        <button type="button" data-testid="mcp-import-open" onClick={() => setPanel({ kind: "import" })}>
          Import…
        </button>
      </div>
      <Switch>
        <Match when={panel()?.kind === "add"}>
          <ServerForm deps={formDeps} done={close} />
        </Match>
        <Match when={(() => { const p = panel(); return p?.kind === "edit" ? p : null; })()}>
          {(p) => <ServerForm initial={p().input} deps={formDeps} done={close} />}
        </Match>
        <Match when={panel()?.kind === "import"}>
          <ImportPanel
            import={async (text) => {
              const r = await deps.import(text);
              void refresh();
              return r;
            }}
            errorMessage={deps.errorMessage}
            done={close}
          />
        </Match>
      </Switch>
      <Show when={error()}>
        <p class="error" role="alert" data-testid="mcp-error">
          {error()}
        </p>
      </Show>
      <Show when={loaded()} fallback={<p class="muted">Loading…</p>}>
        <Show when={servers.length} fallback={<p class="muted" data-testid="mcp-empty">No MCP server yet: add one, or import your <code>mcpServers</code> JSON.</p>}>
          <ul class="mcp-servers">
            <For each={servers}>
              {(s) => <ServerRow server={s} deps={deps} act={act} edit={edit} alwaysOn={alwaysOn().includes(s.name)} setAlwaysOn={(on) => void toggleAlwaysOn(s.name, on)} />}
            </For>
          </ul>
        </Show>
      </Show>
    </section>
  );
}

function ServerRow(props: {
  server: McpServerView;
  deps: McpDeps;
  act: (what: () => Promise<unknown>) => Promise<void>;
  edit: (s: McpServerView) => void;
  alwaysOn: boolean;
  setAlwaysOn: (on: boolean) => void;
}) {
  const s = () => props.server;
  const [log, setLog] = createSignal<string | null>(null);
  const [confirmRemove, setConfirmRemove] = createSignal(false);
  const [signingIn, setSigningIn] = createSignal(false);
  const signIn = async () => {
    setSigningIn(true);
    await props.act(() => props.deps.signIn(s().name));
    setSigningIn(false);
  };
  const showLog = async () => {
    if (log() !== null) return setLog(null);
    try {
      setLog(await props.deps.log(s().name));
    } catch (e) {
      setLog(props.deps.errorMessage(e));
    }
  };
  const failed = () => (s().status.state === "failed" ? (s().status as Extract<McpStatusView, { state: "failed" }>) : null);
  const signInWhy = () => (s().status.state === "needs_sign_in" ? (s().status as Extract<McpStatusView, { state: "needs_sign_in" }>).reason : null);
  const http = () => s().transport.transport === "http";
  return (
    <li class="mcp-server" data-testid="mcp-server" data-server={s().name} data-state={s().status.state}>
      <div class="mcp-head">
        <strong class="mcp-name">{s().name}</strong>
        <span class={`badge mcp-status mcp-${s().status.state}`} data-testid="mcp-status">
          {statusText(s().status)}
        </span>
        <span class="badge">{s().transport.transport}</span>
        <Show when={s().signedIn}>
          <span class="badge mcp-signed-in" data-testid="mcp-signed-in">
            signed in
          </span>
        </Show>
        <code class="mcp-target" title={targetOf(s().transport)}>
          {targetOf(s().transport)}
        </code>
      </div>
      <Show when={s().description}>
        <p class="mcp-description">{s().description}</p>
      </Show>
      <Show when={signInWhy()}>
        {(why) => (
          <p class="mcp-failure error" data-testid="mcp-failure">
            {why()}
          </p>
        )}
      </Show>
      <Show when={failed()}>
        {(f) => (
          <div class="mcp-failure" data-testid="mcp-failure">
            <p class="error">{f().reason}</p>
            <Show when={f().stderr.length}>
              <pre class="mcp-stderr">{f().stderr.join("\n")}</pre>
            </Show>
          </div>
        )}
      </Show>
      <div class="row mcp-actions">
        <label class="inline">
          <input
            type="checkbox"
            data-testid="mcp-enabled"
            checked={s().enabled}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              void props.act(() => props.deps.setEnabled(s().name, on));
            }}
          />{" "}
          Enabled
        </label>
        <label class="inline" title="Its tools are in every chat from the first message, without activate_tools. They take room in every request.">
          <input type="checkbox" data-testid="mcp-always-on" checked={props.alwaysOn} onChange={(e) => props.setAlwaysOn(e.currentTarget.checked)} /> Always on
        </label>
        <button type="button" data-testid="mcp-edit" onClick={() => props.edit(s())}>
          Edit
        </button>
        <button type="button" data-testid="mcp-log" onClick={() => void showLog()}>
          {log() === null ? "Log" : "Hide log"}
        </button>
        <Show when={s().status.state === "failed"}>
          <button type="button" data-testid="mcp-reconnect" onClick={() => void props.act(() => props.deps.retry(s().name))}>
            Retry now
          </button>
        </Show>
        <Show when={http() && !s().signedIn}>
          <button type="button" class={signInWhy() ? "send" : ""} data-testid="mcp-sign-in" disabled={signingIn()} onClick={() => void signIn()}>
            {signingIn() ? "Waiting for the browser…" : "Sign in"}
          </button>
        </Show>
        <Show when={http() && s().signedIn}>
          <button type="button" data-testid="mcp-sign-out" onClick={() => void props.act(() => props.deps.signOut(s().name))}>
            Sign out
          </button>
        </Show>
        <Show
          when={confirmRemove()}
          fallback={
            <button type="button" class="reject" data-testid="mcp-remove" onClick={() => setConfirmRemove(true)}>
              Remove
            </button>
          }
        >
          <button type="button" class="reject" data-testid="mcp-remove-confirm" onClick={() => void props.act(() => props.deps.remove(s().name))}>
            Remove {s().name} for good
          </button>
          <button type="button" onClick={() => setConfirmRemove(false)}>
            Keep
          </button>
        </Show>
      </div>
      <Show when={s().tools.length}>
        <details class="mcp-tools-box" data-testid="mcp-tools-box">
          <summary>
            {s().tools.length} tool{s().tools.length === 1 ? "" : "s"}
          </summary>
          <ToolList tools={s().tools} />
        </details>
      </Show>
      <Show when={log() !== null}>
        <pre class="mcp-log" data-testid="mcp-log-text">
          {log() || "(nothing written to stderr yet)"}
        </pre>
      </Show>
    </li>
  );
}

/** The page as the router mounts it (`#/mcp`). */
export function McpScreen() {
  return <McpPage deps={realDeps} />;
}
