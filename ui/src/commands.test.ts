import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "./commands";

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

describe("commands", () => {
  it("are called only through the generated wrappers", () => {
    const src = join(__dirname);
    const offenders = sources(src).filter((p) => !p.endsWith("commands.ts") && /\binvoke\s*[<(]|import\s*\{[^}]*\binvoke\b/.test(readFileSync(p, "utf8")));
    expect(offenders).toEqual([]);
  });
  it("are listed once each", () => {
    expect(new Set(COMMANDS).size).toBe(COMMANDS.length);
    expect(COMMANDS).toContain("send_message");
  });
});
