// @vitest-environment jsdom
// The chat's rendering cost on a long conversation (200 messages, 100 tool
// cards) with the SolidJS renderer: one streamed token, one sent message,
// and opening a 1,000-message session. Each token is painted here (the page
// paints at most once a frame, so this is the worst case). "all in the DOM"
// renders every message; "paged" is what the page does (the newest 60).
// `npm run bench`; figures in docs/benchmarks.md.
import { bench, describe } from "vitest";
import type { ToolCallView } from "../bindings";
import { createPaging, mountConversation } from "../chat/conversation";
import { addUserMessage, applyEvent, type ChatView, emptyView } from "../chat/state";

function longConversation(turns = 100): ChatView {
  let view = emptyView();
  for (let i = 0; i < turns; i++) {
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
const WORDS = ["word ", "**bold** ", "`code` ", "and ", "more.\n\n", "a [link](https://example.com) "];

describe("one streamed token, 200 messages + 100 cards", () => {
  for (const [name, page] of [
    ["Solid, all in the DOM", 1000],
    ["Solid, paged (newest 60)", 60],
  ] as const) {
    let view = longConversation();
    const chat = mountConversation(document.createElement("div"), view, { openFile: noop }, createPaging(page));
    let i = 0;
    bench(name, () => {
      view = applyEvent(view, { type: "tokenDelta", sessionId: "s", text: WORDS[i++ % WORDS.length] });
      chat.set(view);
    });
  }
});

describe("a sent message appears, 200 messages + 100 cards", () => {
  for (const [name, page] of [
    ["Solid, all in the DOM", 1000],
    ["Solid, paged (newest 60)", 60],
  ] as const) {
    let view: ChatView = { ...longConversation(), running: false, streaming: null };
    const root = document.createElement("div");
    const chat = mountConversation(root, view, { openFile: noop }, createPaging(page));
    bench(name, () => {
      view = addUserMessage(view, "One more question");
      chat.set({ ...view, running: true });
      const key = view.messages[view.messages.length - 1].key;
      if (!root.querySelector(`[data-key="${key}"]`)) throw new Error("the sent message is not shown");
    });
  }
});

describe("opening a session of 1,000 messages (500 cards)", () => {
  const view = { ...longConversation(500), running: false, streaming: null };
  bench("Solid, paged (newest 60)", () => {
    mountConversation(document.createElement("div"), view, { openFile: noop }).dispose();
  });
});
