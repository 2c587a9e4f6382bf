// @vitest-environment jsdom
// The chat's rendering cost on a long conversation (200 messages, 100 tool
// cards): one streamed token and one sent message, with the keyed renderer
// and with a full repaint (a fresh root each time: what every event cost
// before). `npm run bench`; figures in docs/benchmarks.md.
import { bench, describe } from "vitest";
import type { ToolCallView } from "../bindings";
import { renderConversation } from "../chat/render";
import { addUserMessage, applyEvent, type ChatView, emptyView } from "../chat/state";

function longConversation(): ChatView {
  let view = emptyView();
  for (let i = 0; i < 100; i++) {
    view = addUserMessage(view, `Question ${i}: what does \`module_${i}\` do?`);
    const call: ToolCallView = {
      id: `c${i}`,
      name: "read_file",
      labelShort: `read_file src/module_${i}.rs`,
      labelFull: `read_file /w/src/module_${i}.rs`,
      path: `src/module_${i}.rs`,
      arguments: { path: `src/module_${i}.rs` },
      status: "done",
      result: Array.from({ length: 40 }, (_, l) => `${String(l + 1).padStart(6)} | let x${l} = ${l};`).join("\n"),
      decisionReason: "allowed by rule 3: @fs_read *",
    };
    view = applyEvent(view, {
      type: "assistantMessage",
      sessionId: "s",
      messageId: i,
      text: `## Module ${i}\n\nIt **parses** input, see the table:\n\n| a | b |\n|---|---|\n| ${i} | ${i * 2} |\n\n\`\`\`rust\nfn f() {}\n\`\`\``,
    });
    view = applyEvent(view, { type: "toolStart", sessionId: "s", call });
  }
  view = applyEvent(view, { type: "turnStarted", sessionId: "s" });
  return applyEvent(view, { type: "tokenDelta", sessionId: "s", text: "The answer so far " });
}

const noop = () => undefined;

describe("one streamed token, 200 messages + 100 cards", () => {
  let view = longConversation();
  const keyed = document.createElement("div");
  renderConversation(keyed, view, noop);
  bench("keyed renderer", () => {
    view = applyEvent(view, { type: "tokenDelta", sessionId: "s", text: "word " });
    renderConversation(keyed, view, noop);
  });
  let full = longConversation();
  bench("full repaint (before)", () => {
    full = applyEvent(full, { type: "tokenDelta", sessionId: "s", text: "word " });
    renderConversation(document.createElement("div"), full, noop);
  });
});

describe("a sent message appears, 200 messages + 100 cards", () => {
  const base = longConversation();
  const keyed = document.createElement("div");
  renderConversation(keyed, base, noop);
  bench("keyed renderer", () => {
    renderConversation(keyed, addUserMessage(base, "One more question"), noop);
  });
  bench("full repaint (before)", () => {
    renderConversation(document.createElement("div"), addUserMessage(base, "One more question"), noop);
  });
});
