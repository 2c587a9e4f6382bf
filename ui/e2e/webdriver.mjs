// A minimal W3C WebDriver client over fetch, enough to drive the real app
// through tauri-driver + WebKitWebDriver without pulling in a browser stack.
import { spawn } from "node:child_process";
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
        return new Session(base, res.sessionId ?? res.value?.sessionId);
      } catch (e) {
        lastError = e;
        await sleep(500);
      }
    }
    throw new Error(`could not start a WebDriver session: ${lastError}`);
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
    throw new Error(`timed out waiting for ${what}`);
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

/** Starts tauri-driver and resolves once it accepts connections. */
export async function startDriver(port = 4444, { cwd, env } = {}) {
  const proc = spawn("tauri-driver", ["--port", String(port), "--native-port", String(port + 1)], {
    stdio: ["ignore", "inherit", "inherit"],
    cwd,
    env: { ...process.env, ...env },
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`tauri-driver exited with ${proc.exitCode}`);
    try {
      await fetch(`${base}/status`);
      return { proc, base };
    } catch {
      await sleep(200);
    }
  }
  proc.kill();
  throw new Error("tauri-driver did not start");
}
