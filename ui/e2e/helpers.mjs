import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { Session, groupProcesses, startDriver } from "./webdriver.mjs";

// Steps the E2E tests share: the scripted LLM mock, filling inputs the way
// typing does, adding the mock as a provider in Settings, starting a chat and
// sending a message.

/** What the mock's `GET /v1/models` lists. */
export const MOCK_MODELS = ["mock-small", "mock-large"];

/** The `skald-llm-mock` binary (`cargo build -p skald-llm-mock`). */
function mockBinary() {
  if (process.env.SKALD_LLM_MOCK) return process.env.SKALD_LLM_MOCK;
  const target = process.env.CARGO_TARGET_DIR ?? join(process.env.HOME ?? "", ".cache", "skald-target");
  return join(target, "debug", "skald-llm-mock");
}

/**
 * Starts the scripted LLM mock (the `skald-llm-mock` binary, an
 * OpenAI-compatible server on 127.0.0.1). `script` is a list of replies, one
 * per chat request in order; a reply is a list of steps — a string is a text
 * delta, a number a pause in ms, `{ finish_reason }` the finish chunk, any
 * other object a delta (see `toolCallChunk`) — or an object reply (errors,
 * cut streams, Anthropic, raw bodies: see src-tauri/crates/llm-mock/src/script.rs).
 *
 * `routes` (optional): `[{ when, reply }]` or `[{ when, replies: [...] }]` — a
 * request `when` takes gets the route's next reply instead of the next
 * scripted one, whatever its place among concurrent requests (agents running
 * side by side). `when` names what the request must say, one or more of
 * `system_contains`, `user_contains`, `last_user_contains`, `model`,
 * `body_contains` (see src-tauri/crates/llm-mock/src/route.rs).
 *
 * `requests`, `times` and `pids` are the chat requests' bodies, arrival times
 * (ms) and sending processes, read afresh on every access. `push(...replies)`
 * queues more replies, `route(when, ...replies)` more routed ones; `close()`
 * stops the mock.
 */
export async function startMockOpenAI(script, { routes = [] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "skald-llm-mock-"));
  const scriptFile = join(dir, "script.json");
  const record = join(dir, "requests.jsonl");
  writeFileSync(scriptFile, JSON.stringify({ replies: script, routes }));
  const child = spawn(mockBinary(), ["--script", scriptFile, "--record", record, "--peer-pids", "--exit-on-stdin-eof"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const started = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("skald-llm-mock did not start within 10 s")), 10_000);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot start ${mockBinary()} (cargo build -p skald-llm-mock): ${e.message}`));
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`skald-llm-mock exited with ${code} before listening`));
    });
    child.stdout.on("data", (d) => {
      out += d;
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      resolve(JSON.parse(out.slice(0, nl)));
    });
  });
  // Whole lines only: the mock writes each request as one line.
  const posted = () => {
    if (!existsSync(record)) return [];
    const lines = readFileSync(record, "utf8").split("\n");
    lines.pop();
    return lines.map((l) => JSON.parse(l)).filter((r) => r.method === "POST");
  };
  const control = async (script) => {
    const res = await fetch(`${started.url}/_mock/replies`, { method: "POST", body: JSON.stringify(script) });
    if (!res.ok) throw new Error(`the mock refused the script: ${await res.text()}`);
  };
  return {
    baseUrl: started.base_url,
    url: started.url,
    get requests() {
      return posted().map((r) => r.body);
    },
    get times() {
      return posted().map((r) => r.time_ms);
    },
    get pids() {
      return posted().map((r) => r.pid ?? null);
    },
    async push(...replies) {
      await control({ replies });
    },
    async route(when, ...replies) {
      await control({ routes: [{ when, replies }] });
    },
    close() {
      child.stdin.end();
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A tool-call delta fragment, OpenAI style. */
export function toolCallChunk(index, { id, name, args }) {
  const call = { index, function: { arguments: args ?? "" } };
  if (id) call.id = id;
  if (id) call.type = "function";
  if (name) call.function.name = name;
  return { tool_calls: [call] };
}

/** Sets an input's value and fires `input`, as typing would. */
export async function setValue(session, selector, value) {
  await session.execute(
    "const e = document.querySelector(arguments[0]); e.value = arguments[1]; e.dispatchEvent(new Event('input'));",
    [selector, value],
  );
}

/** Adds an OpenAI-compatible provider at `baseUrl` and waits until its model is the default. */
export async function addMockProvider(session, baseUrl, { name = "Mock", model = "mock-model" } = {}) {
  await session.execute("location.hash = '#/settings'");
  await session.waitFor("return !!document.querySelector('[data-testid=provider-form]')", { what: "settings" });
  await setValue(session, "[name=kind]", "openai");
  await setValue(session, "[name=name]", name);
  await setValue(session, "[name=baseUrl]", baseUrl);
  await setValue(session, "[name=apiKey]", "test-key");
  await setValue(session, "[name=model]", model);
  await session.execute("document.querySelector('[data-testid=provider-form] button[type=submit]').click()");
  await session.waitFor(`return document.querySelector('[data-model="${model}"] input')?.checked === true`, {
    what: "the provider to be listed with its default model",
  });
}

/** Opens the chat page and starts a new session; resolves when the composer is ready. */
export async function newChat(session) {
  await session.execute("location.hash = '#/chat'");
  await session.waitFor("return !!document.querySelector('[data-testid=new-chat]')", { what: "the chat page" });
  await session.execute("document.querySelector('[data-testid=new-chat]').click()");
  // New chat makes (or reuses) a session, then routes to it: until that route
  // has mounted, the composer on screen is the previous chat's, and a message
  // typed there went to that chat.
  await session.waitFor(
    "const c = document.querySelector('[data-testid=composer]'); return location.hash.startsWith('#/chat/') && !!document.querySelector(`a.active[href=\"${location.hash}\"]`) && !!c && !c.disabled",
    { what: "the new chat's composer" },
  );
}

/** Types `text` into the composer and presses Send. The chat page may be
 *  mounting again right after a navigation (its composer briefly absent), so
 *  it waits for a composer and then types and sends in one step. */
export async function send(session, text) {
  await session.waitFor("const c = document.querySelector('[data-testid=composer]'); return !!c && !c.disabled", { what: "the composer" });
  await session.execute(
    "const c = document.querySelector('[data-testid=composer]'); c.value = arguments[0]; c.dispatchEvent(new Event('input')); document.querySelector('[data-testid=send]').click();",
    [text],
  );
}

/** Presses `key` as the keyboard does (WebDriver key actions), into
 *  whatever has the focus. */
export async function pressKey(session, key) {
  await session.cmd("POST", "/actions", {
    actions: [{ type: "key", id: "keyboard", actions: [{ type: "keyDown", value: key }, { type: "keyUp", value: key }] }],
  });
  await session.cmd("DELETE", "/actions");
}

/** A page script: whether the element `selector` names has its top inside
 *  the conversation's visible area, in the window (scrolled into view, not
 *  below the fold). */
export function inViewScript(selector) {
  return `const e = document.querySelector(${JSON.stringify(selector)}); const c = document.querySelector('[data-testid=conversation]');
    if (!e || !c) return false; const r = e.getBoundingClientRect(), v = c.getBoundingClientRect();
    return r.top >= Math.max(0, v.top) - 1 && r.top < Math.min(v.bottom, innerHeight) - 20;`;
}

/** Polls `check` (a test-side condition, not a page script) until it holds. */
export async function waitUntil(check, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A stand-in system browser: the env that makes `xdg-open` (what the
 *  opener uses on Linux) hand URLs to a script that records them, and a
 *  reader of what it recorded. No real browser starts. */
export function browserRecorder(dir) {
  const log = join(dir, "opened-urls.txt");
  const script = join(dir, "record-url.sh");
  writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\n`, { mode: 0o755 });
  const apps = join(dir, "data", "applications");
  mkdirSync(apps, { recursive: true });
  writeFileSync(
    join(apps, "skald-e2e-browser.desktop"),
    `[Desktop Entry]\nType=Application\nName=Recorder\nExec=${script} %u\nMimeType=x-scheme-handler/http;x-scheme-handler/https;x-scheme-handler/mailto;\n`,
  );
  mkdirSync(join(dir, "config"), { recursive: true });
  writeFileSync(
    join(dir, "config", "mimeapps.list"),
    "[Default Applications]\nx-scheme-handler/http=skald-e2e-browser.desktop\nx-scheme-handler/https=skald-e2e-browser.desktop\nx-scheme-handler/mailto=skald-e2e-browser.desktop\n",
  );
  return {
    env: {
      BROWSER: script,
      XDG_CURRENT_DESKTOP: "X-Generic",
      XDG_DATA_HOME: join(dir, "data"),
      XDG_CONFIG_HOME: join(dir, "config"),
    },
    opened: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []),
  };
}

/**
 * The set-up of a file whose app goes away and comes back under one driver
 * (killed, or restarting itself): a working directory and a data dir of its
 * own, the mock with `script`, tauri-driver and a session, started in
 * `before` and ended in `after`. `apps()` lists the pids of the app's running
 * instances (the driver's process group holds them all); `relaunch()` opens
 * a new session (a new app) once the old one has gone.
 */
export function appThatComesBack(name, script) {
  const app = process.env.SKALD_APP;
  if (!app) throw new Error("set SKALD_APP");
  const ctx = {
    workdir: mkdtempSync(join(tmpdir(), `skald-e2e-${name}-`)),
    dataDir: mkdtempSync(join(tmpdir(), "skald-e2e-data-")),
    mock: null,
    driver: null,
    session: null,
    apps: () =>
      groupProcesses(ctx.driver.proc.pid)
        .filter((p) => p.exe === app)
        .map((p) => p.pid),
    async relaunch() {
      await ctx.session.quit();
      ctx.session = await Session.create(ctx.driver.base, app);
      return ctx.session;
    },
  };
  before(async () => {
    ctx.mock = await startMockOpenAI(script);
    ctx.driver = await startDriver({ name, cwd: ctx.workdir, env: { SKALD_DATA_DIR: ctx.dataDir } });
    ctx.session = await Session.create(ctx.driver.base, app);
  });
  after(async () => {
    await ctx.session?.quit();
    await ctx.driver?.stop();
    ctx.mock?.close();
  });
  return ctx;
}

/** A person's drag of the side panel's edge by `dx` px, in two steps
 *  (WebDriver pointer actions: the webview gets real pointer events). */
export async function dragPanelEdge(session, dx) {
  const at = await session.execute("const b = document.querySelector('[data-testid=side-resizer]').getBoundingClientRect(); return { x: Math.round(b.left + b.width / 2), y: Math.round(b.top + b.height / 2) };");
  await session.cmd("POST", "/actions", {
    actions: [
      {
        type: "pointer",
        id: "mouse",
        parameters: { pointerType: "mouse" },
        actions: [
          { type: "pointerMove", duration: 0, origin: "viewport", x: at.x, y: at.y },
          { type: "pointerDown", button: 0 },
          { type: "pointerMove", duration: 150, origin: "pointer", x: dx / 2, y: 0 },
          { type: "pointerMove", duration: 150, origin: "pointer", x: dx / 2, y: 0 },
          { type: "pointerUp", button: 0 },
        ],
      },
    ],
  });
  await session.cmd("DELETE", "/actions").catch(() => undefined);
}
