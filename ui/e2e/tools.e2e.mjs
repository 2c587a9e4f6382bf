// E2E: the built app in its real webview lists exactly the tools that
// `skald tools --json` lists, and we keep a screenshot of it; its webview
// gets only the IPC it uses; a running command's output reaches its card
// while it runs.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { addMockProvider, newChat, send, startMockOpenAI, toolCallChunk } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const cli = process.env.SKALD_CLI;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !cli || !shots) throw new Error("set SKALD_APP, SKALD_CLI and SKALD_SCREENSHOTS");

const workdir = mkdtempSync(join(tmpdir(), "skald-e2e-tools-"));
// Its own data dir (the app and the CLI read the same one): the live-output
// test adds a provider that must not leak into other files.
const dataDir = mkdtempSync(join(tmpdir(), "skald-e2e-tools-data-"));
// Five lines, half a second apart: about 2 s in all.
const command = "for i in 1 2 3 4 5; do echo line$i; sleep 0.5; done";

let mock;
let driver;
let session;

before(async () => {
  mock = await startMockOpenAI([
    [
      toolCallChunk(0, { id: "call_cmd", name: "execute_cmd", args: JSON.stringify({ command }) }),
      { finish_reason: "tool_calls" },
    ],
    ["Five lines.", { finish_reason: "stop" }],
  ]);
  driver = await startDriver({ name: "tools", cwd: workdir, env: { SKALD_DATA_DIR: dataDir } });
  session = await Session.create(driver.base, app);
});

after(async () => {
  await session?.quit();
  await driver?.stop();
  mock?.close();
});

test("the Tools page lists exactly the catalogue of `skald tools --json`", async () => {
  const all = JSON.parse(
    execFileSync(cli, ["tools", "--json"], { encoding: "utf8", env: { ...process.env, SKALD_DATA_DIR: dataDir } }),
  );
  const expected = [...all.builtIn, ...all.mcp].map((t) => t.name).sort();

  await session.execute("location.hash = '#/tools'");
  await session.waitFor("return document.querySelectorAll('tr[data-tool]').length > 0", {
    what: "the tools table",
  });
  const shown = await session.execute(
    "return Array.from(document.querySelectorAll('tr[data-tool]')).map(r => r.dataset.tool)",
  );
  assert.deepEqual([...shown].sort(), expected);

  const category = await session.execute(
    "return document.querySelector('tr[data-tool=\"read_file\"] .tool-category')?.textContent",
  );
  assert.equal(category, "Filesystem");

  // app_info crosses IPC too: the sidebar shows the version and schema.
  const about = await session.waitFor(
    "const t = document.getElementById('about')?.textContent; return t && t.includes('schema') ? t : null",
    { what: "the about line" },
  );
  assert.match(about, /^v\d+\.\d+\.\d+ · schema \d+$/);

  // A screenshot right after a DOM change can be a frame stale.
  await new Promise((r) => setTimeout(r, 1000));
  mkdirSync(shots, { recursive: true });
  const file = join(shots, "tools-page.png");
  writeFileSync(file, await session.screenshot());
  console.log(`screenshot: ${file}`);
});

test("the webview gets core IPC and our commands, and no plugin it does not use", async () => {
  const tryInvoke = (cmd, args) =>
    session.cmd("POST", "/execute/async", {
      script: `const done = arguments[arguments.length - 1];
        window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1]).then(() => done("ok"), (e) => done("err " + String(e)));`,
      args: [cmd, args],
    });
  // Events: the Inbox badge listens to approvals-changed.
  const handler = await session.execute("return window.__TAURI_INTERNALS__.transformCallback(() => {})");
  assert.equal(await tryInvoke("plugin:event|listen", { event: "approvals-changed", target: { kind: "Any" }, handler }), "ok");
  assert.equal(await tryInvoke("app_info", {}), "ok");
  // Dialogs, notifications and links are raised by the Rust side only.
  for (const cmd of ["plugin:dialog|open", "plugin:notification|notify", "plugin:opener|open_url"]) {
    const r = await tryInvoke(cmd, { options: {} });
    assert.match(r, /not allowed/, `${cmd}: ${r}`);
  }
});

test("execute_cmd's output reaches its card while the command runs, and the result is whole", async () => {
  await addMockProvider(session, mock.baseUrl);
  await newChat(session);
  await send(session, "Print five lines, slowly.");

  const card = ".tool-card[data-tool-call=call_cmd]";
  await session.waitFor(
    `const a = document.querySelector('[data-testid=approval][data-tool-call=call_cmd] [data-testid=approve]');
     if (a) a.click();
     return document.querySelector('${card} .tool-status')?.dataset.status === 'running'`,
    { what: "the execute_cmd card running", timeoutMs: 20_000 },
  );
  // Early lines show on the card before the command has printed its last.
  const early = await session.waitFor(
    `const c = document.querySelector('${card}');
     const live = c?.querySelector('[data-testid=live-output]')?.textContent ?? '';
     return live.includes('line1') && !live.includes('line5') && c.querySelector('.tool-status').dataset.status === 'running' ? live : null`,
    { what: "the first lines live on the card", timeoutMs: 10_000 },
  );
  const seenAt = Date.now();
  assert.match(early, /^line1\n/);
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, "tool-live-output.png"), await session.screenshot());

  await session.waitFor(`return document.querySelector('${card} .tool-status')?.dataset.status === 'done'`, {
    what: "the execute_cmd card done",
    timeoutMs: 20_000,
  });
  const doneAt = Date.now();
  assert.ok(doneAt - seenAt >= 500, `the early lines came only ${doneAt - seenAt} ms before the end`);
  // The final result is unchanged: the whole output and the exit code, on
  // the card and in what the model reads.
  const whole = "line1\nline2\nline3\nline4\nline5\n[exit code: 0]";
  const shown = await session.execute(
    `const c = document.querySelector('${card}'); return { result: c.querySelector('.tool-result')?.textContent, live: !!c.querySelector('[data-testid=live-output]') }`,
  );
  assert.match(shown.result, /line1\nline2\nline3\nline4\nline5/);
  assert.equal(shown.live, false, "the live output gives way to the result");
  await session.waitFor(
    "return !document.querySelector('[data-testid=turn-running]') && Array.from(document.querySelectorAll('[data-role=assistant]')).some((m) => m.textContent.includes('Five lines.'))",
    { what: "the answer after the command" },
  );
  assert.equal(mock.requests.length, 2);
  const result = mock.requests[1].messages.find((m) => m.role === "tool");
  assert.equal(result.tool_call_id, "call_cmd");
  assert.equal(result.content, whole);
});
