// A small MCP server over stdio that misbehaves on purpose, for the tests of
// skald-mcp. Line-delimited JSON-RPC, no dependencies.
//
//   node misbehave.mjs MODE
//
// MODE: ok (well behaved), crash-start (exits before the handshake),
// hang-init (never answers initialize), slow-init (answers initialize
// after $SLOW_INIT_MS, default 3000), garbage (answers with non-JSON).
// Tools in mode ok: echo {text}, sleep {ms} (answers after ms; a
// notifications/cancelled for it is appended to $MISBEHAVE_LOG), crash
// (exits mid-call), hang (never answers), fail (isError), add_tool (adds a
// tool and sends notifications/tools/list_changed), link {ms} (asks the
// client to open a page, a URL-mode elicitation, then after ms says it is
// done with notifications/elicitation/complete; answers with the client's
// action).
import fs from "node:fs";
import readline from "node:readline";

const mode = process.argv[2] || "ok";
const log = (line) => {
  if (process.env.MISBEHAVE_LOG) fs.appendFileSync(process.env.MISBEHAVE_LOG, line + "\n");
};
const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");

if (mode === "crash-start") {
  process.stderr.write("misbehave: fatal: cannot open the frobnicator\n");
  process.exit(1);
}

const obj = (props) => ({ type: "object", properties: props });
const tools = [
  { name: "echo", description: "Echoes text back", inputSchema: obj({ text: { type: "string" } }) },
  { name: "sleep", description: "Answers after ms", inputSchema: obj({ ms: { type: "number" } }) },
  { name: "crash", description: "Exits mid-call", inputSchema: obj({}) },
  { name: "hang", description: "Never answers", inputSchema: obj({}) },
  { name: "fail", description: "Reports an error", inputSchema: obj({}) },
  { name: "add_tool", description: "Adds a tool", inputSchema: obj({}) },
  { name: "link", description: "Has the person open a page", inputSchema: obj({ ms: { type: "number" } }) },
];
const timers = new Map();
// Our own requests to the client, by id: what to do with its response.
const asked = new Map();
let nextAsk = 1;

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (mode === "garbage") {
    process.stdout.write("this is not JSON-RPC {{{\n");
    return;
  }
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.method === "notifications/cancelled") {
    log(`cancelled ${JSON.stringify(msg.params.requestId)}`);
    const t = timers.get(JSON.stringify(msg.params.requestId));
    if (t) clearTimeout(t);
    return;
  }
  if (msg.id === undefined) return;
  if (msg.method === undefined) {
    const then = asked.get(msg.id);
    asked.delete(msg.id);
    then?.(msg);
    return;
  }
  const reply = (result) => send({ jsonrpc: "2.0", id: msg.id, result });
  switch (msg.method) {
    case "initialize":
      if (mode === "hang-init") {
        process.stderr.write("misbehave: thinking about initialize forever\n");
        return;
      }
      if (mode === "slow-init") {
        // A server that takes its time to start (the start-up benchmark).
        const ms = Number(process.env.SLOW_INIT_MS || 3000);
        setTimeout(() => reply({
          protocolVersion: msg.params.protocolVersion,
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: "misbehave", version: "1.0.0" },
        }), ms);
        return;
      }
      reply({
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "misbehave", version: "1.0.0" },
      });
      return;
    case "ping":
      reply({});
      return;
    case "tools/list":
      reply({ tools });
      return;
    case "tools/call": {
      const args = msg.params.arguments || {};
      switch (msg.params.name) {
        case "echo":
          reply({ content: [{ type: "text", text: `echo: ${args.text}` }] });
          return;
        case "sleep": {
          log(`sleep started ${JSON.stringify(msg.id)}`);
          const t = setTimeout(() => {
            timers.delete(JSON.stringify(msg.id));
            reply({ content: [{ type: "text", text: `slept ${args.ms} ms` }] });
          }, args.ms ?? 1000);
          timers.set(JSON.stringify(msg.id), t);
          return;
        }
        case "crash":
          process.stderr.write("misbehave: segfault in the middle of a call\n");
          process.exit(3);
        case "hang":
          return;
        case "fail":
          reply({ content: [{ type: "text", text: "the frobnicator is out of order" }], isError: true });
          return;
        case "add_tool":
          tools.push({ name: "added", description: "Appeared later", inputSchema: obj({}) });
          reply({ content: [{ type: "text", text: "added" }] });
          send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
          return;
        case "link": {
          const elicitationId = `link-${msg.id}`;
          const ask = `ask-${nextAsk++}`;
          asked.set(ask, (response) => {
            log(`link answered ${JSON.stringify(response.result ?? response.error)}`);
            reply({ content: [{ type: "text", text: `linked: ${response.result?.action ?? "error"}` }] });
          });
          send({
            jsonrpc: "2.0",
            id: ask,
            method: "elicitation/create",
            params: { mode: "url", url: "https://example.com/link", message: "Link your account", elicitationId },
          });
          setTimeout(() => send({ jsonrpc: "2.0", method: "notifications/elicitation/complete", params: { elicitationId } }), args.ms ?? 300);
          return;
        }
        default:
          send({ jsonrpc: "2.0", id: msg.id, error: { code: -32602, message: `unknown tool ${msg.params.name}` } });
          return;
      }
    }
    default:
      send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `no method ${msg.method}` } });
  }
});
