import { describe, expect, it } from "vitest";
import { readProviderForm } from "./settings";

function form(fields: Record<string, string>): HTMLFormElement {
  const f = document.createElement("form");
  for (const [name, value] of Object.entries(fields)) {
    const i = document.createElement("input");
    i.name = name;
    i.value = value;
    f.append(i);
  }
  return f;
}

describe("provider form", () => {
  it("reads a valid provider", () => {
    expect(readProviderForm(form({ kind: "openai", name: "", baseUrl: "http://127.0.0.1:9/v1", apiKey: "k", model: "m" }))).toEqual({
      kind: "openai",
      name: "openai",
      baseUrl: "http://127.0.0.1:9/v1",
      apiKey: "k",
      model: "m",
    });
  });
  it("explains what is wrong", () => {
    expect(readProviderForm(form({ kind: "openai", model: "" }))).toMatch(/model name/);
    expect(readProviderForm(form({ kind: "openai", model: "m", baseUrl: "ftp://x" }))).toMatch(/http/);
  });
});
