// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { el, hasUserInput } from "./dom";

describe("hasUserInput", () => {
  it("is false for untouched fields and true once something is typed or focused", () => {
    const note = el("textarea");
    const root = el("div", {}, el("p", {}, "text"), note);
    document.body.append(root);
    expect(hasUserInput(root)).toBe(false);
    note.value = "not in this folder";
    expect(hasUserInput(root)).toBe(true);
    note.value = "";
    note.focus();
    expect(hasUserInput(root)).toBe(true);
    note.blur();
    expect(hasUserInput(root)).toBe(false);
    root.remove();
  });
});
