import { afterEach, describe, expect, it, vi } from "vitest";
import { collect, type ElicitationAnswer, fieldsOf, mountElicitationForm } from "./elicitation_form";

const opened = vi.hoisted(() => [] as string[]);
vi.mock("../commands", () => ({
  openExternal: async (url: string) => {
    opened.push(url);
  },
}));

const flush = async () => {
  for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 0));
};

// The shape server-everything's elicitation tool asks for (strings with
// formats and bounds, an integer, a number, a boolean, both enum styles).
const schema = {
  type: "object",
  properties: {
    name: { type: "string", title: "Full name", description: "Your name", minLength: 2 },
    email: { type: "string", format: "email" },
    age: { type: "integer", minimum: 0, maximum: 150 },
    score: { type: "number" },
    subscribe: { type: "boolean", title: "Subscribe", default: true },
    color: { type: "string", enum: ["r", "g"], enumNames: ["Red", "Green"] },
    size: { type: "string", oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }], default: "l" },
  },
  required: ["name", "age", "color"],
};

let dispose: (() => void) | null = null;
afterEach(() => {
  dispose?.();
  dispose = null;
  document.body.replaceChildren();
});

function mount(s: unknown, onAnswer: (a: ElicitationAnswer) => void, extra: { order?: string[]; url?: string } = {}) {
  const root = document.createElement("div");
  document.body.append(root);
  dispose = mountElicitationForm(root, { schema: s, onAnswer, ...extra });
  return root;
}
function type(root: ParentNode, name: string, value: string) {
  const e = root.querySelector(`[name=${name}]`) as HTMLInputElement;
  e.value = value;
  e.dispatchEvent(new Event("input", { bubbles: true }));
}
const submit = (root: ParentNode) => (root.querySelector("[data-testid=elicitation-form]") as HTMLFormElement).dispatchEvent(new Event("submit", { cancelable: true }));

describe("the elicitation form", () => {
  it("builds one control per property with labels, required marks, enum names and defaults", () => {
    const root = mount(schema, () => undefined);
    const fields = Array.from(root.querySelectorAll("[data-field]")).map((f) => (f as HTMLElement).dataset.field);
    expect(fields).toEqual(["name", "email", "age", "score", "subscribe", "color", "size"]);
    expect(root.querySelector("[data-field=name] label")!.textContent).toContain("Full name *");
    expect(root.querySelector("[data-field=name] .elicitation-help")!.textContent).toBe("Your name");
    expect((root.querySelector("[name=email]") as HTMLInputElement).type).toBe("email");
    expect((root.querySelector("[name=age]") as HTMLInputElement).type).toBe("number");
    expect((root.querySelector("[name=subscribe]") as HTMLInputElement).checked).toBe(true);
    const colors = Array.from(root.querySelectorAll("[name=color] option")).map((o) => o.textContent);
    expect(colors).toEqual(["— choose —", "Red", "Green"]);
    expect((root.querySelector("[name=size]") as HTMLSelectElement).value).toBe("l");
  });

  it("sends typed content once every required field is valid, leaving empty optional ones out", async () => {
    const onAnswer = vi.fn();
    const root = mount(schema, onAnswer);
    submit(root);
    await flush();
    expect(onAnswer).not.toHaveBeenCalled();
    const problems = () =>
      Object.fromEntries(
        Array.from(root.querySelectorAll("[data-testid=elicitation-error]")).map((e) => [(e.closest("[data-field]") as HTMLElement).dataset.field, e.textContent]),
      );
    expect(problems()).toEqual({ name: "required", age: "required", color: "required" });
    type(root, "name", "A");
    type(root, "age", "4.5");
    type(root, "email", "not-an-email");
    type(root, "color", "g");
    submit(root);
    await flush();
    expect(problems()).toEqual({ name: "at least 2 characters", age: "a whole number", email: "an email address" });
    type(root, "name", "Ada Lovelace");
    type(root, "age", "36");
    type(root, "email", "");
    const sub = root.querySelector("[name=subscribe]") as HTMLInputElement;
    sub.checked = false;
    sub.dispatchEvent(new Event("change"));
    submit(root);
    await flush();
    expect(onAnswer).toHaveBeenCalledWith({ action: "accept", content: { name: "Ada Lovelace", age: 36, subscribe: false, color: "g", size: "l" } });
    expect((root.querySelector("[data-testid=elicitation-accept]") as HTMLButtonElement).disabled).toBe(true);
  });

  it("declines and cancels without validating", async () => {
    const onAnswer = vi.fn();
    let root = mount(schema, onAnswer);
    (root.querySelector("[data-testid=elicitation-decline]") as HTMLButtonElement).click();
    await flush();
    expect(onAnswer).toHaveBeenLastCalledWith({ action: "decline" });
    dispose?.();
    root = mount(schema, onAnswer);
    (root.querySelector("[data-testid=elicitation-cancel]") as HTMLButtonElement).click();
    await flush();
    expect(onAnswer).toHaveBeenLastCalledWith({ action: "cancel" });
  });

  it("a schema a form cannot answer says why and offers only decline and cancel", () => {
    const root = mount({ type: "object", properties: { tags: { type: "object" } } }, () => undefined);
    expect(root.querySelector("[role=alert]")!.textContent).toContain("`tags`");
    expect(root.querySelector("[data-testid=elicitation-accept]")).toBeNull();
    expect(root.querySelector("[data-testid=elicitation-decline]")).not.toBeNull();
  });
});

describe("multi-select enums", () => {
  it("are checkbox groups with their defaults, sent as arrays within their item bounds", async () => {
    const onAnswer = vi.fn();
    const root = mount(
      {
        type: "object",
        properties: {
          fish: { type: "array", title: "Fish", minItems: 1, maxItems: 2, items: { anyOf: [{ const: "f1", title: "Tuna" }, { const: "f2", title: "Salmon" }, { const: "f3", title: "Trout" }] }, default: ["f1"] },
          tools: { type: "array", items: { type: "string", enum: ["Guitar", "Piano"] } },
        },
      },
      onAnswer,
    );
    const box = (v: string) => root.querySelector(`[name=fish][value=${v}]`) as HTMLInputElement;
    expect(Array.from(root.querySelectorAll("[data-field=fish] label")).map((l) => l.textContent!.trim())).toEqual(["Tuna", "Salmon", "Trout"]);
    expect(box("f1").checked).toBe(true);
    for (const v of ["f2", "f3"]) {
      box(v).checked = true;
      box(v).dispatchEvent(new Event("change"));
    }
    submit(root);
    await flush();
    expect(onAnswer).not.toHaveBeenCalled();
    expect(root.querySelector("[data-field=fish] [data-testid=elicitation-error]")!.textContent).toBe("pick at most 2");
    box("f1").checked = false;
    box("f1").dispatchEvent(new Event("change"));
    submit(root);
    await flush();
    // An optional group left empty is left out.
    expect(onAnswer).toHaveBeenCalledWith({ action: "accept", content: { fish: ["f2", "f3"] } });
  });
});

describe("collect", () => {
  it("checks bounds of numbers and lengths", () => {
    const fields = fieldsOf({ properties: { n: { type: "number", minimum: 1, maximum: 2 }, s: { type: "string", maxLength: 3 } } });
    expect(collect(fields, { n: "3", s: "abcd" }).errors).toEqual({ n: "at most 2", s: "at most 3 characters" });
    expect(collect(fields, { n: "1.5", s: "abc" })).toEqual({ content: { n: 1.5, s: "abc" }, errors: {} });
  });
});

describe("the question card of an elicitation", () => {
  it("shows the form instead of free text and answers with what answer_elicitation stores", async () => {
    const { questionCard } = await import("./question");
    const answer = vi.fn(async () => undefined);
    const card = questionCard(
      { toolCallId: "call_e", title: "everything asks", question: "Who are you?", suggestedAnswers: [], schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
      answer,
    );
    document.body.append(card);
    expect(card.querySelector("[data-testid=question-input]")).toBeNull();
    type(card, "name", "Ada");
    submit(card);
    await flush();
    expect(answer).toHaveBeenCalledWith("call_e", JSON.stringify({ action: "accept", content: { name: "Ada" } }));
    const plain = questionCard({ toolCallId: "c2", title: "Q", question: "?", suggestedAnswers: [] }, answer);
    expect(plain.querySelector("[data-testid=elicitation-form]")).toBeNull();
    expect(plain.querySelector("[data-testid=question-input]")).not.toBeNull();
  });
});

describe("field messages", () => {
  it("a field's message goes when it is edited, the others stay", async () => {
    const root = mount({ properties: { a: { type: "string" }, b: { type: "string" } }, required: ["a", "b"] }, () => undefined);
    submit(root);
    await flush();
    expect(root.querySelectorAll("[data-testid=elicitation-error]").length).toBe(2);
    type(root, "a", "x");
    await flush();
    expect(Array.from(root.querySelectorAll("[data-testid=elicitation-error]")).map((e) => (e.closest("[data-field]") as HTMLElement).dataset.field)).toEqual(["b"]);
  });
});

describe("the server's order", () => {
  it("puts the fields in the order the question carries, not the schema object's (sorted in Rust)", () => {
    // As it arrives from Rust: keys sorted; the order list is the server's.
    const sorted = { type: "object", properties: { age: { type: "integer" }, bio: { type: "string" }, email: { type: "string" }, name: { type: "string" } } };
    const root = mount(sorted, () => undefined, { order: ["name", "email", "age", "bio"] });
    const fields = Array.from(root.querySelectorAll("[data-field]")).map((f) => (f as HTMLElement).dataset.field);
    expect(fields).toEqual(["name", "email", "age", "bio"]);
    // A property the list misses still shows, after the listed ones.
    expect(fieldsOf(sorted, ["email"]).map((f) => f.key)).toEqual(["email", "age", "bio", "name"]);
  });
});

describe("a URL-mode elicitation", () => {
  it("shows the page, opens it outside the app on click and answers done, decline or cancel", async () => {
    opened.length = 0;
    const onAnswer = vi.fn();
    const url = "https://example.com/connect?x=1";
    const root = mount({ type: "object", properties: {} }, onAnswer, { url });
    expect(root.querySelector("[data-testid=elicitation-form]")).toBeNull();
    expect(root.textContent).toContain("example.com");
    const link = root.querySelector("[data-testid=elicitation-url-link]") as HTMLAnchorElement;
    expect(link.textContent).toBe(url);
    const click = new MouseEvent("click", { bubbles: true, cancelable: true });
    link.dispatchEvent(click);
    // Never followed in the app's window.
    expect(click.defaultPrevented).toBe(true);
    await flush();
    expect(opened).toEqual([url]);
    expect(onAnswer).not.toHaveBeenCalled();
    (root.querySelector("[data-testid=elicitation-done]") as HTMLButtonElement).click();
    await flush();
    expect(onAnswer).toHaveBeenCalledWith({ action: "accept", content: {} });
  });

  it("is what the question card shows for a question with a URL", async () => {
    const { questionCard } = await import("./question");
    const answer = vi.fn(async () => undefined);
    const card = questionCard(
      { toolCallId: "call_u", title: "everything asks", question: "Link your account", suggestedAnswers: [], schema: { type: "object", properties: {} }, url: "https://example.com/a" },
      answer,
    );
    document.body.append(card);
    expect(card.querySelector("[data-testid=question-input]")).toBeNull();
    (card.querySelector("[data-testid=elicitation-decline]") as HTMLButtonElement).click();
    await flush();
    expect(answer).toHaveBeenCalledWith("call_u", JSON.stringify({ action: "decline" }));
  });
});
