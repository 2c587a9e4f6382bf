// Markdown from the model, rendered and sanitised: the model's text can never
// inject script or event handlers into the app.
import DOMPurify from "dompurify";
import { marked } from "marked";

export function renderMarkdown(src: string): string {
  const html = marked.parse(src, { async: false, gfm: true, breaks: false }) as string;
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true } });
}
