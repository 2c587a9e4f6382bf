// Per model: whether images in tool results (screenshots, generated images,
// MCP results) are sent to it — the `llm.send_images` setting, also set with
// `skald models images`. A text-only model whose server refuses images gets
// a note in their place when it is off.
import { For, type JSX } from "solid-js";
import type { ModelView } from "../bindings";

const CHOICES: [string, string][] = [
  ["", "images: when the provider takes them"],
  ["on", "images: send"],
  ["off", "images: a note instead"],
];

function valueOf(on: boolean | undefined | null): string {
  return on == null ? "" : on ? "on" : "off";
}

export function SendImagesPicker(props: { model: ModelView; set: (on: boolean | null) => Promise<void> }): JSX.Element {
  const current = () => valueOf(props.model.sendImages);
  return (
    <select
      class="model-images"
      aria-label={`Images for ${props.model.name}`}
      data-testid="model-images"
      value={current()}
      onChange={(e) => {
        const v = e.currentTarget.value;
        void props.set(v === "" ? null : v === "on");
      }}
    >
      <For each={CHOICES}>{([value, label]) => <option value={value} selected={current() === value}>{label}</option>}</For>
    </select>
  );
}
