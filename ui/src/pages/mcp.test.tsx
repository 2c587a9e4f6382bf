import { afterEach, describe, expect, it, vi } from "vitest";
import type { McpServerView, McpTestView } from "../bindings";
import { mountSolid } from "../solid";
import { McpPage, type McpDeps } from "./mcp";
import { parsePairs } from "./mcp_form";

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

const ready: McpServerView = {
  name: "everything",
  transport: { transport: "stdio", command: "node", args: ["everything.js", "stdio"], env: { TOKEN: "${GH}" }, cwd: null },
  enabled: true,
  timeoutMs: 60_000,
  description: "the reference server",
  status: { state: "ready", tools: 2 },
  tools: [
    { name: "mcp__everything__echo", tool: "echo", description: "Echoes back the input" },
    { name: "mcp__everything__add", tool: "add", description: "Adds two numbers" },
  ],
  logPath: "/data/mcp-logs/everything.log",
  signedIn: false,
};
const failed: McpServerView = {
  ...ready,
  name: "broken",
  transport: { transport: "stdio", command: "node", args: ["broken.js"], env: {}, cwd: null },
  description: "",
  status: { state: "failed", reason: "MCP handshake failed: connection closed", stderr: ["fatal: cannot open the frobnicator"] },
  tools: [],
};
const remote: McpServerView = {
  ...ready,
  name: "remote",
  transport: { transport: "http", url: "https://example.invalid/mcp", headers: {} },
  enabled: false,
  status: { state: "disabled" },
  tools: [],
};
const locked: McpServerView = {
  ...remote,
  name: "locked",
  enabled: true,
  status: { state: "needs_sign_in", reason: "the server asks for OAuth sign-in" },
};

function fakeDeps(list: McpServerView[], stored = { alwaysOn: [] as string[], sampling: false }): McpDeps & { list: ReturnType<typeof vi.fn> } {
  return {
    list: vi.fn(async () => list),
    save: vi.fn(async () => ready),
    remove: vi.fn(async () => true),
    setEnabled: vi.fn(async () => ready),
    import: vi.fn(async () => ({ imported: ["fs"], warnings: ["fs: field `alwaysAllow` ignored"] })),
    log: vi.fn(async () => "line one\nline two\n"),
    test: vi.fn(async (): Promise<McpTestView> => ({ ok: true, error: null, tools: ready.tools, elapsedMs: 420 })),
    retry: vi.fn(async () => true),
    signIn: vi.fn(async () => ready),
    signOut: vi.fn(async () => ready),
    // Stored as the app stores them: the page reads them back after a change.
    alwaysOn: vi.fn(async () => stored.alwaysOn),
    setAlwaysOn: vi.fn(async (servers: string[]) => (stored.alwaysOn = servers)),
    allowSampling: vi.fn(async () => stored.sampling),
    setAllowSampling: vi.fn(async (allow: boolean) => (stored.sampling = allow)),
    errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
  };
}

let dispose: (() => void) | null = null;
function mount(deps: McpDeps, refreshMs = 60_000): HTMLElement {
  const root = document.createElement("div");
  // Solid delegates input and click events to the document.
  document.body.append(root);
  dispose = mountSolid(root, () => <McpPage deps={deps} refreshMs={refreshMs} />);
  return root;
}
afterEach(() => {
  dispose?.();
  dispose = null;
  document.body.replaceChildren();
});

const q = <T extends Element = HTMLElement>(root: ParentNode, sel: string) => root.querySelector(sel) as T;
function type(root: ParentNode, sel: string, value: string) {
  const e = q<HTMLInputElement>(root, sel);
  e.value = value;
  e.dispatchEvent(new Event("input", { bubbles: true }));
}
const click = (root: ParentNode, sel: string) => q<HTMLElement>(root, sel).click();
const submit = (root: ParentNode) => q<HTMLFormElement>(root, "[data-testid=mcp-form]").dispatchEvent(new Event("submit", { cancelable: true }));

describe("the MCP page", () => {
  it("shows each server's status: ready with its tools, failed with why and stderr, disabled", async () => {
    const root = mount(fakeDeps([ready, failed, remote]));
    await flush();
    const row = (n: string) => q(root, `[data-server=${n}]`);
    expect(row("everything").dataset.state).toBe("ready");
    expect(q(row("everything"), "[data-testid=mcp-status]").textContent).toBe("ready · 2 tools");
    const tools = Array.from(row("everything").querySelectorAll("[data-tool]")).map((li) => li.textContent);
    expect(tools).toEqual(["echo — Echoes back the input", "add — Adds two numbers"]);
    expect(q(row("broken"), "[data-testid=mcp-failure]").textContent).toContain("connection closed");
    expect(q(row("broken"), ".mcp-stderr").textContent).toBe("fatal: cannot open the frobnicator");
    expect(q(row("broken"), "[data-testid=mcp-reconnect]")).not.toBeNull();
    expect(q(row("everything"), "[data-testid=mcp-reconnect]")).toBeNull();
    expect(q(row("remote"), "[data-testid=mcp-status]").textContent).toBe("disabled");
    expect(q<HTMLInputElement>(row("remote"), "[data-testid=mcp-enabled]").checked).toBe(false);
    // Signing in is for HTTP servers only.
    expect(Array.from(root.querySelectorAll("[data-testid=mcp-sign-in]")).map((b) => (b.closest("[data-server]") as HTMLElement).dataset.server)).toEqual(["remote"]);
    expect(q(row("remote"), ".mcp-target").textContent).toBe("https://example.invalid/mcp");
    expect(q(row("everything"), ".mcp-target").textContent).toBe("node everything.js stdio");
  });

  it("follows status changes live and keeps an open log across refreshes", async () => {
    const deps = fakeDeps([{ ...ready, status: { state: "connecting" }, tools: [] }]);
    const root = mount(deps, 20);
    await flush();
    const row = q(root, "[data-server=everything]");
    expect(row.dataset.state).toBe("connecting");
    click(row, "[data-testid=mcp-log]");
    await flush();
    expect(q(row, "[data-testid=mcp-log-text]").textContent).toBe("line one\nline two\n");
    deps.list.mockImplementation(async () => [ready]);
    await new Promise((r) => setTimeout(r, 60));
    await flush();
    // The same row node, now ready, log still open.
    expect(q(root, "[data-server=everything]")).toBe(row);
    expect(row.dataset.state).toBe("ready");
    expect(q(row, "[data-testid=mcp-status]").textContent).toBe("ready · 2 tools");
    expect(q(row, "[data-testid=mcp-log-text]")).not.toBeNull();
  });

  it("enables, retries and removes only after a confirmation", async () => {
    const deps = fakeDeps([ready, failed]);
    const root = mount(deps);
    await flush();
    const box = q<HTMLInputElement>(root, "[data-server=everything] [data-testid=mcp-enabled]");
    box.checked = false;
    box.dispatchEvent(new Event("change"));
    await flush();
    expect(deps.setEnabled).toHaveBeenCalledWith("everything", false);
    click(root, "[data-server=broken] [data-testid=mcp-reconnect]");
    await flush();
    expect(deps.retry).toHaveBeenCalledWith("broken");
    click(root, "[data-server=broken] [data-testid=mcp-remove]");
    await flush();
    expect(deps.remove).not.toHaveBeenCalled();
    click(root, "[data-server=broken] [data-testid=mcp-remove-confirm]");
    await flush();
    expect(deps.remove).toHaveBeenCalledWith("broken");
  });

  it("adds a stdio server from the form: args one a line, env as NAME=value", async () => {
    const deps = fakeDeps([]);
    const root = mount(deps);
    await flush();
    expect(q(root, "[data-testid=mcp-empty]")).not.toBeNull();
    click(root, "[data-testid=mcp-add]");
    await flush();
    type(root, "[name=mcp-name]", " everything ");
    type(root, "[name=mcp-command]", "node");
    type(root, "[name=mcp-args]", "/srv/everything.js\n\nstdio\n");
    type(root, "[name=mcp-env]", "TOKEN=${GH}\nDEBUG = 1");
    type(root, "[name=mcp-timeout]", "30");
    submit(root);
    await flush();
    expect(deps.save).toHaveBeenCalledWith(
      {
        name: "everything",
        transport: { transport: "stdio", command: "node", args: ["/srv/everything.js", "stdio"], env: { TOKEN: "${GH}", DEBUG: "1" }, cwd: null },
        enabled: true,
        timeoutMs: 30_000,
        description: "",
      },
      null,
    );
    expect(root.querySelector("[data-testid=mcp-form]")).toBeNull();
  });

  it("adds a URL server with headers, and refuses a malformed header line without saving", async () => {
    const deps = fakeDeps([]);
    const root = mount(deps);
    await flush();
    click(root, "[data-testid=mcp-add]");
    await flush();
    type(root, "[name=mcp-name]", "remote");
    type(root, "[name=mcp-kind]", "http");
    await flush();
    expect(root.querySelector("[name=mcp-command]")).toBeNull();
    type(root, "[name=mcp-url]", "https://example.invalid/mcp");
    type(root, "[name=mcp-headers]", "Authorization Bearer x");
    submit(root);
    await flush();
    expect(deps.save).not.toHaveBeenCalled();
    expect(q(root, "[data-testid=mcp-form-error]").textContent).toContain("is not Name: value");
    type(root, "[name=mcp-headers]", "Authorization: Bearer ${TOKEN}");
    submit(root);
    await flush();
    expect(deps.save).toHaveBeenCalledWith(
      expect.objectContaining({ name: "remote", transport: { transport: "http", url: "https://example.invalid/mcp", headers: { Authorization: "Bearer ${TOKEN}" } } }),
      null,
    );
  });

  it("edits a server with its saved values and saves under its previous name", async () => {
    const deps = fakeDeps([ready]);
    const root = mount(deps);
    await flush();
    click(root, "[data-server=everything] [data-testid=mcp-edit]");
    await flush();
    expect(q<HTMLTextAreaElement>(root, "[name=mcp-args]").value).toBe("everything.js\nstdio");
    expect(q<HTMLTextAreaElement>(root, "[name=mcp-env]").value).toBe("TOKEN=${GH}");
    type(root, "[name=mcp-name]", "ev2");
    submit(root);
    await flush();
    expect(deps.save).toHaveBeenCalledWith(expect.objectContaining({ name: "ev2", description: "the reference server" }), "everything");
  });

  it("tests a connection from the form: tools when it works, the error with stderr when not", async () => {
    const deps = fakeDeps([]);
    const root = mount(deps);
    await flush();
    click(root, "[data-testid=mcp-add]");
    await flush();
    type(root, "[name=mcp-name]", "everything");
    type(root, "[name=mcp-command]", "node");
    click(root, "[data-testid=mcp-test]");
    await flush();
    expect(deps.save).not.toHaveBeenCalled();
    expect(q(root, "[data-testid=mcp-test-result]").dataset.ok).toBe("true");
    expect(root.querySelectorAll("[data-testid=mcp-test-result] [data-tool]").length).toBe(2);
    (deps.test as ReturnType<typeof vi.fn>).mockImplementation(async () => ({ ok: false, error: "cannot start the server: no such file\nlast stderr lines:\nboom", tools: [], elapsedMs: 3 }));
    click(root, "[data-testid=mcp-test]");
    await flush();
    expect(q(root, "[data-testid=mcp-test-result]").dataset.ok).toBe("false");
    expect(q(root, "[data-testid=mcp-test-result] pre").textContent).toContain("boom");
  });

  it("imports pasted mcpServers JSON and shows what was ignored", async () => {
    const deps = fakeDeps([]);
    const root = mount(deps);
    await flush();
    click(root, "[data-testid=mcp-import-open]");
    await flush();
    const text = '{"mcpServers": {"fs": {"command": "npx", "alwaysAllow": []}}}';
    type(root, "[name=mcp-import-text]", text);
    click(root, "[data-testid=mcp-import-submit]");
    await flush();
    expect(deps.import).toHaveBeenCalledWith(text);
    expect(q(root, "[data-testid=mcp-import-result]").textContent).toContain("Imported: fs");
    expect(q(root, "[data-testid=mcp-import-result]").textContent).toContain("alwaysAllow");
  });

  it("offers Sign in on HTTP servers, says why one needs it, and Sign out once signed in", async () => {
    const deps = fakeDeps([ready, locked, { ...remote, name: "in", enabled: true, status: { state: "ready", tools: 0 }, signedIn: true }]);
    const root = mount(deps);
    await flush();
    expect(root.querySelector("[data-server=everything] [data-testid=mcp-sign-in]")).toBeNull();
    expect(q(root, "[data-server=locked] [data-testid=mcp-status]").textContent).toBe("needs sign-in");
    expect(q(root, "[data-server=locked] [data-testid=mcp-failure]").textContent).toBe("the server asks for OAuth sign-in");
    click(root, "[data-server=locked] [data-testid=mcp-sign-in]");
    await flush();
    expect(deps.signIn).toHaveBeenCalledWith("locked");
    expect(root.querySelector("[data-server=in] [data-testid=mcp-sign-in]")).toBeNull();
    expect(q(root, "[data-server=in] [data-testid=mcp-signed-in]")).not.toBeNull();
    click(root, "[data-server=in] [data-testid=mcp-sign-out]");
    await flush();
    expect(deps.signOut).toHaveBeenCalledWith("in");
  });

  it("refreshes at once on a status event and stops listening when disposed", async () => {
    let fire: () => void = () => undefined;
    const unlisten = vi.fn();
    const deps = { ...fakeDeps([{ ...ready, status: { state: "connecting" as const }, tools: [] }]), onStatus: vi.fn(async (h: () => void) => ((fire = h), unlisten)) };
    const root = mount(deps);
    await flush();
    expect(q(root, "[data-server=everything]").dataset.state).toBe("connecting");
    deps.list.mockImplementation(async () => [ready]);
    fire();
    await flush();
    expect(q(root, "[data-server=everything]").dataset.state).toBe("ready");
    dispose?.();
    dispose = null;
    expect(unlisten).toHaveBeenCalled();
  });
});

describe("parsePairs", () => {
  it("splits at the first separator and names the bad line", () => {
    expect(parsePairs("A=b=c\n\n B = x ", "=")).toEqual({ A: "b=c", B: "x" });
    expect(parsePairs("Authorization: Bearer a:b", ":")).toEqual({ Authorization: "Bearer a:b" });
    expect(() => parsePairs("=x", "=")).toThrow("`=x` is not NAME=value");
  });
});

describe("always on and sampling", () => {
  it("a server's Always on toggle replaces the global list with it added or removed", async () => {
    const deps = fakeDeps([ready, failed], { alwaysOn: ["broken"], sampling: false });
    const root = mount(deps);
    await flush();
    const box = (name: string) => q<HTMLInputElement>(root, `[data-server=${name}] [data-testid=mcp-always-on]`);
    expect(box("broken").checked).toBe(true);
    expect(box("everything").checked).toBe(false);
    box("everything").checked = true;
    box("everything").dispatchEvent(new Event("change", { bubbles: true }));
    await flush();
    expect(deps.setAlwaysOn).toHaveBeenLastCalledWith(["broken", "everything"]);
    expect(box("everything").checked).toBe(true);
    box("broken").checked = false;
    box("broken").dispatchEvent(new Event("change", { bubbles: true }));
    await flush();
    expect(deps.setAlwaysOn).toHaveBeenLastCalledWith(["everything"]);
  });

  it("the sampling switch is off by default, explains what it allows, and stores the choice", async () => {
    const deps = fakeDeps([ready]);
    const root = mount(deps);
    await flush();
    const sw = q<HTMLInputElement>(root, "[data-testid=mcp-sampling]");
    expect(sw.checked).toBe(false);
    const text = q(root, "[data-testid=mcp-sampling-box]").textContent!;
    expect(text).toContain("declined");
    expect(text).toContain("tokens");
    sw.checked = true;
    sw.dispatchEvent(new Event("change", { bubbles: true }));
    await flush();
    expect(deps.setAllowSampling).toHaveBeenCalledWith(true);
    expect(sw.checked).toBe(true);
  });
});

describe("a pre-registered OAuth client", () => {
  it("an HTTP server takes a client id and a write-only secret; editing shows the id, never the secret", async () => {
    const deps = fakeDeps([{ ...remote, transport: { transport: "http", url: "https://example.invalid/mcp", headers: {}, clientId: "skald-desktop" } }]);
    const root = mount(deps);
    await flush();
    click(root, "[data-server=remote] [data-testid=mcp-edit]");
    await flush();
    expect(q<HTMLInputElement>(root, "[name=mcp-client-id]").value).toBe("skald-desktop");
    const secret = q<HTMLInputElement>(root, "[name=mcp-client-secret]");
    expect(secret.type).toBe("password");
    expect(secret.value).toBe("");
    // Left empty: the stored secret is kept (no clientSecret sent).
    submit(root);
    await flush();
    const [first] = (deps.save as ReturnType<typeof vi.fn>).mock.calls[0] as [Record<string, unknown>];
    expect(first.transport).toEqual({ transport: "http", url: "https://example.invalid/mcp", headers: {}, clientId: "skald-desktop" });
    expect("clientSecret" in first).toBe(false);
    click(root, "[data-server=remote] [data-testid=mcp-edit]");
    await flush();
    type(root, "[name=mcp-client-secret]", "s3cret");
    submit(root);
    await flush();
    expect(deps.save).toHaveBeenLastCalledWith(expect.objectContaining({ clientSecret: "s3cret" }), "remote");
  });
});
