// Markdown from the model or a file, rendered and sanitised: the text can
// never inject script or event handlers into the app. GFM plus footnotes,
// math (KaTeX, `$…$` and `$$…$$`) and highlighted fenced code.
import DOMPurify from "dompurify";
import "katex/dist/katex.min.css";
import { Marked } from "marked";
import markedFootnote from "marked-footnote";
import { markedHighlight } from "marked-highlight";
import markedKatex from "marked-katex-extension";
import { highlightHtml, knowsLanguage } from "./viewer/highlight";

const marked = new Marked(
  markedHighlight({
    emptyLangClass: "hljs",
    langPrefix: "hljs language-",
    highlight: (code, lang) => (knowsLanguage(lang) ? highlightHtml(code, lang) : highlightHtml(code)),
  }),
  // A formula with an error shows its source in red instead of failing the
  // whole message.
  markedKatex({ throwOnError: false, output: "htmlAndMathml" }),
  markedFootnote(),
);

export function renderMarkdown(src: string): string {
  const html = marked.parse(src, { async: false, gfm: true, breaks: false }) as string;
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true, mathMl: true } });
}
