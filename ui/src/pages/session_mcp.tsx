// Which MCP servers this chat gets without `activate_tools`: servers marked
// always-on for every chat (on the MCP page) show as on and fixed here; the
// rest can be turned on for this chat alone (`mcp.always_on:<session>`).
import { createSignal, For, type JSX, onMount, Show } from "solid-js";
import * as cmd from "../commands";

export type ChatMcpApi = {
  servers: () => Promise<string[]>;
  alwaysOn: (sessionId: string | null) => Promise<string[]>;
  setAlwaysOn: (sessionId: string, servers: string[]) => Promise<string[]>;
};

const realApi: ChatMcpApi = {
  servers: async () => (await cmd.mcpListServers()).map((s) => s.name),
  alwaysOn: (sessionId) => cmd.mcpGetAlwaysOn(sessionId),
  setAlwaysOn: (sessionId, servers) => cmd.mcpSetAlwaysOn(sessionId, servers),
};

export function ChatMcpServers(props: { sessionId: string; api?: ChatMcpApi }): JSX.Element {
  const deps = props.api ?? realApi;
  const [servers, setServers] = createSignal<string[]>([]);
  const [everywhere, setEverywhere] = createSignal<string[]>([]);
  const [here, setHere] = createSignal<string[]>([]);
  const [error, setError] = createSignal<string | null>(null);
  onMount(async () => {
    try {
      const [names, global, mine] = await Promise.all([deps.servers(), deps.alwaysOn(null), deps.alwaysOn(props.sessionId)]);
      setServers(names);
      setEverywhere(global);
      setHere(mine);
    } catch (e) {
      setError(String(e));
    }
  });
  // The session's own list is what is on here beyond the global one.
  const toggle = async (name: string, on: boolean) => {
    const own = here().filter((n) => !everywhere().includes(n) && n !== name);
    try {
      setHere(await deps.setAlwaysOn(props.sessionId, on ? [...own, name] : own));
      setError(null);
    } catch (e) {
      setError(String(e));
    }
  };
  return (
    <Show when={servers().length > 0 || error()}>
      <fieldset class="chat-mcp" data-testid="chat-mcp-always-on">
        <legend>MCP servers on in this chat without asking to activate them</legend>
        <For each={servers()}>
          {(name) => (
            <label title={everywhere().includes(name) ? "Always on in every chat (MCP page)" : undefined}>
              <input
                type="checkbox"
                name={`chat-mcp-${name}`}
                checked={here().includes(name)}
                disabled={everywhere().includes(name)}
                on:change={(e) => void toggle(name, e.currentTarget.checked)}
              />{" "}
              {name}
            </label>
          )}
        </For>
        <Show when={error()}>
          <p class="error">{error()}</p>
        </Show>
      </fieldset>
    </Show>
  );
}
