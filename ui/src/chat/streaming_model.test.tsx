// @vitest-environment jsdom
// The answer being streamed names its model: the request's context event
// says which model it went to before the first token arrives.
import { describe, expect, it, vi } from "vitest";
import { mountConversation } from "./conversation";
import { addUserMessage, applyEvent, emptyView } from "./state";

describe("the model on a streaming answer", () => {
  it("is named while the answer streams, and stays on the message once it is stored", () => {
    let view = addUserMessage(emptyView(), "hi");
    view = applyEvent(view, { type: "turnStarted", sessionId: "s" });
    view = applyEvent(view, { type: "contextUsage", sessionId: "s", estimatedTokens: 100, contextWindow: 8000, trimmedToolResults: 0, model: "mock-large" });
    view = applyEvent(view, { type: "tokenDelta", sessionId: "s", text: "Hel" });
    const root = document.createElement("div");
    const { set } = mountConversation(root, view, { openFile: vi.fn() });
    expect(root.querySelector("[data-role=streaming] [data-testid=streaming-model]")?.textContent).toBe("mock-large");
    view = applyEvent(view, { type: "assistantMessage", sessionId: "s", messageId: 2, text: "Hello" });
    view = applyEvent(view, { type: "usage", sessionId: "s", inputTokens: 10, outputTokens: 2, costUsd: null, cacheReadTokens: 0, reasoningTokens: 0 });
    set(view);
    expect(view.messages.at(-1)?.model).toBe("mock-large");
  });

  it("is left out when the backend does not say (an older event)", () => {
    let view = applyEvent(emptyView(), { type: "turnStarted", sessionId: "s" });
    view = applyEvent(view, { type: "contextUsage", sessionId: "s", estimatedTokens: 100, contextWindow: 8000, trimmedToolResults: 0 });
    view = applyEvent(view, { type: "tokenDelta", sessionId: "s", text: "Hel" });
    const root = document.createElement("div");
    mountConversation(root, view, { openFile: vi.fn() });
    expect(root.querySelector("[data-role=streaming]")).not.toBeNull();
    expect(root.querySelector("[data-testid=streaming-model]")).toBeNull();
  });
});
