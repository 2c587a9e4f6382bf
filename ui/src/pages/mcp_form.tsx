// The MCP page's add/edit form (stdio: command, args, env, cwd; or a URL
// with headers) with its test connection, and the import panel.
import { createSignal, For, Show } from "solid-js";
import type { McpImportView, McpServerInput, McpTestView, McpToolView, McpTransportView } from "../bindings";

export type FormDeps = {
  save: (input: McpServerInput, previousName: string | null) => Promise<unknown>;
  test: (input: McpServerInput) => Promise<McpTestView>;
  errorMessage: (e: unknown) => string;
};

/** `K=V` (env) or `K: V` (headers) lines to a map; a line without the
 *  separator is an error the form shows, never silently dropped. */
export function parsePairs(text: string, sep: "=" | ":"): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf(sep);
    const key = at > 0 ? line.slice(0, at).trim() : "";
    if (!key) throw new Error(`\`${line}\` is not ${sep === "=" ? "NAME=value" : "Name: value"}`);
    out[key] = line.slice(at + 1).trim();
  }
  return out;
}

export function formatPairs(map: Record<string, string>, sep: "=" | ":"): string {
  return Object.entries(map)
    .map(([k, v]) => (sep === "=" ? `${k}=${v}` : `${k}: ${v}`))
    .join("\n");
}

const EMPTY: McpServerInput = {
  name: "",
  transport: { transport: "stdio", command: "", args: [], env: {}, cwd: null },
  enabled: true,
  timeoutMs: 60_000,
  description: "",
};

/** Add (no `initial`) or edit a server. `done` closes the form. */
export function ServerForm(props: { initial?: McpServerInput; deps: FormDeps; done: () => void }) {
  const init = props.initial ?? EMPTY;
  const stdio = init.transport.transport === "stdio" ? init.transport : null;
  const http = init.transport.transport === "http" ? init.transport : null;
  const [name, setName] = createSignal(init.name);
  const [kind, setKind] = createSignal<"stdio" | "http">(init.transport.transport);
  const [command, setCommand] = createSignal(stdio?.command ?? "");
  const [args, setArgs] = createSignal((stdio?.args ?? []).join("\n"));
  const [env, setEnv] = createSignal(formatPairs(stdio?.env ?? {}, "="));
  const [cwd, setCwd] = createSignal(stdio?.cwd ?? "");
  const [url, setUrl] = createSignal(http?.url ?? "");
  const [headers, setHeaders] = createSignal(formatPairs(http?.headers ?? {}, ":"));
  const [clientId, setClientId] = createSignal(http?.clientId ?? "");
  // Write-only: the stored secret is never read back; empty keeps it.
  const [clientSecret, setClientSecret] = createSignal("");
  const [description, setDescription] = createSignal(init.description);
  const [timeout, setTimeoutSecs] = createSignal(String(Math.max(1, Math.round((init.timeoutMs ?? 60_000) / 1000))));
  const [enabled, setEnabled] = createSignal(init.enabled);
  const [error, setError] = createSignal("");
  const [busy, setBusy] = createSignal<"" | "save" | "test">("");
  const [tested, setTested] = createSignal<McpTestView | null>(null);

  /** What the form says, or throws with what is wrong. */
  const input = (): McpServerInput => {
    const secs = Number(timeout());
    if (!Number.isInteger(secs) || secs < 1) throw new Error("the timeout is a whole number of seconds, at least 1");
    const transport: McpTransportView =
      kind() === "stdio"
        ? {
            transport: "stdio",
            command: command().trim(),
            args: args()
              .split("\n")
              .map((a) => a.trim())
              .filter((a) => a !== ""),
            env: parsePairs(env(), "="),
            cwd: cwd().trim() || null,
          }
        : { transport: "http", url: url().trim(), headers: parsePairs(headers(), ":"), ...(clientId().trim() ? { clientId: clientId().trim() } : {}) };
    const secret = kind() === "http" && clientId().trim() && clientSecret().trim() ? { clientSecret: clientSecret().trim() } : {};
    return { name: name().trim(), transport, enabled: enabled(), timeoutMs: secs * 1000, description: description().trim(), ...secret };
  };

  const run = async (what: "save" | "test") => {
    setError("");
    setTested(null);
    let value: McpServerInput;
    try {
      value = input();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return;
    }
    setBusy(what);
    try {
      if (what === "save") {
        await props.deps.save(value, props.initial?.name ?? null);
        props.done();
      } else {
        setTested(await props.deps.test(value));
      }
    } catch (e) {
      setError(props.deps.errorMessage(e));
    } finally {
      setBusy("");
    }
  };

  return (
    <form
      class="mcp-form"
      data-testid="mcp-form"
      onSubmit={(e) => {
        e.preventDefault();
        void run("save");
      }}
    >
      <h2>{props.initial ? `Edit ${props.initial.name}` : "Add a server"}</h2>
      <div class="mcp-form-grid">
        <label>
          Name
          <input name="mcp-name" required value={name()} onInput={(e) => setName(e.currentTarget.value)} placeholder="everything" />
        </label>
        <label>
          Transport
          <select name="mcp-kind" value={kind()} onInput={(e) => setKind(e.currentTarget.value as "stdio" | "http")} onChange={(e) => setKind(e.currentTarget.value as "stdio" | "http")}>
            <option value="stdio">stdio (a command)</option>
            <option value="http">streamable HTTP (a URL)</option>
          </select>
        </label>
        <Show
          when={kind() === "stdio"}
          fallback={
            <>
              <label class="wide">
                URL
                <input name="mcp-url" value={url()} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://example.com/mcp" />
              </label>
              <label class="wide">
                <span>
                  Headers, one <code>Name: value</code> a line (<code>{"${SECRET}"}</code> is filled from secrets)
                </span>
                <textarea name="mcp-headers" rows={2} value={headers()} onInput={(e) => setHeaders(e.currentTarget.value)} />
              </label>
              <label>
                <span>
                  OAuth client id <span class="muted">(optional)</span>
                </span>
                <input name="mcp-client-id" value={clientId()} onInput={(e) => setClientId(e.currentTarget.value)} placeholder="registered with http://127.0.0.1 as redirect" />
              </label>
              <label>
                <span>
                  Client secret <span class="muted">(optional, kept in secrets)</span>
                </span>
                <input
                  name="mcp-client-secret"
                  type="password"
                  autocomplete="off"
                  value={clientSecret()}
                  onInput={(e) => setClientSecret(e.currentTarget.value)}
                  placeholder={props.initial && http?.clientId ? "unchanged" : ""}
                />
              </label>
              <p class="muted wide">Without a client id, sign-in registers Skald with the server's authorization server, when it allows that.</p>
            </>
          }
        >
          <label class="wide">
            Command
            <input name="mcp-command" value={command()} onInput={(e) => setCommand(e.currentTarget.value)} placeholder="npx" />
          </label>
          <label class="wide">
            Arguments, one a line
            <textarea name="mcp-args" rows={3} value={args()} onInput={(e) => setArgs(e.currentTarget.value)} />
          </label>
          <label class="wide">
            <span>
              Environment, one <code>NAME=value</code> a line (<code>{"${SECRET}"}</code> is filled from secrets)
            </span>
            <textarea name="mcp-env" rows={3} value={env()} onInput={(e) => setEnv(e.currentTarget.value)} />
          </label>
          <label class="wide">
            Working directory (optional)
            <input name="mcp-cwd" value={cwd()} onInput={(e) => setCwd(e.currentTarget.value)} />
          </label>
        </Show>
        <label class="wide">
          What it is for (the model reads this)
          <input name="mcp-description" value={description()} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        <label>
          Timeout per call (s)
          <input name="mcp-timeout" type="number" min="1" value={timeout()} onInput={(e) => setTimeoutSecs(e.currentTarget.value)} />
        </label>
        <label class="inline">
          <input name="mcp-enabled" type="checkbox" checked={enabled()} onChange={(e) => setEnabled(e.currentTarget.checked)} /> Enabled
        </label>
      </div>
      <div class="row">
        <button type="submit" class="send" data-testid="mcp-save" disabled={busy() !== ""}>
          {busy() === "save" ? "Saving…" : "Save"}
        </button>
        <button type="button" data-testid="mcp-test" disabled={busy() !== ""} onClick={() => void run("test")}>
          {busy() === "test" ? "Testing…" : "Test connection"}
        </button>
        <button type="button" data-testid="mcp-cancel" onClick={() => props.done()}>
          Cancel
        </button>
      </div>
      <Show when={error()}>
        <p class="error" role="alert" data-testid="mcp-form-error">
          {error()}
        </p>
      </Show>
      <Show when={tested()}>
        {(t) => (
          <div class="mcp-test" data-testid="mcp-test-result" data-ok={String(t().ok)}>
            <Show when={t().ok} fallback={<pre class="mcp-stderr error">{t().error ?? "it did not connect"}</pre>}>
              <p>
                Connected in {t().elapsedMs} ms: {t().tools.length} tool{t().tools.length === 1 ? "" : "s"}.
              </p>
              <ToolList tools={t().tools} />
            </Show>
          </div>
        )}
      </Show>
    </form>
  );
}

/** A server's tools with their descriptions. */
export function ToolList(props: { tools: McpToolView[] }) {
  return (
    <ul class="mcp-tools" data-testid="mcp-tools">
      <For each={props.tools}>
        {(t) => (
          <li data-tool={t.tool} title={t.name}>
            <code>{t.tool}</code>
            <Show when={t.description}>
              <span class="muted"> — {t.description}</span>
            </Show>
          </li>
        )}
      </For>
    </ul>
  );
}

/** Paste `mcpServers` JSON or pick a file holding it. */
export function ImportPanel(props: {
  import: (text: string) => Promise<McpImportView>;
  errorMessage: (e: unknown) => string;
  done: () => void;
}) {
  const [text, setText] = createSignal("");
  const [result, setResult] = createSignal<McpImportView | null>(null);
  const [error, setError] = createSignal("");
  const submit = async () => {
    setError("");
    setResult(null);
    try {
      setResult(await props.import(text()));
    } catch (e) {
      setError(props.errorMessage(e));
    }
  };
  return (
    <div class="mcp-form" data-testid="mcp-import">
      <h2>Import</h2>
      <p class="muted">
        The <code>mcpServers</code> JSON of Claude Desktop, Claude Code or Cursor (or VS Code's <code>servers</code>): paste it, or pick the file.
      </p>
      <input
        type="file"
        accept=".json,application/json"
        data-testid="mcp-import-file"
        onChange={async (e) => {
          const file = e.currentTarget.files?.[0];
          if (file) setText(await file.text());
        }}
      />
      <textarea name="mcp-import-text" rows={8} value={text()} onInput={(e) => setText(e.currentTarget.value)} placeholder='{"mcpServers": {"name": {"command": "npx", "args": ["…"]}}}' />
      <div class="row">
        <button type="button" class="send" data-testid="mcp-import-submit" disabled={!text().trim()} onClick={() => void submit()}>
          Import
        </button>
        <button type="button" onClick={() => props.done()}>
          Close
        </button>
      </div>
      <Show when={error()}>
        <p class="error" role="alert">
          {error()}
        </p>
      </Show>
      <Show when={result()}>
        {(r) => (
          <div data-testid="mcp-import-result">
            <p>{r().imported.length ? `Imported: ${r().imported.join(", ")}` : "Nothing was imported."}</p>
            <Show when={r().warnings.length}>
              <ul class="mcp-warnings">
                <For each={r().warnings}>{(w) => <li>{w}</li>}</For>
              </ul>
            </Show>
          </div>
        )}
      </Show>
    </div>
  );
}
