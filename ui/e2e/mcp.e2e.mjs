// E2E: MCP in the real app. server-everything (the npm reference server,
// installed by .ci/setup.sh into $SKALD_MCP_SERVERS) is tested and added on
// the MCP page and becomes ready with its tools; a server that dies on
// start shows why with its stderr; then a chat where the scripted model
// activates the server and calls its echo tool, whose result the card shows;
// then a tool whose server asks for a form (elicitation), answered in the Inbox;
// then the server made always on, on the page: its tools reach a new chat's
// first request without activate_tools, and a URL-mode elicitation shows its
// page with Done / Decline / Cancel.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { addMockProvider, inViewScript, newChat, send, startMockOpenAI, toolCallChunk, waitUntil } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const cli = process.env.SKALD_CLI;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !cli || !shots) throw new Error("set SKALD_APP, SKALD_CLI and SKALD_SCREENSHOTS");

const serversRoot = process.env.SKALD_MCP_SERVERS || join(homedir(), ".cache/skald-mcp-servers");
const everythingJs = join(serversRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
// Missing is a failure, never a skip: .ci/setup.sh installs it.
if (!existsSync(everythingJs)) throw new Error(`${everythingJs} is missing: run .ci/setup.sh`);

const dataDir = mkdtempSync(join(tmpdir(), "skald-e2e-mcp-data-"));
const workdir = mkdtempSync(join(tmpdir(), "skald-e2e-mcp-"));

let mock;
let driver;
let session;

async function shot(name) {
  // A screenshot right after a DOM change can be a frame stale.
  await new Promise((r) => setTimeout(r, 700));
  mkdirSync(shots, { recursive: true });
  const file = join(shots, name);
  writeFileSync(file, await session.screenshot());
  console.log(`screenshot: ${file}`);
}

/** Types into a field of the (SolidJS) page: its input handlers listen on
 *  the document, so the event bubbles, as a keystroke's does. */
async function type(selector, value) {
  await session.execute(
    "const e = document.querySelector(arguments[0]); e.value = arguments[1]; e.dispatchEvent(new Event('input', { bubbles: true }));",
    [selector, value],
  );
}

const row = (name) => `[data-testid=mcp-server][data-server="${name}"]`;

before(async () => {
  mock = await startMockOpenAI([
    // The model activates the server's tools…
    [toolCallChunk(0, { id: "call_act", name: "activate_tools", args: '{"groups": ["everything"]}' }), { finish_reason: "tool_calls" }],
    // …and, from the next round on, calls one of them.
    [toolCallChunk(0, { id: "call_echo", name: "mcp__everything__echo", args: '{"message": "hello from the e2e"}' }), { finish_reason: "tool_calls" }],
    ["The server said **hello from the e2e** back.", { finish_reason: "stop" }],
    // Next message: a tool of the (still active) server that asks the person a form.
    [toolCallChunk(0, { id: "call_elicit", name: "mcp__everything__trigger-elicitation-request", args: "{}" }), { finish_reason: "tool_calls" }],
    ["Thanks, **Ada**.", { finish_reason: "stop" }],
    // A new chat with the server always on: its tool at once, no activation.
    [toolCallChunk(0, { id: "call_always", name: "mcp__everything__echo", args: '{"message": "always on"}' }), { finish_reason: "tool_calls" }],
    ["Echoed without activating.", { finish_reason: "stop" }],
    // A URL-mode elicitation (server-everything offers it to clients that declare URL mode).
    [toolCallChunk(0, { id: "call_url", name: "mcp__everything__trigger-url-elicitation", args: '{"url": "https://example.com/connect", "message": "Link your example account"}' }), { finish_reason: "tool_calls" }],
    ["Linked.", { finish_reason: "stop" }],
  ]);
  driver = await startDriver({ name: "mcp", cwd: workdir, env: { SKALD_DATA_DIR: dataDir } });
  session = await Session.create(driver.base, app);
});

after(async () => {
  await session?.quit();
  await driver?.stop();
  mock?.close();
});

async function fillStdio(name, command, args) {
  await session.execute("document.querySelector('[data-testid=mcp-add]').click()");
  await session.waitFor("return !!document.querySelector('[data-testid=mcp-form] [name=mcp-command]')", { what: "the add form" });
  await type("[name=mcp-name]", name);
  await type("[name=mcp-command]", command);
  await type("[name=mcp-args]", args.join("\n"));
}

test("server-everything added on the MCP page becomes ready with its tools; a crashing one shows why", async () => {
  await session.execute("location.hash = '#/mcp'");
  await session.waitFor("return !!document.querySelector('[data-testid=mcp-empty]')", { what: "the empty MCP page" });
  assert.equal(await session.execute("return document.querySelector('.nav-link.active')?.dataset.route"), "mcp");

  await fillStdio("everything", process.execPath, [everythingJs, "stdio"]);
  await type("[name=mcp-description]", "the MCP reference server");
  // Test connection first: it lists the tools without saving anything.
  await session.click("[data-testid=mcp-test]");
  const tested = await session.waitFor(
    "const r = document.querySelector('[data-testid=mcp-test-result]'); return r ? { ok: r.dataset.ok, tools: Array.from(r.querySelectorAll('[data-tool]')).map(li => li.dataset.tool) } : null",
    { what: "the test connection", timeoutMs: 60_000 },
  );
  assert.equal(tested.ok, "true");
  assert.ok(tested.tools.includes("echo"), `tools: ${tested.tools}`);
  assert.equal(JSON.parse(execFileSync(cli, ["mcp", "list", "--json"], { encoding: "utf8", env: { ...process.env, SKALD_DATA_DIR: dataDir } })).length, 0);
  await shot("mcp-test-connection.png");

  await session.click("[data-testid=mcp-save]");
  const status = await session.waitFor(
    `const r = document.querySelector('${row("everything")}'); return r?.dataset.state === 'ready' ? r.querySelector('[data-testid=mcp-status]').textContent : null`,
    { what: "server-everything to be ready", timeoutMs: 60_000 },
  );
  assert.match(status, /^ready · \d+ tools$/);
  // Its tools with their descriptions.
  await session.execute(`document.querySelector('${row("everything")} [data-testid=mcp-tools-box]').open = true`);
  const echo = await session.execute(`return document.querySelector('${row("everything")} [data-tool=echo]')?.textContent`);
  assert.match(echo, /^echo — \S/);
  // The CLI reads the same database: the server is stored as the page saved it.
  const listed = JSON.parse(execFileSync(cli, ["mcp", "list", "--json"], { encoding: "utf8", env: { ...process.env, SKALD_DATA_DIR: dataDir } }));
  assert.deepEqual(
    listed.map((s) => [s.name, s.transport, s.enabled, s.description]),
    [["everything", "stdio", true, "the MCP reference server"]],
  );

  // A server that dies on start: failed, with the reason and its stderr.
  await fillStdio("broken", process.execPath, ["-e", "console.error('broken: cannot open the frobnicator'); process.exit(3)"]);
  await session.click("[data-testid=mcp-save]");
  const failure = await session.waitFor(
    `const r = document.querySelector('${row("broken")}'); return r?.dataset.state === 'failed' ? r.querySelector('[data-testid=mcp-failure]').textContent : null`,
    { what: "the broken server to fail", timeoutMs: 30_000 },
  );
  assert.match(failure, /broken: cannot open the frobnicator/);
  // Its log file holds the same stderr.
  await session.execute(`document.querySelector('${row("broken")} [data-testid=mcp-log]').click()`);
  const log = await session.waitFor(`return document.querySelector('${row("broken")} [data-testid=mcp-log-text]')?.textContent || null`, {
    what: "the broken server's log",
  });
  assert.match(log, /cannot open the frobnicator/);
  await shot("mcp-page.png");

  // Disabled stops it; the other server stays ready.
  await session.execute(`document.querySelector('${row("broken")} [data-testid=mcp-enabled]').click()`);
  await session.waitFor(`return document.querySelector('${row("broken")}')?.dataset.state === 'disabled'`, { what: "the server to be disabled" });
  assert.equal(await session.execute(`return document.querySelector('${row("everything")}').dataset.state`), "ready");

  // Narrow: nothing runs off the side.
  await session.cmd("POST", "/window/rect", { width: 640, height: 700 });
  await session.waitFor("return innerWidth <= 640", { what: "the narrow window" });
  await shot("mcp-page-narrow.png");
  const overflow = await session.execute(
    "const p = document.querySelector('[data-testid=mcp-page]'); const m = document.getElementById('page'); return { page: p.scrollWidth - p.clientWidth, main: m.scrollWidth - m.clientWidth }",
  );
  assert.ok(overflow.page <= 1 && overflow.main <= 1, `the MCP page scrolls sideways: ${JSON.stringify(overflow)}`);
  await session.cmd("POST", "/window/rect", { width: 1280, height: 800 });
});

test("a chat activates server-everything and calls its echo tool; the card shows the result", async () => {
  await addMockProvider(session, mock.baseUrl);
  await newChat(session);
  await send(session, "Say hello through the everything server.");

  // Calling an MCP tool is asked about (the seeded catch-all): approve it.
  await session.waitFor("return !!document.querySelector('[data-testid=approval][data-tool-call=call_echo] [data-testid=approve]')", {
    what: "the approval of the echo call",
    timeoutMs: 60_000,
  });
  await session.execute("document.querySelector('[data-testid=approval][data-tool-call=call_echo] [data-testid=approve]').click()");
  const result = await session.waitFor(
    "const c = document.querySelector('.tool-card[data-tool-call=call_echo]'); const s = c?.querySelector('.tool-status'); return s?.dataset.status === 'done' ? c.querySelector('.tool-result')?.textContent : null",
    { what: "the echo result on its card", timeoutMs: 30_000 },
  );
  assert.equal(result, "Echo: hello from the e2e");
  const label = await session.execute("return document.querySelector('.tool-card[data-tool-call=call_echo] .tool-label').textContent");
  assert.match(label, /everything/);
  await session.waitFor(
    "return !document.querySelector('[data-testid=turn-running]') && [...document.querySelectorAll('[data-role=assistant] .md strong')].some(s => s.textContent === 'hello from the e2e')",
    { what: "the final answer" },
  );
  await session.execute("document.querySelector('.tool-card[data-tool-call=call_echo]').open = true");
  await shot("mcp-chat-echo.png");

  // The server's tools reached the model only after activate_tools.
  const offered = (i) => (mock.requests[i].tools ?? []).map((t) => t.function.name);
  assert.ok(offered(0).includes("activate_tools"), `first round: ${offered(0)}`);
  assert.ok(!offered(0).includes("mcp__everything__echo"), "echo offered before activation");
  assert.ok(offered(1).includes("mcp__everything__echo"), `second round: ${offered(1)}`);
  assert.equal(mock.requests.length, 3);
  const toolMsg = mock.requests[2].messages.find((m) => m.role === "tool" && m.tool_call_id === "call_echo");
  assert.match(String(toolMsg?.content), /Echo: hello from the e2e/);
});

test("an MCP elicitation is a form in the Inbox; the answer reaches the server and the card", async () => {
  const chat = await session.execute("return location.hash");
  assert.match(chat, /^#\/chat\//);
  await send(session, "Ask me for my details.");
  await session.waitFor("return !!document.querySelector('[data-testid=approval][data-tool-call=call_elicit] [data-testid=approve]')", {
    what: "the approval of the elicitation tool",
    timeoutMs: 60_000,
  });
  await session.execute("document.querySelector('[data-testid=approval][data-tool-call=call_elicit] [data-testid=approve]').click()");

  // The server's request waits for the person as a question with a form:
  // under the call's card in the chat, and in the Inbox.
  await session.waitFor("return !!document.querySelector('[data-testid=conversation] [data-testid=elicitation-form] [data-field=name]')", {
    what: "the elicitation form under its call in the chat",
    timeoutMs: 30_000,
  });
  // The person was following the chat: the form comes into view, not below the fold.
  await session.waitFor(inViewScript("[data-testid=conversation] [data-testid=question-card]"), {
    what: "the elicitation form scrolled into view",
    timeoutMs: 3_000,
  });
  await shot("mcp-elicitation-chat.png");
  await session.execute("location.hash = '#/inbox'");
  const fields = await session.waitFor(
    "const f = document.querySelector('[data-testid=inbox-question][data-tool-call=call_elicit] [data-testid=elicitation-form]'); return f ? Array.from(f.querySelectorAll('[data-field]')).map(d => d.dataset.field) : null",
    { what: "the elicitation form in the Inbox", timeoutMs: 30_000 },
  );
  for (const f of ["name", "check", "email", "integer", "untitledSingleSelectEnum", "titledMultipleSelectEnum"]) {
    assert.ok(fields.includes(f), `${f} not in ${fields}`);
  }
  // In the server's order, not alphabetical.
  assert.deepEqual(fields.slice(0, 6), ["name", "check", "firstLine", "email", "homepage", "birthdate"]);
  const form = "[data-testid=inbox-question][data-tool-call=call_elicit]";
  // Required: sending it empty says so, and nothing is answered.
  await session.click(`${form} [data-testid=elicitation-accept]`);
  const problem = await session.waitFor(`return document.querySelector('${form} [data-field=name] [data-testid=elicitation-error]')?.textContent || null`, {
    what: "the required field's message",
  });
  assert.equal(problem, "required");
  await type(`${form} [name=name]`, "Ada Lovelace");
  await session.execute(`document.querySelector('${form} [name=check]').click()`);
  await session.execute(`document.querySelector('${form}').scrollIntoView()`);
  await shot("mcp-elicitation-inbox.png");
  await session.click(`${form} [data-testid=elicitation-accept]`);
  // Answered: the Inbox empties. (Leaving before its re-render settles can
  // let the late Inbox land over the next page: a router race, not MCP's.)
  await session.waitFor("return document.querySelector('[data-testid=inbox-count]')?.textContent === 'Nothing is waiting for you.'", {
    what: "the Inbox to empty",
  });

  // The server got the answer: the call's result says so, on its card and to the model.
  await session.execute(`location.hash = '${chat}'`);
  const result = await session.waitFor(
    "const c = document.querySelector('.tool-card[data-tool-call=call_elicit]'); const s = c?.querySelector('.tool-status'); return s?.dataset.status === 'done' ? c.querySelector('.tool-result')?.textContent : null",
    { what: "the elicitation tool's result", timeoutMs: 30_000 },
  );
  assert.match(result, /Name: Ada Lovelace/);
  assert.match(result, /Agreed to terms: true/);
  await waitUntil(() => mock.requests.length >= 5, "the model's last request");
  const toolMsg = mock.requests.at(-1).messages.find((m) => m.role === "tool" && m.tool_call_id === "call_elicit");
  assert.match(String(toolMsg?.content), /Name: Ada Lovelace/);
});

const cliOut = (args) => execFileSync(cli, args, { encoding: "utf8", env: { ...process.env, SKALD_DATA_DIR: dataDir } });

test("always on, set on the MCP page, offers the server's tools from a new chat's first request; sampling is a switch", async () => {
  await session.execute("location.hash = '#/mcp'");
  const box = `${row("everything")} [data-testid=mcp-always-on]`;
  await session.waitFor(`return document.querySelector('${box}')?.checked === false`, { what: "the always-on toggle, off" });
  await session.execute(`document.querySelector('${box}').click()`);
  await waitUntil(() => cliOut(["mcp", "always-on"]) === "everything\n", "the always-on setting stored");
  assert.equal(await session.execute(`return document.querySelector('${box}').checked`), true);
  // Sampling: off until the person turns it on; the CLI reads the same setting.
  assert.match(cliOut(["mcp", "sampling"]), /^sampling: off/);
  await session.execute("document.querySelector('[data-testid=mcp-sampling]').click()");
  await waitUntil(() => /^sampling: on/.test(cliOut(["mcp", "sampling"])), "sampling allowed");
  await shot("mcp-always-on.png");
  await session.execute("document.querySelector('[data-testid=mcp-sampling]').click()");
  await waitUntil(() => /^sampling: off/.test(cliOut(["mcp", "sampling"])), "sampling declined again");

  const first = mock.requests.length;
  await newChat(session);
  await send(session, "Echo without activating anything.");
  await session.waitFor("return !!document.querySelector('[data-testid=approval][data-tool-call=call_always] [data-testid=approve]')", {
    what: "the approval of the always-on echo call",
    timeoutMs: 60_000,
  });
  await session.execute("document.querySelector('[data-testid=approval][data-tool-call=call_always] [data-testid=approve]').click()");
  await session.waitFor(
    "const s = document.querySelector('.tool-card[data-tool-call=call_always] .tool-status'); return s?.dataset.status === 'done'",
    { what: "the always-on echo result", timeoutMs: 30_000 },
  );
  // At the mock: the first request of the new chat already had the tool.
  const offered = (mock.requests[first].tools ?? []).map((t) => t.function.name);
  assert.ok(offered.includes("mcp__everything__echo"), `first request: ${offered}`);
  await waitUntil(() => mock.requests.length >= first + 2, "the answer after the echo");
});

test("a URL-mode elicitation shows its page under the call, and Done reaches the server", async () => {
  await session.waitFor("return !document.querySelector('[data-testid=turn-running]')", { what: "the previous turn to end" });
  await send(session, "Link my example account.");
  await session.waitFor("return !!document.querySelector('[data-testid=approval][data-tool-call=call_url] [data-testid=approve]')", {
    what: "the approval of the URL elicitation tool",
    timeoutMs: 60_000,
  });
  await session.execute("document.querySelector('[data-testid=approval][data-tool-call=call_url] [data-testid=approve]').click()");
  const link = await session.waitFor(
    "const u = document.querySelector('[data-testid=conversation] [data-testid=elicitation-url]'); return u ? u.querySelector('[data-testid=elicitation-url-link]').textContent : null",
    { what: "the URL elicitation under its call", timeoutMs: 30_000 },
  );
  assert.equal(link, "https://example.com/connect");
  const text = await session.execute("return document.querySelector('[data-testid=conversation] [data-testid=question-card]').textContent");
  assert.match(text, /Link your example account/);
  await session.execute("document.querySelector('[data-testid=conversation] [data-testid=elicitation-url]').scrollIntoView()");
  await shot("mcp-elicitation-url.png");
  await session.execute("document.querySelector('[data-testid=conversation] [data-testid=elicitation-done]').click()");
  const result = await session.waitFor(
    "const c = document.querySelector('.tool-card[data-tool-call=call_url]'); const s = c?.querySelector('.tool-status'); return s?.dataset.status === 'done' ? c.querySelector('.tool-result')?.textContent : null",
    { what: "the URL elicitation tool's result", timeoutMs: 30_000 },
  );
  assert.match(result, /completed the URL elicitation/);
});

test("a chat's own always-on server is set in its session settings and stays that chat's", async () => {
  await session.waitFor("return !document.querySelector('[data-testid=turn-running]')", { what: "the previous turn to end" });
  const sid = await session.execute("return document.querySelector('a.active[href^=\"#/chat/\"]')?.getAttribute('href').slice('#/chat/'.length)");
  assert.ok(sid, "the open chat's id");
  // Off for every chat first (MCP page), so the chat's own choice is what shows.
  await session.execute("location.hash = '#/mcp'");
  const global = `${row("everything")} [data-testid=mcp-always-on]`;
  await session.waitFor(`return document.querySelector('${global}')?.checked === true`, { what: "the global toggle, on" });
  await session.execute(`document.querySelector('${global}').click()`);
  await waitUntil(() => /no MCP server is always on/.test(cliOut(["mcp", "always-on"])), "always-on off for every chat");

  await session.execute(`location.hash = '#/chat/${sid}'`);
  await session.waitFor("return !!document.querySelector('[data-testid=session-settings]')", { what: "the chat's session settings" });
  // The chat page may still be mounting after a navigation or reload.
  await session.waitFor("const d = document.querySelector('[data-testid=session-settings]'); if (d) d.open = true; return !!d", { what: "the session settings" });
  const box = "[data-testid=chat-mcp-always-on] [name=chat-mcp-everything]";
  await session.waitFor(`const b = document.querySelector('${box}'); return !!b && !b.checked && !b.disabled`, { what: "the chat's own toggle, off" });
  await session.execute(`document.querySelector('${box}').click()`);
  await waitUntil(() => cliOut(["mcp", "always-on", "--session", sid]) === "everything\n", "always-on for this chat stored");
  // Still off for every other chat.
  assert.match(cliOut(["mcp", "always-on"]), /no MCP server is always on/);
  await session.execute("location.reload()");
  await session.waitFor("return !!document.querySelector('[data-testid=session-settings]')", { what: "the chat after a reload" });
  // The chat page may still be mounting after a navigation or reload.
  await session.waitFor("const d = document.querySelector('[data-testid=session-settings]'); if (d) d.open = true; return !!d", { what: "the session settings" });
  await session.waitFor(`return document.querySelector('${box}')?.checked === true`, { what: "the chat's own toggle, still on" });
});
