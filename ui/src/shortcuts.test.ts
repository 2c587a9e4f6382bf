import { describe, expect, it } from "vitest";
import { isHideShortcut } from "./shortcuts";

const keys = (key: string, mods: Partial<Record<"ctrlKey" | "metaKey" | "altKey" | "shiftKey", boolean>> = {}) => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});

describe("isHideShortcut", () => {
  it("is Ctrl+W or Cmd+W, either case", () => {
    expect(isHideShortcut(keys("w", { ctrlKey: true }))).toBe(true);
    expect(isHideShortcut(keys("W", { ctrlKey: true }))).toBe(true);
    expect(isHideShortcut(keys("w", { metaKey: true }))).toBe(true);
  });
  it("is not plain typing or other chords", () => {
    expect(isHideShortcut(keys("w"))).toBe(false);
    expect(isHideShortcut(keys("w", { ctrlKey: true, shiftKey: true }))).toBe(false);
    expect(isHideShortcut(keys("w", { ctrlKey: true, altKey: true }))).toBe(false);
    expect(isHideShortcut(keys("q", { ctrlKey: true }))).toBe(false);
  });
});

describe("chat shortcuts", () => {
  it("map Ctrl+N, Ctrl+L, Ctrl+digit and Ctrl+Tab", async () => {
    const s = await import("./shortcuts");
    expect(s.isNewChatShortcut(keys("n", { ctrlKey: true }))).toBe(true);
    expect(s.isNewChatShortcut(keys("n"))).toBe(false);
    expect(s.isFocusComposerShortcut(keys("l", { ctrlKey: true }))).toBe(true);
    expect(s.chatNumberShortcut(keys("3", { ctrlKey: true }))).toBe(3);
    expect(s.chatNumberShortcut(keys("0", { ctrlKey: true }))).toBeNull();
    expect(s.chatNumberShortcut(keys("3"))).toBeNull();
    expect(s.chatCycleShortcut(keys("Tab", { ctrlKey: true }))).toBe(1);
    expect(s.chatCycleShortcut(keys("Tab", { ctrlKey: true, shiftKey: true }))).toBe(-1);
    expect(s.chatCycleShortcut(keys("Tab"))).toBeNull();
  });
  it("open the help with ? only outside text fields, or Ctrl+/ anywhere", async () => {
    const s = await import("./shortcuts");
    expect(s.isHelpShortcut(keys("?", { shiftKey: true }), false)).toBe(true);
    expect(s.isHelpShortcut(keys("?", { shiftKey: true }), true)).toBe(false);
    expect(s.isHelpShortcut(keys("/", { ctrlKey: true }), true)).toBe(true);
    expect(s.SHORTCUTS.map((x) => x.what).join(" ")).toMatch(/New chat.*Switch.*Focus.*Stop.*Approve.*Open a file/);
  });
});
