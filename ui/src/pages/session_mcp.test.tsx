import { describe, expect, it } from "vitest";
import { render } from "solid-js/web";
import { ChatMcpServers, type ChatMcpApi } from "./session_mcp";

const flush = () => new Promise((r) => setTimeout(r, 0));

function fakeApi(global: string[]) {
  const own = new Map<string, string[]>();
  const writes: [string, string[]][] = [];
  const api: ChatMcpApi = {
    servers: async () => ["everything", "files", "search"],
    alwaysOn: async (sid) => (sid === null ? global : [...new Set([...global, ...(own.get(sid) ?? [])])].sort()),
    setAlwaysOn: async (sid, servers) => {
      writes.push([sid, servers]);
      own.set(sid, servers);
      return api.alwaysOn(sid);
    },
  };
  return { api, writes };
}

describe("a chat's own always-on MCP servers", () => {
  it("shows global ones as on and fixed, and turns one on and off for this chat only", async () => {
    const { api, writes } = fakeApi(["files"]);
    const host = document.createElement("div");
    const dispose = render(() => <ChatMcpServers sessionId="s1" api={api} />, host);
    await flush();
    const box = (n: string) => host.querySelector<HTMLInputElement>(`[name=chat-mcp-${n}]`)!;
    expect(box("files").checked).toBe(true);
    expect(box("files").disabled).toBe(true);
    expect(box("everything").checked).toBe(false);

    box("everything").checked = true;
    box("everything").dispatchEvent(new Event("change"));
    await flush();
    // Only the chat's own list is written: the global server is not copied into it.
    expect(writes).toEqual([["s1", ["everything"]]]);
    expect(box("everything").checked).toBe(true);

    box("everything").checked = false;
    box("everything").dispatchEvent(new Event("change"));
    await flush();
    expect(writes[1]).toEqual(["s1", []]);
    expect(box("everything").checked).toBe(false);
    expect(box("files").checked).toBe(true);
    dispose();
  });

  it("shows nothing when no server is registered", async () => {
    const api: ChatMcpApi = { servers: async () => [], alwaysOn: async () => [], setAlwaysOn: async () => [] };
    const host = document.createElement("div");
    const dispose = render(() => <ChatMcpServers sessionId="s1" api={api} />, host);
    await flush();
    expect(host.querySelector("[data-testid=chat-mcp-always-on]")).toBeNull();
    dispose();
  });
});
