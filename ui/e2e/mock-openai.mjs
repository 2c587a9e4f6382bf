// A local OpenAI-compatible Chat Completions server for E2E tests: streams
// scripted SSE responses, one per request, and records every request body.
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { createServer } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

/** What `GET /v1/models` lists. */
export const MOCK_MODELS = ["mock-small", "mock-large"];

/** `script` is a list of responses; each is a list of chunk objects (or strings for text deltas).
 *  `routes` (optional): `[{ match: (request) => boolean, turn }]` — a request one matches gets
 *  that turn (once) instead of the next scripted one, whatever its place among concurrent
 *  requests (agents running side by side). */
export async function startMockOpenAI(script, { routes = [] } = {}) {
  const unrouted = [];
  const requests = [];
  const times = []; // when each request arrived (Date.now())
  const pids = []; // which local process sent it (Linux), or null
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    // The model list Settings offers for an endpoint from the environment.
    if (req.method === "GET" && req.url.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: MOCK_MODELS.map((id) => ({ id, object: "model", owned_by: "mock" })) }));
      return;
    }
    if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const parsed = JSON.parse(body);
    requests.push(parsed);
    times.push(Date.now());
    pids.push(peerPid(req.socket.remotePort));
    const route = routes.find((r) => !r.used && r.match(parsed));
    let turn;
    if (route) {
      route.used = true;
      turn = route.turn;
    } else {
      unrouted.push(parsed);
      turn = script[unrouted.length - 1];
    }
    if (!turn) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "mock script exhausted" } }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    // A client that goes away (a stopped turn) ends the scripted stream.
    const gone = new AbortController();
    res.on("close", () => gone.abort());
    for (const step of turn) {
      if (gone.signal.aborted) return;
      if (typeof step === "number") {
        try {
          await sleep(step, undefined, { signal: gone.signal });
        } catch {
          return;
        }
        continue;
      }
      const delta = typeof step === "string" ? { content: step } : step;
      const finish = delta.finish_reason ?? null;
      const payload = {
        id: "chatcmpl-e2e",
        object: "chat.completion.chunk",
        model: parsed.model,
        choices: [{ index: 0, delta: finish ? {} : delta, finish_reason: finish }],
      };
      res.write(`data: ${JSON.stringify(payload)}\n\n`);
    }
    res.write(
      `data: ${JSON.stringify({ id: "chatcmpl-e2e", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 50, completion_tokens: 12, total_tokens: 62 } })}\n\n`,
    );
    res.end("data: [DONE]\n\n");
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests, times, pids, close: () => {
      server.closeAllConnections();
      server.close();
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

/** The pid of the local process whose TCP socket has local port `port`: its
 *  inode from /proc/net/tcp, then the process holding that socket. */
function peerPid(port) {
  try {
    const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
    const row = readFileSync("/proc/net/tcp", "utf8")
      .split("\n")
      .map((l) => l.trim().split(/\s+/))
      .find((f) => f[1]?.endsWith(`:${hexPort}`));
    if (!row) return null;
    const target = `socket:[${row[9]}]`;
    for (const pid of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
      let fds;
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        try {
          if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return Number(pid);
        } catch {
          // closed meanwhile
        }
      }
    }
  } catch {
    // not Linux, or /proc unreadable
  }
  return null;
}
