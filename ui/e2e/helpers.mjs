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
