// The first launch: nothing to chat with yet. A short welcome that leads to
// adding a provider, or offers the Ollama found on this machine.
import { createResource, type JSX, Show } from "solid-js";
import * as api from "../api";
import { LocalOllamaOffer } from "./settings";

export type WelcomeApi = Pick<typeof api, "localOllama" | "addProvider">;

/** Whether to greet: no provider stored and none from the environment. */
export async function needsWelcome(deps: Pick<typeof api, "listProviders" | "envEndpoints"> = api): Promise<boolean> {
  const [providers, endpoints] = await Promise.all([deps.listProviders(), deps.envEndpoints().catch(() => [])]);
  return providers.length === 0 && endpoints.length === 0;
}

export function Welcome(props: { api?: WelcomeApi }): JSX.Element {
  const deps = () => props.api ?? api;
  const [ollama] = createResource(() => deps().localOllama().catch(() => null));
  const addOllama = async (input: Parameters<typeof api.addProvider>[0]) => {
    await deps().addProvider(input);
    location.hash = "#/chat";
  };
  return (
    <section class="welcome" data-testid="welcome">
      <h1>Welcome to Skald</h1>
      <p>Skald runs an AI agent on your computer: it reads and edits files and runs commands, and asks you before anything you have not allowed.</p>
      <p>To start, connect it to a model: an OpenAI-compatible endpoint (OpenAI, OpenRouter, a local llama.cpp or vLLM…), Anthropic, or Ollama.</p>
      <Show when={ollama()}>{(found) => <LocalOllamaOffer found={found()} add={addOllama} />}</Show>
      <div class="row">
        <a class="button primary" href="#/settings" data-testid="welcome-add-provider">
          Add a provider
        </a>
        <a class="button" href="#/chat" data-testid="welcome-skip">
          Not now
        </a>
      </div>
      <p class="muted">Keyboard shortcuts: press ? at any time.</p>
    </section>
  );
}
