import { describe, expect, it } from "vitest";
import { MAX_RECENT, recentFiles, rememberFile } from "./recent";

function memory(): Pick<Storage, "getItem" | "setItem"> {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v) };
}

describe("recent files", () => {
  it("keeps the newest first, once each, at most MAX_RECENT", () => {
    const s = memory();
    for (let i = 0; i < MAX_RECENT + 3; i++) rememberFile(`/f${i}`, s);
    rememberFile("/f5", s);
    const list = recentFiles(s);
    expect(list[0]).toBe("/f5");
    expect(list).toHaveLength(MAX_RECENT);
    expect(new Set(list).size).toBe(list.length);
  });

  it("survives a damaged entry", () => {
    const s = memory();
    s.setItem("skald.recentFiles", "{not json");
    expect(recentFiles(s)).toEqual([]);
    s.setItem("skald.recentFiles", JSON.stringify(["/a", 3, null]));
    expect(recentFiles(s)).toEqual(["/a"]);
  });
});
