// A minimal W3C WebDriver client over fetch, enough to drive the real app
// through tauri-driver + WebKitWebDriver without pulling in a browser stack.
import { execFileSync, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export class Session {
  constructor(base, id) {
    this.base = base;
    this.id = id;
  }

  static async create(base, application, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    let lastError;
    while (Date.now() < deadline) {
      try {
        const body = {
          capabilities: {
            alwaysMatch: { browserName: "wry", "tauri:options": { application } },
          },
        };
        const res = await call(base, "POST", "/session", body);
        const session = new Session(base, res.sessionId ?? res.value?.sessionId);
        await session.untilLoaded(deadline);
        return session;
      } catch (e) {
        lastError = e;
        await sleep(500);
      }
    }
    throw new Error(`could not start a WebDriver session: ${lastError}`);
  }

  /** Waits for the app's document to finish loading: a script sent while
   *  WebKit swaps in the first document fails with an empty "unknown error"
   *  (seen on a loaded machine). */
  async untilLoaded(deadline) {
    while (Date.now() < deadline) {
      try {
        if ((await this.execute("return document.readyState")) === "complete") return;
      } catch {
        // the document is being replaced: ask again
      }
      await sleep(200);
    }
    throw new Error("the app's page did not finish loading");
  }

  cmd(method, path, body) {
    return call(this.base, method, `/session/${this.id}${path}`, body).then((r) => r.value);
  }

  execute(script, args = []) {
    return this.cmd("POST", "/execute/sync", { script, args });
  }

  async waitFor(script, { timeoutMs = 30_000, what = "condition" } = {}) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const v = await this.execute(script);
      if (v) return v;
      await sleep(200);
    }
    throw new Error(`timed out waiting for ${what}${await this.describePage(what)}`);
  }

  /** What the page showed when a wait failed: its text and a screenshot, so a CI log explains itself. */
  async describePage(what) {
    let text = "";
    try {
      text = String(await this.execute("return location.hash + '\\n' + document.body.innerText")).slice(0, 2000);
      const dir = process.env.SKALD_SCREENSHOTS;
      if (dir) {
        mkdirSync(dir, { recursive: true });
        const file = join(dir, `failed-${what.replace(/[^a-z0-9]+/gi, "-").slice(0, 60)}.png`);
        writeFileSync(file, await this.screenshot());
        text += `\n(screenshot: ${file})`;
      }
    } catch (e) {
      text += `\n(could not read the page: ${e})`;
    }
    return `; the page showed:\n${text}`;
  }

  /** A WebDriver element reference for `css` (throws when absent). */
  async element(css) {
    const v = await this.cmd("POST", "/element", { using: "css selector", value: css });
    return Object.values(v)[0];
  }

  /** Clicks `css` as the person would (the driver's pointer, not `el.click()`). */
  async click(css) {
    await this.cmd("POST", `/element/${await this.element(css)}/click`, {});
  }

  /** Right-clicks `css` with the X server's real pointer (xdotool), so the
   *  webview gets the whole native sequence a person's click makes —
   *  WebDriver's pointer actions do not raise a context menu in WebKit. */
  async rightClick(css) {
    const { x, y } = await this.execute(
      "const r = document.querySelector(arguments[0]).getBoundingClientRect(); return { x: Math.round(r.left + r.width / 2), y: Math.round(r.top + r.height / 2) };",
      [css],
    );
    const ids = execFileSync("xdotool", ["search", "--onlyvisible", "--name", "^Skald$"], { encoding: "utf8" }).trim().split("\n");
    const wid = ids[ids.length - 1];
    execFileSync("xdotool", ["mousemove", "--window", wid, String(x), String(y), "click", "3"]);
  }

  screenshot() {
    return this.cmd("GET", "/screenshot").then((b64) => Buffer.from(b64, "base64"));
  }

  async quit() {
    await call(this.base, "DELETE", `/session/${this.id}`).catch(() => undefined);
  }
}

async function call(base, method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok || json.value?.error) {
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json.value ?? json)}`);
  }
  return json;
}

/** Two consecutive free TCP ports (tauri-driver's own and the native driver's). */
async function freePorts() {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await new Promise((resolve, reject) => {
      const srv = createServer();
      srv.once("error", reject);
      srv.listen(0, "127.0.0.1", () => {
        const { port } = srv.address();
        srv.close(() => resolve(port));
      });
    });
    const next = await new Promise((resolve) => {
      const srv = createServer();
      srv.once("error", () => resolve(false));
      srv.listen(port + 1, "127.0.0.1", () => srv.close(() => resolve(true)));
    });
    if (next && port < 65535) return port;
  }
  throw new Error("no two free consecutive ports on 127.0.0.1");
}

/** The live (non-zombie) processes of group `pgid`, with their executables (Linux). */
export function groupProcesses(pgid) {
  const out = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp …; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z" || Number(fields[2]) !== pgid) continue;
    let exe = "";
    try {
      exe = readlinkSync(`/proc/${entry}/exe`);
    } catch {
      // exited meanwhile, or not ours to read
    }
    out.push({ pid: Number(entry), exe });
  }
  return out;
}

/** Whether any process of group `pgid` is still running (zombies do not count: nobody may reap them). */
function groupAlive(pgid) {
  return groupProcesses(pgid).length > 0;
}

/**
 * Starts tauri-driver in a process group of its own and resolves once it
 * accepts connections. WebKitWebDriver and the app it launches join that
 * group, so `stop()` can end all of them: tauri-driver SIGKILLs
 * WebKitWebDriver on SIGTERM, which would otherwise orphan a still-running
 * app. Their output goes to a log file, never to the test runner's pipes, so
 * even a survivor cannot hold CI's output open.
 */
export async function startDriver({ cwd, env, name = "driver" } = {}) {
  const port = await freePorts();
  const logDir = process.env.SKALD_E2E_LOGS ?? tmpdir();
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${name}.log`);
  const log = openSync(logFile, "w");
  const proc = spawn("tauri-driver", ["--port", String(port), "--native-port", String(port + 1)], {
    stdio: ["ignore", log, log],
    detached: true,
    cwd,
    env: { ...process.env, ...env },
  });
  closeSync(log);
  // A missing binary is an 'error' event, not an exit: keep it for the message.
  let spawnError = null;
  proc.once("error", (e) => (spawnError = e));
  const stop = async () => {
    if (!proc.pid) return;
    for (const [signal, waitMs] of [["SIGTERM", 3_000], ["SIGKILL", 2_000]]) {
      if (!groupAlive(proc.pid)) return;
      try {
        process.kill(-proc.pid, signal);
      } catch {
        return;
      }
      const deadline = Date.now() + waitMs;
      while (Date.now() < deadline && groupAlive(proc.pid)) await sleep(50);
    }
    const left = groupProcesses(proc.pid);
    if (left.length) console.error(`processes outlived SIGKILL: ${JSON.stringify(left)}`);
  };
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (spawnError) throw new Error(`cannot start tauri-driver: ${spawnError.message}`);
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`tauri-driver ended (${proc.exitCode ?? proc.signalCode}); see ${logFile}`);
    }
    try {
      await fetch(`${base}/status`);
      return { proc, base, stop, logFile };
    } catch {
      await sleep(200);
    }
  }
  await stop();
  throw new Error(`tauri-driver did not start; see ${logFile}`);
}
