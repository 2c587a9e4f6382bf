// The keyboard-shortcut overlay (? or Ctrl+/).
import { For, type JSX } from "solid-js";
import { SHORTCUTS } from "../shortcuts";

export function ShortcutHelp(props: { close: () => void }): JSX.Element {
  return (
    <div class="overlay" data-testid="shortcut-help-backdrop" onClick={(e) => e.target === e.currentTarget && props.close()}>
      <div class="overlay-box" role="dialog" aria-modal="true" aria-labelledby="shortcut-help-title" data-testid="shortcut-help">
        <div class="overlay-head">
          <h2 id="shortcut-help-title">Keyboard shortcuts</h2>
          <button type="button" class="icon" aria-label="Close" data-testid="shortcut-help-close" onClick={() => props.close()}>
            ×
          </button>
        </div>
        <table class="shortcuts">
          <tbody>
            <For each={SHORTCUTS}>
              {(s) => (
                <tr>
                  <td>
                    <kbd>{s.keys}</kbd>
                  </td>
                  <td>{s.what}</td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
      </div>
    </div>
  );
}
