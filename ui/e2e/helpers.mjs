import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// Steps the E2E tests share: filling inputs the way typing does, adding the
// mock as a provider in Settings, starting a chat and sending a message.

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
  await session.waitFor(
    "return document.querySelector('[data-testid=composer]') && !document.querySelector('[data-testid=composer]').disabled",
    { what: "the composer" },
  );
}

/** Types `text` into the composer and presses Send. */
export async function send(session, text) {
  await setValue(session, "[data-testid=composer]", text);
  await session.execute("document.querySelector('[data-testid=send]').click()");
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
