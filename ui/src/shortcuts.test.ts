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
