// E2E: the built app in its real webview lists exactly the tools that
// `skald tools --json` lists, and we keep a screenshot of it.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const cli = process.env.SKALD_CLI;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !cli || !shots) throw new Error("set SKALD_APP, SKALD_CLI and SKALD_SCREENSHOTS");

let driver;
let session;

before(async () => {
  driver = await startDriver({ name: "tools" });
  session = await Session.create(driver.base, app);
});

after(async () => {
  await session?.quit();
  await driver?.stop();
});

test("the Tools page lists exactly the catalogue of `skald tools --json`", async () => {
  const all = JSON.parse(execFileSync(cli, ["tools", "--json"], { encoding: "utf8" }));
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
