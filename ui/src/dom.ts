// A tiny element builder: text is always set as text, never parsed as HTML,
// so tool descriptions (which may come from MCP servers) cannot inject markup.
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(typeof c === "string" ? document.createTextNode(c) : c);
  return node;
}

/** Whether the person is in the middle of typing under `root` (a focused or
 *  non-empty text field), so a live refresh must not wipe it. */
export function hasUserInput(root: HTMLElement): boolean {
  const fields = root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("textarea, input[type=text], input:not([type])");
  return Array.from(fields).some((f) => f.value.trim() !== "" || f === document.activeElement);
}
