// E2E of the installed package (run by .ci/package after `dpkg -i`): the CLI
// from /usr/bin writes a session to the default data dir, the app from
// /usr/bin finds it there (the identifier change must not move the data), and
// a chat against the mock works in the installed app. HOME is a fresh
// directory and no SKALD_DATA_DIR / XDG_DATA_HOME is set, so both binaries
// resolve their data dir exactly as on a user's machine.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { addMockProvider, newChat, send } from "../ui/e2e/helpers.mjs";
import { startMockOpenAI } from "../ui/e2e/helpers.mjs";
import { Session, startDriver } from "../ui/e2e/webdriver.mjs";

const app = process.env.SKALD_INSTALLED_APP ?? "/usr/bin/skald-app";
const cli = process.env.SKALD_INSTALLED_CLI ?? "/usr/bin/skald";
const shots = process.env.SKALD_SCREENSHOTS;

const home = mkdtempSync(join(tmpdir(), "skald-pkg-home-"));
const workdir = mkdtempSync(join(tmpdir(), "skald-pkg-work-"));
const env = { ...process.env, HOME: home };
delete env.SKALD_DATA_DIR;
delete env.XDG_DATA_HOME;
// The app must find its agents in the package's resources, not a source tree.
delete env.SKALD_AGENTS_DIR;

// Async, so the test's own timers keep running while the CLI's turn streams.
const run = (args, extraEnv = {}) =>
  promisify(execFile)(cli, args, { cwd: workdir, env: { ...env, ...extraEnv }, encoding: "utf8", timeout: 60_000 }).then(
    (r) => r.stdout,
  );

let mock;
let driver;
let session;
let seeded;

before(async () => {
  mock = await startMockOpenAI([
    ["Seeded from the CLI.", { finish_reason: "stop" }],
    ["Installed and ", 200, "answering.", { finish_reason: "stop" }],
  ]);
  const out = await run(["chat", "--model", "mock-model", "--approve", "no", "Hello from the CLI"], {
    OPENAI_BASE_URL: mock.baseUrl,
    OPENAI_API_KEY: "test-key",
  });
  assert.match(out, /Seeded from the CLI\./);
  const sessions = JSON.parse(await run(["sessions", "--json"]));
  assert.equal(sessions.length, 1, JSON.stringify(sessions));
  seeded = sessions[0].id;
  assert.ok(existsSync(join(home, ".local/share/skald/skald.db")), "the CLI wrote to the default data dir");

  driver = await startDriver({ name: "installed", cwd: workdir, env });
  session = await Session.create(driver.base, app);
});

after(async () => {
  await session?.quit();
  await driver?.stop();
  mock?.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(workdir, { recursive: true, force: true });
});

test("the installed app finds the session the installed CLI stored in the default data dir", async () => {
  await session.execute("location.hash = '#/chat'");
  await session.waitFor(`return !!document.querySelector('[data-session="${seeded}"]')`, {
    what: "the CLI's session in the list",
  });
  // The webview keeps its storage in the data directory beside the database
  // (so another data dir never shares it), not under the app identifier.
  assert.ok(existsSync(join(home, ".local/share/skald/webview")), "the webview's storage in the data dir");
});

test("a chat against the mock works in the installed app", async () => {
  await addMockProvider(session, mock.baseUrl);
  await newChat(session);
  await send(session, "Are you installed?");
  await session.waitFor(
    "const m = document.querySelectorAll('[data-role=assistant]'); return !document.querySelector('[data-testid=turn-running]') && !document.querySelector('[data-role=streaming]') && m[m.length-1]?.textContent.includes('Installed and answering.')",
    { what: "the installed app's answer" },
  );
  assert.equal(mock.requests.length, 2);
  if (shots) {
    // Let the last frame paint before the screenshot.
    await new Promise((r) => setTimeout(r, 500));
    mkdirSync(shots, { recursive: true });
    const file = join(shots, "installed-chat.png");
    writeFileSync(file, await session.screenshot());
    console.log(`screenshot: ${file}`);
  }
});

/** A one-page PDF saying `text`, with a correct cross-reference table. */
function tinyPdf(text) {
  const objs = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    null,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  const stream = `BT /F1 18 Tf 40 100 Td (${text}) Tj ET`;
  objs[3] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  let out = "%PDF-1.4\n";
  const offsets = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return out;
}

test("the installed app shows a PDF with the libpdfium the package ships", async () => {
  // HOME is fresh: no setup-script cache, so only /usr/lib/skald/libpdfium.so can serve.
  const pdf = join(workdir, "packaged.pdf");
  writeFileSync(pdf, tinyPdf("Packaged pdfium"));
  await session.execute("location.hash = '#/view?path=' + encodeURIComponent(arguments[0])", [pdf]);
  await session.waitFor("return document.querySelector('[data-testid=pdf-page-1]')?.dataset.loaded === 'true'", {
    what: "page 1 rendered by the packaged libpdfium",
  });
  assert.equal(await session.execute("return document.querySelector('[data-testid=pdf-view]').dataset.pages"), "1");
});
