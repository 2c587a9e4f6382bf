import { describe, expect, it } from "vitest";
import { NAV, PAGES, parseRoute } from "./routes";

describe("routes", () => {
  it("parse pages, their argument and viewer options", () => {
    expect(parseRoute("")).toEqual({ name: "chat", arg: null });
    expect(parseRoute("#/chat/abc%20d")).toEqual({ name: "chat", arg: "abc d" });
    expect(parseRoute("#/permissions/team")).toEqual({ name: "permissions", arg: "team" });
    expect(parseRoute("#/view?path=%2Ftmp%2Fa.md&line=3&as=source")).toEqual({ name: "view", arg: "/tmp/a.md", view: { line: 3, source: true } });
  });
  it("every navigation link has a page", () => {
    for (const n of NAV) expect(PAGES[n.route], n.route).toBeTypeOf("function");
  });
});
