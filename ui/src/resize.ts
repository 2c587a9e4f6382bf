// Widths of resizable panels: kept within bounds, changed by keys, and
// remembered in the webview's storage (a convenience: losing it loses nothing).

export type WidthStore = Pick<Storage, "getItem" | "setItem">;

export function clampWidth(px: number, min: number, max: number): number {
  return Math.round(Math.min(Math.max(px, min), Math.max(min, max)));
}

/** The remembered width, or `fallback` when none (or a damaged one) is kept. */
export function storedWidth(store: WidthStore | undefined, key: string, fallback: number): number {
  try {
    const v = Number(store?.getItem(key));
    return Number.isFinite(v) && v > 0 ? v : fallback;
  } catch {
    return fallback;
  }
}

export function rememberWidth(store: WidthStore | undefined, key: string, px: number): void {
  try {
    store?.setItem(key, String(Math.round(px)));
  } catch {
    // Storage full or disabled.
  }
}

/** The width a key asks for on a splitter at a panel's left edge (the panel
 *  on the right: ← widens it), or null for keys it does not use. Shift
 *  takes bigger steps; Home and End go to the widest and narrowest. */
export function keyedWidth(key: string, shift: boolean, width: number, min: number, max: number): number | null {
  const step = shift ? 64 : 16;
  switch (key) {
    case "ArrowLeft":
      return clampWidth(width + step, min, max);
    case "ArrowRight":
      return clampWidth(width - step, min, max);
    case "Home":
      return clampWidth(max, min, max);
    case "End":
      return min;
    default:
      return null;
  }
}

/** Local storage when the webview has it. */
export function localStore(): WidthStore | undefined {
  try {
    return localStorage;
  } catch {
    return undefined;
  }
}
