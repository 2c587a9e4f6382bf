// The draggable edge of a side panel (the panel on its right): dragged with
// the pointer, or focused and moved with the arrow keys (Shift for bigger
// steps, Home/End for the widest and narrowest). Reusable for any panel
// whose width a signal holds.
import { type JSX, onCleanup } from "solid-js";
import { keyedWidth } from "./resize";

export interface SplitterProps {
  width: () => number;
  /** Sets (and remembers) a width; the owner clamps it. */
  setWidth: (px: number) => void;
  min: number;
  max: () => number;
  label: string;
  testid?: string;
  /** While a drag lasts (the owner may stop text selection). */
  onDrag?: (dragging: boolean) => void;
}

export function Splitter(props: SplitterProps): JSX.Element {
  let end: (() => void) | null = null;
  onCleanup(() => end?.());
  const down = (start: PointerEvent) => {
    if (start.button !== 0) return;
    start.preventDefault();
    const x0 = start.clientX;
    const w0 = props.width();
    const move = (e: PointerEvent) => props.setWidth(w0 + (x0 - e.clientX));
    end = () => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
      props.onDrag?.(false);
      end = null;
    };
    const up = () => end?.();
    props.onDrag?.(true);
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
  };
  const key = (e: KeyboardEvent) => {
    const w = keyedWidth(e.key, e.shiftKey, props.width(), props.min, props.max());
    if (w === null) return;
    e.preventDefault();
    props.setWidth(w);
  };
  return (
    <div
      class="side-resizer"
      data-testid={props.testid ?? "side-resizer"}
      role="separator"
      aria-orientation="vertical"
      aria-label={props.label}
      aria-valuenow={String(Math.round(props.width()))}
      aria-valuemin={String(props.min)}
      aria-valuemax={String(Math.round(props.max()))}
      tabindex="0"
      title="Drag or use ← → to resize"
      on:pointerdown={down}
      on:keydown={key}
    />
  );
}
