// An MCP server's elicitation (`elicitation/create`) answered in the
// question card: a form built from its requested schema — a flat object of
// strings (with formats), numbers and integers (with bounds), booleans,
// enums (`enum` + `enumNames`, or `oneOf` of `const`/`title`) and
// multi-select enums (`array` of those, with min/max items), some required — and the three answers the protocol knows: accept with the
// content, decline, cancel. The fields come in the server's order, which the
// question carries beside the schema (a JSON object read in Rust has sorted
// keys). A URL-mode elicitation (MCP 2025-11) instead shows the page it
// sends the person to, opened in the system browser on click, and answers
// Done (accept, no content), Decline or Cancel.
import { createSignal, For, Match, Show, Switch } from "solid-js";
import { createStore } from "solid-js/store";
import { openExternal } from "../commands";
import { mountSolid } from "../solid";
import "./elicitation_form.css";

export type ElicitationValue = string | number | boolean | string[];
type Raw = Record<string, string | boolean | string[]>;
export type ElicitationAnswer =
  | { action: "accept"; content: Record<string, ElicitationValue> }
  | { action: "decline" }
  | { action: "cancel" };

type Option = { value: string; label: string };
/** One field of the form, read from the schema's property. */
export type Field =
  | { key: string; label: string; help: string; required: boolean; kind: "string"; format: string; min?: number; max?: number; default?: string }
  | { key: string; label: string; help: string; required: boolean; kind: "number" | "integer"; min?: number; max?: number; default?: number }
  | { key: string; label: string; help: string; required: boolean; kind: "boolean"; default?: boolean }
  | { key: string; label: string; help: string; required: boolean; kind: "enum"; options: Option[]; default?: string }
  | { key: string; label: string; help: string; required: boolean; kind: "multi"; options: Option[]; min?: number; max?: number; default?: string[] };

/** `enum` (+ `enumNames`) or `oneOf`/`anyOf` of `const`/`title`, or null. */
function optionsOf(p: Record<string, unknown>): Option[] | null {
  if (Array.isArray(p.enum)) {
    const names = Array.isArray(p.enumNames) ? p.enumNames.map(String) : [];
    return p.enum.map((v, i) => ({ value: String(v), label: names[i] ?? String(v) }));
  }
  const alts = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : null;
  return alts ? (alts as Record<string, unknown>[]).map((o) => ({ value: String(o.const), label: str(o.title) || String(o.const) })) : null;
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The schema's properties in `order` (the server's), any it does not name
 *  after them in the schema's own order. */
function ordered(properties: Record<string, Record<string, unknown>>, order: readonly string[]): [string, Record<string, unknown>][] {
  const rank = new Map(order.map((k, i) => [k, i]));
  return Object.entries(properties)
    .map((e, i) => ({ e, r: rank.get(e[0]) ?? order.length + i }))
    .sort((a, b) => a.r - b.r)
    .map(({ e }) => e);
}

/** The fields of a requested schema, in the server's `order` when given.
 *  A property of a type MCP elicitation does not allow is an error: the card
 *  shows it and offers decline instead of a form that cannot answer. */
export function fieldsOf(schema: unknown, order: readonly string[] = []): Field[] {
  const s = (schema ?? {}) as { properties?: Record<string, Record<string, unknown>>; required?: unknown };
  const required = new Set(Array.isArray(s.required) ? s.required.map(String) : []);
  return ordered(s.properties ?? {}, order).map(([key, p]) => {
    const base = { key, label: str(p.title) || key, help: str(p.description), required: required.has(key) };
    const options = p.type === "array" ? null : optionsOf(p);
    if (options) return { ...base, kind: "enum", options, default: p.default == null ? undefined : String(p.default) };
    const itemOptions = p.type === "array" && p.items && typeof p.items === "object" ? optionsOf(p.items as Record<string, unknown>) : null;
    if (itemOptions) {
      const def = Array.isArray(p.default) ? p.default.map(String) : undefined;
      return { ...base, kind: "multi", options: itemOptions, min: num(p.minItems), max: num(p.maxItems), default: def };
    }
    switch (p.type) {
      case "string":
        return { ...base, kind: "string", format: str(p.format), min: num(p.minLength), max: num(p.maxLength), default: typeof p.default === "string" ? p.default : undefined };
      case "number":
      case "integer":
        return { ...base, kind: p.type, min: num(p.minimum), max: num(p.maximum), default: num(p.default) };
      case "boolean":
        return { ...base, kind: "boolean", default: typeof p.default === "boolean" ? p.default : undefined };
      default:
        throw new Error(`the field \`${key}\` has a type a form cannot ask for (${JSON.stringify(p.type ?? null)})`);
    }
  });
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The content to send, or the problem of each field that has one. Empty
 *  optional fields are left out; booleans are always sent. */
export function collect(fields: Field[], raw: Raw): { content: Record<string, ElicitationValue>; errors: Record<string, string> } {
  const content: Record<string, ElicitationValue> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const v = raw[f.key];
    if (f.kind === "boolean") {
      content[f.key] = v === true;
      continue;
    }
    if (f.kind === "multi") {
      const picked = Array.isArray(v) ? f.options.map((o) => o.value).filter((o) => v.includes(o)) : [];
      if (picked.length === 0 && !f.required) continue;
      if (picked.length === 0) errors[f.key] = "required";
      else if (f.min !== undefined && picked.length < f.min) errors[f.key] = `pick at least ${f.min}`;
      else if (f.max !== undefined && picked.length > f.max) errors[f.key] = `pick at most ${f.max}`;
      else content[f.key] = picked;
      continue;
    }
    const text = typeof v === "string" ? v.trim() : "";
    if (text === "") {
      if (f.required) errors[f.key] = "required";
      continue;
    }
    if (f.kind === "number" || f.kind === "integer") {
      const n = Number(text);
      if (!Number.isFinite(n)) errors[f.key] = "not a number";
      else if (f.kind === "integer" && !Number.isInteger(n)) errors[f.key] = "a whole number";
      else if (f.min !== undefined && n < f.min) errors[f.key] = `at least ${f.min}`;
      else if (f.max !== undefined && n > f.max) errors[f.key] = `at most ${f.max}`;
      else content[f.key] = n;
    } else if (f.kind === "enum") {
      if (!f.options.some((o) => o.value === text)) errors[f.key] = "pick one of the choices";
      else content[f.key] = text;
    } else if (f.kind === "string") {
      if (f.min !== undefined && text.length < f.min) errors[f.key] = `at least ${f.min} characters`;
      else if (f.max !== undefined && text.length > f.max) errors[f.key] = `at most ${f.max} characters`;
      else if (f.format === "email" && !EMAIL.test(text)) errors[f.key] = "an email address";
      else if (f.format === "uri" && !/^[a-z][a-z0-9+.-]*:/i.test(text)) errors[f.key] = "a URI";
      else if (f.format === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(text)) errors[f.key] = "a date (YYYY-MM-DD)";
      else content[f.key] = text;
    }
  }
  return { content, errors };
}

function initial(fields: Field[]): Raw {
  const out: Raw = {};
  for (const f of fields) {
    if (f.kind === "boolean") out[f.key] = f.default ?? false;
    else if (f.kind === "multi") out[f.key] = f.default ?? [];
    else out[f.key] = f.default === undefined ? "" : String(f.default);
  }
  return out;
}

const INPUT_TYPE: Record<string, string> = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };

export type ElicitationProps = {
  schema: unknown;
  /** The properties in the server's order. */
  order?: readonly string[];
  /** URL mode: the page to visit instead of a form. */
  url?: string;
  onAnswer: (a: ElicitationAnswer) => void | Promise<void>;
};

/** A URL-mode elicitation: where the server sends the person, in full (so
 *  they see the host before they click), opened outside the app. */
function UrlElicitation(props: { url: string; onAnswer: (a: ElicitationAnswer) => void | Promise<void> }) {
  const [sent, setSent] = createSignal(false);
  const [error, setError] = createSignal("");
  const answer = async (a: ElicitationAnswer) => {
    setSent(true);
    try {
      await props.onAnswer(a);
    } catch {
      setSent(false);
    }
  };
  const open = (e: MouseEvent) => {
    e.preventDefault();
    setError("");
    openExternal(props.url).catch((err) => setError(err instanceof Error ? err.message : String((err as { message?: unknown })?.message ?? err)));
  };
  let host = props.url;
  try {
    host = new URL(props.url).host;
  } catch {
    // Shown as given: the server's URL was checked in Rust already.
  }
  return (
    <div class="elicitation-form elicitation-url" data-testid="elicitation-url">
      <p>
        Open in your browser: <strong>{host}</strong>
      </p>
      <p>
        <a href={props.url} data-testid="elicitation-url-link" rel="noreferrer noopener" onClick={open}>
          {props.url}
        </a>
      </p>
      <Show when={error()}>
        <p class="error" role="alert">
          {error()}
        </p>
      </Show>
      <div class="row">
        <button type="button" class="approve" data-testid="elicitation-done" disabled={sent()} onClick={() => void answer({ action: "accept", content: {} })}>
          Done
        </button>
        <button type="button" class="reject" data-testid="elicitation-decline" disabled={sent()} onClick={() => void answer({ action: "decline" })}>
          Decline
        </button>
        <button type="button" data-testid="elicitation-cancel" disabled={sent()} onClick={() => void answer({ action: "cancel" })}>
          Cancel
        </button>
      </div>
    </div>
  );
}

export function ElicitationForm(props: ElicitationProps) {
  if (props.url) return <UrlElicitation url={props.url} onAnswer={props.onAnswer} />;
  let fields: Field[] = [];
  let schemaError = "";
  try {
    fields = fieldsOf(props.schema, props.order);
  } catch (e) {
    schemaError = e instanceof Error ? e.message : String(e);
  }
  const [values, setValues] = createStore(initial(fields));
  const [errors, setErrors] = createSignal<Record<string, string>>({});
  const [sent, setSent] = createSignal(false);
  const answer = async (a: ElicitationAnswer) => {
    setSent(true);
    try {
      await props.onAnswer(a);
    } catch {
      setSent(false);
    }
  };
  const accept = () => {
    const { content, errors: errs } = collect(fields, values);
    setErrors(errs);
    if (Object.keys(errs).length === 0) void answer({ action: "accept", content });
  };
  const id = (key: string) => `elicit-${key}`;
  // An edited field's old complaint goes; the rest stay until the next Send.
  const edit = (key: string, value: string | boolean | string[]) => {
    setValues(key, value);
    if (errors()[key]) setErrors(({ [key]: _, ...rest }) => rest);
  };
  return (
    <form
      class="elicitation-form"
      data-testid="elicitation-form"
      onSubmit={(e) => {
        e.preventDefault();
        accept();
      }}
    >
      <Show when={schemaError}>
        <p class="error" role="alert">
          This request cannot be answered with a form: {schemaError}.
        </p>
      </Show>
      <For each={fields}>
        {(f) => (
          <div class="elicitation-field" data-field={f.key}>
            <Switch>
              <Match when={f.kind === "boolean"}>
                <label>
                  <input type="checkbox" name={f.key} checked={values[f.key] === true} onChange={(e) => edit(f.key, e.currentTarget.checked)} /> {f.label}
                </label>
              </Match>
              <Match when={f.kind === "multi" && f}>
                {(m) => (
                  <fieldset class="elicitation-multi">
                    <legend>
                      {f.label}
                      {f.required ? " *" : ""}
                    </legend>
                    <For each={(m() as Extract<Field, { kind: "multi" }>).options}>
                      {(o) => (
                        <label>
                          <input
                            type="checkbox"
                            name={f.key}
                            value={o.value}
                            checked={(values[f.key] as string[]).includes(o.value)}
                            onChange={(e) => {
                              const now = (values[f.key] as string[]).filter((v) => v !== o.value);
                              edit(f.key, e.currentTarget.checked ? [...now, o.value] : now);
                            }}
                          />{" "}
                          {o.label}
                        </label>
                      )}
                    </For>
                  </fieldset>
                )}
              </Match>
              <Match when={f.kind === "enum" && f}>
                {(e) => (
                  <label for={id(f.key)}>
                    {f.label}
                    {f.required ? " *" : ""}
                    <select id={id(f.key)} name={f.key} value={String(values[f.key])} onInput={(ev) => edit(f.key, ev.currentTarget.value)} onChange={(ev) => edit(f.key, ev.currentTarget.value)}>
                      <option value="">{f.required ? "— choose —" : "(none)"}</option>
                      <For each={(e() as Extract<Field, { kind: "enum" }>).options}>{(o) => <option value={o.value}>{o.label}</option>}</For>
                    </select>
                  </label>
                )}
              </Match>
              <Match when={true}>
                <label for={id(f.key)}>
                  {f.label}
                  {f.required ? " *" : ""}
                  <input
                    id={id(f.key)}
                    name={f.key}
                    type={f.kind === "string" ? (INPUT_TYPE[f.format] ?? "text") : "number"}
                    step={f.kind === "integer" ? "1" : f.kind === "number" ? "any" : undefined}
                    value={String(values[f.key])}
                    onInput={(e) => edit(f.key, e.currentTarget.value)}
                  />
                </label>
              </Match>
            </Switch>
            <Show when={f.help}>
              <span class="muted elicitation-help">{f.help}</span>
            </Show>
            <Show when={errors()[f.key]}>
              <span class="error elicitation-error" data-testid="elicitation-error">
                {errors()[f.key]}
              </span>
            </Show>
          </div>
        )}
      </For>
      <div class="row">
        <Show when={!schemaError}>
          <button type="submit" class="approve" data-testid="elicitation-accept" disabled={sent()}>
            Send
          </button>
        </Show>
        <button type="button" class="reject" data-testid="elicitation-decline" disabled={sent()} onClick={() => void answer({ action: "decline" })}>
          Decline
        </button>
        <button type="button" data-testid="elicitation-cancel" disabled={sent()} onClick={() => void answer({ action: "cancel" })}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** For the (not yet Solid) question card: mounts the form into `container`
 *  and returns its disposer. */
export function mountElicitationForm(container: HTMLElement, props: ElicitationProps): () => void {
  return mountSolid(container, () => <ElicitationForm {...props} />);
}
