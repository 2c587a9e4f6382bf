// E2E: the file viewer in the real app, one test per kind, with screenshots:
// Markdown (table, code), code with line numbers, PNG and SVG, a multi-page
// PDF (page 3, find), a .tex with an \input chain edited on disk (reloaded
// PDF), HTML with relative CSS and image, an HTML page that tries to break
// out of its sandbox, and the side panel resized by drag and keys.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { dragPanelEdge } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !shots) throw new Error("set SKALD_APP and SKALD_SCREENSHOTS");

// An 8×8 red PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP4z8CAFWEXHbQSACj/P8Fu7N9hAAAAAElFTkSuQmCC",
  "base64",
);

let driver;
let session;
let dir;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "skald-viewer-e2e-"));
  driver = await startDriver({ name: "viewer" });
  session = await Session.create(driver.base, app);
  // The first route (the chat page) must be done before we navigate away.
  await session.waitFor("return !!document.querySelector('[data-testid=new-chat]')", { what: "the chat page" });
});

after(async () => {
  await session?.quit();
  await driver?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const write = (name, text) => {
  const p = join(dir, name);
  mkdirSync(join(p, ".."), { recursive: true });
  writeFileSync(p, text);
  return p;
};

async function open(path) {
  await session.execute("location.hash = '#/view?path=' + encodeURIComponent(arguments[0])", [path]);
}

async function shot(name) {
  await new Promise((r) => setTimeout(r, 800));
  mkdirSync(shots, { recursive: true });
  const file = join(shots, `viewer-${name}.png`);
  writeFileSync(file, await session.screenshot());
  console.log(`screenshot: ${file}`);
}

test("Markdown with a table, highlighted code and math", async () => {
  const p = write("notes.md", "# Notes\n\n| kind | shown |\n|---|---|\n| md | yes |\n\n```rust\nfn main() {}\n```\n\nEnergy: $E = mc^2$\n\n$$\\sum_{i=1}^n i = \\frac{n(n+1)}{2}$$\n\n- [x] done\n");
  await open(p);
  await session.waitFor("return document.querySelector('[data-testid=viewer-markdown] table td')?.textContent === 'md'", { what: "the Markdown table" });
  assert.equal(await session.execute("return document.querySelector('[data-testid=viewer-markdown] pre code')?.textContent.trim()"), "fn main() {}");
  assert.equal(await session.execute("return document.querySelector('[data-testid=viewer-markdown] pre code .hljs-keyword')?.textContent"), "fn");
  assert.equal(await session.execute("return document.querySelectorAll('[data-testid=viewer-markdown] .katex').length"), 2);
  // KaTeX's own fonts and CSS loaded: the display formula is laid out, not raw text.
  assert.ok(await session.execute("return document.querySelector('.katex-display .katex-html')?.getBoundingClientRect().height > 20"));
  await shot("markdown");
});

test("code with line numbers", async () => {
  const lines = Array.from({ length: 300 }, (_, i) => `let x${i} = ${i};`).join("\n");
  const p = write("code.ts", lines + "\n");
  await open(p);
  await session.waitFor("return document.querySelector('[data-testid=viewer-code]')?.dataset.lines === '300'", { what: "300 numbered lines" });
  await shot("code");
});

test("a 100,000-line file paints fast, scrolls to its end, and finds", async () => {
  const lines = Array.from({ length: 100_000 }, (_, i) => `fn line_${i + 1}() -> u32 { ${i + 1} }`).join("\n");
  const p = write("huge.rs", lines + "\n");
  // Time from the route change to the first painted lines, measured in the page.
  await session.execute(`
    window.__paint = undefined;
    const t0 = performance.now();
    window.__t0 = t0;
    const obs = new MutationObserver(() => {
      const c = document.querySelector('[data-testid=viewer-code]');
      if (c && c.dataset.lines === '100000' && c.querySelector('.code-row')) { window.__paint = performance.now() - t0; obs.disconnect(); }
    });
    obs.observe(document.body, { childList: true, subtree: true });
    location.hash = '#/view?path=' + encodeURIComponent(arguments[0]);`, [p]);
  const ms = await session.waitFor("return window.__paint", { what: "the first painted lines", timeoutMs: 30_000 });
  const phases = await session.execute(
    "const t = (n) => performance.getEntriesByName(n).at(-1)?.startTime; const o = t('skald:viewer-opened'), b = t('skald:viewer-bytes'), c = t('skald:viewer-built'); return { open: Math.round(o - window.__t0), bytes: Math.round(b - o), built: Math.round(c - b) };",
  );
  console.log(`100,000-line file: first paint ${Math.round(ms)} ms after the route change (${JSON.stringify(phases)})`);
  assert.ok((await session.execute("return document.querySelectorAll('.code-row').length")) < 300, "only the visible lines are in the DOM");
  await session.execute("const g = document.querySelector('[data-testid=code-goto]'); g.value = '100000'; g.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }))");
  await session.waitFor(
    "const r = document.querySelector('[data-line=\"100000\"]'); const c = document.querySelector('[data-testid=viewer-code]'); if (!r) return false; const a = r.getBoundingClientRect(), b = c.getBoundingClientRect(); return a.top >= b.top && a.bottom <= b.bottom",
    { what: "line 100000 on screen" },
  );
  assert.match(await session.execute("return document.querySelector('[data-line=\"100000\"]').textContent"), /fn line_100000\(\)/);
  await shot("code-100k-end");
  await session.execute("const f = document.querySelector('[data-testid=code-find]'); f.value = 'line_77777('; f.dispatchEvent(new Event('input')); document.querySelector('[data-testid=code-find-next]').click()");
  await session.waitFor("return document.querySelector('.code-row.marked')?.dataset.line === '77777'", { what: "the match marked" });
});

test("a code file's outline goes to its definitions", async () => {
  const body = Array.from({ length: 400 }, (_, i) => `// filler ${i}`).join("\n");
  const p = write("shapes.py", `class Shape:\n    def area(self):\n        return 0\n\n${body}\n\ndef far_away():\n    return 1\n`);
  await open(p);
  await session.waitFor("return document.querySelectorAll('[data-testid=viewer-outline] .outline-item').length >= 3", { what: "the outline" });
  const names = await session.execute("return Array.from(document.querySelectorAll('[data-testid=viewer-outline] .outline-item')).map(b => b.textContent)");
  assert.ok(names.some((n) => n.includes("far_away")), JSON.stringify(names));
  await session.execute("Array.from(document.querySelectorAll('[data-testid=viewer-outline] .outline-item')).find(b => b.textContent.includes('far_away')).click()");
  await session.waitFor("return document.querySelector('.code-row.marked')?.textContent.includes('def far_away')", { what: "the definition marked" });
  await shot("outline");
});

test("skald-app FILE opens the file in the running window; it joins the recent files", async () => {
  const p = write("handed.md", "# Handed over\n\nfrom a second launch\n");
  await session.execute("location.hash = '#/chat'");
  const second = spawnSync(app, [p], { env: process.env, timeout: 30_000, encoding: "utf8" });
  assert.equal(second.status, 0, `second launch: status ${second.status}\n${second.stderr}`);
  await session.waitFor("return document.querySelector('[data-testid=viewer-markdown] h1')?.textContent === 'Handed over'", { what: "the handed file in the viewer" });
  await session.execute("location.hash = '#/view'");
  await session.waitFor("return !!document.querySelector('[data-testid=viewer-open-dialog]')", { what: "the Files page" });
  const recent = await session.execute("return Array.from(document.querySelectorAll('[data-testid=recent-files] a')).map(a => a.textContent)");
  assert.equal(recent[0], p);
  await shot("files-page");
});

test("Ctrl+O opens the native file dialog; the picked file opens in the viewer", async () => {
  const p = write("picked/dialog.md", "# Picked in the dialog\n");
  await session.execute("location.hash = '#/view'");
  await session.waitFor("return !!document.querySelector('[data-testid=viewer-open-dialog]')", { what: "the Files page" });
  await session.execute("document.dispatchEvent(new KeyboardEvent('keydown', { key: 'o', ctrlKey: true, bubbles: true }))");
  // The GTK dialog is a real X window: find it, give it the keyboard, type the path.
  let wid = "";
  for (let i = 0; i < 100 && !wid; i++) {
    try {
      wid = execFileSync("xdotool", ["search", "--onlyvisible", "--name", "Open in Skald"], { encoding: "utf8" }).trim().split("\n")[0];
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  assert.ok(wid, "the file dialog's window");
  await new Promise((r) => setTimeout(r, 800));
  execFileSync("xdotool", ["windowfocus", "--sync", wid]);
  mkdirSync(shots, { recursive: true });
  execFileSync("import", ["-window", "root", join(shots, "viewer-file-dialog.png")]);
  // GTK's chooser opens its location field when a path is typed.
  execFileSync("xdotool", ["key", "--delay", "50", "ctrl+l"]);
  execFileSync("xdotool", ["type", "--delay", "15", p]);
  await new Promise((r) => setTimeout(r, 400));
  execFileSync("xdotool", ["key", "Return"]);
  await session.waitFor("return document.querySelector('[data-testid=viewer-markdown] h1')?.textContent === 'Picked in the dialog'", { what: "the picked file in the viewer" });
});

test("PNG and SVG as images", async () => {
  const png = join(dir, "red.png");
  writeFileSync(png, PNG);
  await open(png);
  await session.waitFor("return document.querySelector('[data-testid=viewer-image-size]')?.textContent === '8 × 8 px'", { what: "the PNG's size" });
  await shot("png");
  const svg = write(
    "shape.svg",
    "<svg xmlns='http://www.w3.org/2000/svg' width='120' height='80'><rect width='120' height='80' fill='#3b6'/><script>parent.document.title='owned'</script></svg>",
  );
  await open(svg);
  await session.waitFor("const i = document.querySelector('[data-testid=viewer-image]'); return i && i.naturalWidth === 120", { what: "the SVG drawn as an image" });
  assert.notEqual(await session.execute("return document.title"), "owned");
  await shot("svg");
});

function texPages(n) {
  let s = "\\documentclass{article}\n\\begin{document}\n";
  for (let i = 1; i <= n; i++) s += `\\section*{Page ${i}}\nThis is page ${i}.${i === 3 ? " The word zebra lives here." : ""}\n\\newpage\n`;
  return s + "\\end{document}\n";
}

test("a multi-page PDF: page 3 and find", async () => {
  const tex = write("pdfsrc/pages.tex", texPages(6));
  execFileSync("pdflatex", ["-interaction=nonstopmode", "-output-directory", join(dir, "pdfsrc"), tex], { stdio: "ignore" });
  await open(join(dir, "pdfsrc/pages.pdf"));
  await session.waitFor("return document.querySelector('[data-testid=pdf-view]')?.dataset.pages === '6'", { what: "6 pages" });
  await session.waitFor("return document.querySelector('[data-testid=pdf-page-1]')?.dataset.loaded === 'true'", { what: "page 1 drawn" });
  await session.execute(
    "const f = document.querySelector('[data-testid=pdf-find]'); f.value = 'zebra'; f.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}));",
  );
  await session.waitFor("return document.querySelector('[data-testid=pdf-find-result]')?.textContent.includes('p. 3')", { what: "find on page 3" });
  await session.waitFor(
    "return document.querySelector('[data-testid=pdf-page-input]').value === '3' && document.querySelector('[data-testid=pdf-page-3]')?.dataset.loaded === 'true'",
    { what: "page 3 shown" },
  );
  // The text layer over page 3 holds its words, selectable and copyable.
  await session.waitFor("return document.querySelector('[data-testid=pdf-page-3] [data-testid=pdf-text]')?.textContent.includes('zebra')", { what: "page 3's text layer" });
  const selected = await session.execute(`
    const span = Array.from(document.querySelectorAll('[data-testid=pdf-page-3] [data-testid=pdf-text] span')).find((s) => s.textContent.includes('zebra'));
    const range = document.createRange(); range.selectNodeContents(span);
    const sel = getSelection(); sel.removeAllRanges(); sel.addRange(range);
    return sel.toString();`);
  assert.match(selected, /zebra/);
  // The page image itself carries the page: dark text on white, read back
  // through a canvas at the first look once it is in the page (WebKit
  // painted it fully transparent until something decoded it: a white page
  // in the screenshots; the viewer now decodes a page before showing it).
  const px = await session.waitFor(
    `const img = document.querySelector('[data-testid=pdf-page-3] img');
     if (!img?.complete || !img.naturalWidth) return null;
     const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
     const g = c.getContext('2d'); g.drawImage(img, 0, 0);
     const d = g.getImageData(0, 0, c.width, c.height).data; let opaque = 0, dark = 0;
     for (let i = 0; i < d.length; i += 4) { if (d[i + 3] > 250) opaque++; if (d[i + 3] > 250 && d[i] < 128) dark++; }
     return { opaque, dark, total: d.length / 4 };`,
    { what: "page 3's image in the page" },
  );
  assert.equal(px.opaque, px.total, "an opaque page");
  assert.ok(px.dark > 100, `its text drawn: ${px.dark} dark pixels`);
  await shot("pdf-page3");
});

test("LaTeX SyncTeX: a source line to its place in the PDF, a Ctrl+click back to the source", async () => {
  write("sync/main.tex", "\\documentclass{article}\n\\begin{document}\nOpening words on page one.\n\n\\newpage\n\\input{later}\n\\end{document}\n");
  write("sync/later.tex", "% the fragment\nWords from the fragment on page two.\n");
  const main = join(dir, "sync/main.tex");
  const later = join(dir, "sync/later.tex");
  await session.execute("location.hash = arguments[0]", [`#/view?path=${encodeURIComponent(main)}&line=2&input=${encodeURIComponent(later)}`]);
  await session.waitFor("return document.querySelector('[data-testid=pdf-spot]')?.dataset.page === '2'", { what: "the fragment's line marked on page 2", timeoutMs: 90_000 });
  await shot("synctex-forward");
  // Ctrl+click inside the marked spot: the fragment's source at that line.
  await session.execute(`
    const spot = document.querySelector('[data-testid=pdf-spot]'); const r = spot.getBoundingClientRect();
    const page = spot.parentElement.getBoundingClientRect();
    spot.parentElement.dispatchEvent(new MouseEvent('click', { clientX: page.left + page.width / 2, clientY: r.top + r.height / 2, ctrlKey: true, bubbles: true }));`);
  await session.waitFor("return document.querySelector('.code-row.marked')?.textContent.includes('Words from the fragment')", { what: "the source line from the PDF" });
  assert.match(decodeURIComponent(await session.execute("return location.hash")), /later\.tex&line=2&as=source/);
  await shot("synctex-inverse");
});

test("LaTeX with an \\input chain reloads when a fragment changes on disk", async () => {
  write("paper/main.tex", "\\documentclass{article}\n\\begin{document}\n\\section*{Paper}\n\\input{sections/intro}\n\\end{document}\n");
  write("paper/sections/intro.tex", "Intro says \\input{sections/detail}\n");
  write("paper/sections/detail.tex", "first version.\n");
  await open(join(dir, "paper/main.tex"));
  await session.waitFor("return document.querySelector('[data-testid=pdf-page-1]')?.dataset.loaded === 'true'", { what: "the compiled PDF", timeoutMs: 90_000 });
  const before = await session.execute("return document.querySelector('[data-testid=pdf-page-1] img')?.src");
  write("paper/sections/detail.tex", "second version, with more words in it.\n");
  await session.waitFor(
    "const s = document.querySelector('[data-testid=viewer-status]'); return s?.dataset.state === 'reloaded' && document.querySelector('[data-testid=pdf-page-1]')?.dataset.loaded === 'true' && document.querySelector('[data-testid=pdf-page-1] img')?.src !== arguments[0]",
    { what: "the reloaded PDF", timeoutMs: 90_000 },
  ).catch(async (e) => {
    await shot("latex-failed");
    throw e;
  });
  assert.notEqual(await session.execute("return document.querySelector('[data-testid=pdf-page-1] img')?.src"), before);
  await shot("latex-reloaded");
  // A broken fragment: the banner names file:line, the last good PDF stays.
  write("paper/sections/detail.tex", "broken \\nosuchmacro here.\n");
  await session.waitFor("return document.querySelector('[data-testid=latex-errors]')?.textContent.includes('detail.tex:1: Undefined control sequence \\\\nosuchmacro')", {
    what: "the error banner",
    timeoutMs: 90_000,
  });
  await session.waitFor("return document.querySelector('[data-testid=pdf-page-1]')?.dataset.loaded === 'true'", { what: "the last good PDF under the banner" });
  await shot("latex-error");
});

test("HTML with relative CSS and an image, in its sandbox", async () => {
  write("site/style.css", "body { background: rgb(10, 120, 200); color: white; } h1 { font-size: 40px; }");
  writeFileSync(join(dir, "site/pic.png"), PNG);
  const p = write(
    "site/index.html",
    "<!doctype html><link rel=stylesheet href=style.css><h1 id=h>Hello</h1><img id=pic src=pic.png width=64><p id=out>…</p><script>document.getElementById('out').textContent='script ran'</script>",
  );
  await open(p);
  await session.waitFor("return !!document.querySelector('[data-testid=viewer-html]')", { what: "the iframe" });
  const frame = await session.cmd("POST", "/element", { using: "css selector", value: "[data-testid=viewer-html]" });
  await session.cmd("POST", "/frame", { id: frame });
  try {
    await session.waitFor("return document.getElementById('out')?.textContent === 'script ran'", { what: "the page's own script" });
    assert.equal(await session.execute("return getComputedStyle(document.body).backgroundColor"), "rgb(10, 120, 200)");
    await session.waitFor("return document.getElementById('pic')?.naturalWidth === 8", { what: "the relative image" });
  } finally {
    await session.cmd("POST", "/frame/parent", {});
  }
  await shot("html");
});

test("an HTML page cannot reach the app, its parent, the IPC or files outside its tree", async () => {
  writeFileSync(join(dir, "outside.png"), PNG);
  write("evil/secret-neighbour.txt", "x");
  const p = write(
    "evil/index.html",
    `<!doctype html><ul id=r></ul><img id=inside src=ok.png><script>
    const r = document.getElementById('r');
    const say = (k, v) => { const li = document.createElement('li'); li.dataset.k = k; li.textContent = k + '=' + v; r.append(li); };
    say('internals', typeof window.__TAURI_INTERNALS__ + '/' + typeof window.__TAURI__);
    try { say('parentDoc', String(!!parent.document.body)); } catch (e) { say('parentDoc', 'blocked'); }
    try { say('parentInternals', typeof parent.__TAURI_INTERNALS__); } catch (e) { say('parentInternals', 'blocked'); }
    try { top.location.href = 'https://example.invalid/'; say('topNav', 'no error'); } catch (e) { say('topNav', 'blocked'); }
    try { say('webkitIpc', String(!!(window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.ipc))); } catch (e) { say('webkitIpc', 'blocked'); }
    // A forged command through WebKit's message handler, as the app's own
    // IPC script would send it but without the invoke key only that script has.
    try {
      window.webkit.messageHandlers.ipc.postMessage(JSON.stringify({ cmd: 'create_session', callback: 1, error: 2, payload: { title: 'forged-by-frame', workingDir: null }, options: { headers: {} }, __TAURI_INVOKE_KEY__: 'guessed' }));
      say('forgedPost', 'posted');
    } catch (e) { say('forgedPost', 'blocked'); }
    const tryFetch = (k, url, opts) => fetch(url, opts).then(() => say(k, 'reached'), () => say(k, 'blocked'));
    tryFetch('ipc', 'ipc://localhost/app_info', { method: 'POST', body: '{}' });
    tryFetch('ipcHttp', 'http://ipc.localhost/app_info', { method: 'POST', body: '{}' });
    tryFetch('asset', 'asset://localhost/etc/hostname');
    tryFetch('sibling', 'secret-neighbour.txt');
    const img = (k, src) => { const i = new Image(); i.onload = () => say(k, 'loaded'); i.onerror = () => say(k, 'blocked'); i.src = src; };
    img('outsideImg', '../outside.png');
    img('outsideImgEnc', '%2e%2e/outside.png');
    img('fileImg', 'file://${dir}/outside.png');
    </script>`,
  );
  writeFileSync(join(dir, "evil/ok.png"), PNG);
  await open(p);
  await session.waitFor("return !!document.querySelector('[data-testid=viewer-html]')", { what: "the iframe" });
  const frame = await session.cmd("POST", "/element", { using: "css selector", value: "[data-testid=viewer-html]" });
  await session.cmd("POST", "/frame", { id: frame });
  let results;
  try {
    results = await session.waitFor(
      "const items = Array.from(document.querySelectorAll('#r li')); return items.length >= 12 ? Object.fromEntries(items.map(li => [li.dataset.k, li.textContent.split('=')[1]])) : null",
      { what: "every attempt reported" },
    );
    assert.equal(await session.execute("return document.getElementById('inside').naturalWidth"), 8, "its own image loads");
  } finally {
    await session.cmd("POST", "/frame/parent", {});
  }
  console.log(JSON.stringify(results));
  // The forged post reached no command: after a pause, the app (which does
  // create sessions for its own frame) has none with that title.
  await new Promise((r) => setTimeout(r, 1500));
  const invoke = (cmd, args) =>
    session.cmd("POST", "/execute/async", {
      script: `const done = arguments[arguments.length - 1];
        window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1]).then((v) => done(v), (e) => done("err " + String(e)));`,
      args: [cmd, args],
    });
  await invoke("create_session", { title: "made-by-the-app", workingDir: null });
  const titles = (await invoke("list_sessions", {})).map((s) => s.title);
  assert.ok(titles.includes("made-by-the-app"), `the app's own command works: ${JSON.stringify(titles)}`);
  assert.ok(!titles.includes("forged-by-frame"), `the frame's forged command ran: ${JSON.stringify(titles)}`);
  assert.equal(results.internals, "undefined/undefined");
  assert.equal(results.parentDoc, "blocked");
  assert.equal(results.parentInternals, "blocked");
  assert.equal(results.topNav, "blocked");
  for (const k of ["ipc", "ipcHttp", "asset", "sibling", "outsideImg", "outsideImgEnc", "fileImg"]) assert.equal(results[k], "blocked", k);
  // The app is still itself: same page, IPC working.
  assert.match(await session.execute("return location.hash"), /^#\/view/);
  await shot("html-security");
});

test("the side panel: dragged by its edge and moved by keys, its width kept after a reload, gone at 640×420", async () => {
  const p = write("side/panel.md", "# Beside the chat\n\nA file in the side panel.\n");
  // The way a detached viewer window hands its file back to the panel.
  const toPanel = () =>
    session.cmd("POST", "/execute/async", {
      script: `const done = arguments[arguments.length - 1];
        window.__TAURI_INTERNALS__.invoke("plugin:event|emit", { event: "viewer-returned", payload: arguments[0] }).then(() => done("ok"), (e) => done("err " + String(e)));`,
      args: [p],
    });
  const panelWidth = () => session.execute("const s = document.querySelector('[data-testid=side-panel]'); return s && !s.hidden ? Math.round(s.getBoundingClientRect().width) : 0");
  const chatPage = async () => {
    await session.execute("location.hash = '#/chat'");
    await session.waitFor("return !!document.querySelector('[data-testid=new-chat]')", { what: "the chat page" });
  };
  await chatPage();
  assert.equal(await toPanel(), "ok");
  await session.waitFor("return document.querySelector('[data-testid=side-panel]:not([hidden]) [data-testid=viewer-markdown] h1')?.textContent === 'Beside the chat'", { what: "the file in the side panel" });
  // Home on the focused edge: the widest the window allows (the chat keeps 420 px beside the navigation).
  const edge = await session.element("[data-testid=side-resizer]");
  await session.cmd("POST", `/element/${edge}/value`, { text: "\uE011" });
  const before = await panelWidth();
  assert.equal(before, (await session.execute("return innerWidth")) - 600, "Home: the widest");

  // A person's drag: WebDriver pointer actions on the edge, 120 px right.
  await dragPanelEdge(session, 120);
  const dragged = await panelWidth();
  assert.ok(Math.abs(before - 120 - dragged) <= 4, `dragged 120 px right: ${before} -> ${dragged}`);
  assert.ok(await session.execute("return document.querySelector('[data-testid=composer]').getBoundingClientRect().right <= document.querySelector('[data-testid=side-panel]').getBoundingClientRect().left + 1"), "the chat ends where the panel starts");

  // The keyboard: the edge takes focus, ← widens by 16 px.
  await session.cmd("POST", `/element/${edge}/value`, { text: "\uE012" });
  const keyed = await panelWidth();
  assert.equal(keyed, dragged + 16, `← widened it: ${dragged} -> ${keyed}`);
  await shot("side-panel");

  // After a reload the panel opens at the width it was left at.
  await session.execute("location.reload()");
  await new Promise((r) => setTimeout(r, 1000));
  await session.waitFor("return !!document.querySelector('[data-testid=new-chat]')", { what: "the reloaded chat page" });
  assert.equal(await toPanel(), "ok");
  await session.waitFor("return !!document.querySelector('[data-testid=side-panel]:not([hidden]) [data-testid=viewer-markdown]')", { what: "the panel after the reload" });
  assert.equal(await panelWidth(), keyed, "the width survived the reload");

  // At the window's 640×420 minimum the panel gives way to the chat; widened again, it is back as it was.
  const rect = await session.cmd("GET", "/window/rect");
  await session.cmd("POST", "/window/rect", { width: 640, height: 420 });
  await session.waitFor("return innerWidth <= 640", { what: "the narrow window" });
  await session.waitFor("return getComputedStyle(document.querySelector('[data-testid=side-panel]')).display === 'none'", { what: "the panel giving way" });
  assert.ok((await session.execute("return document.getElementById('page').getBoundingClientRect().width")) >= 560, "the chat has the window");
  await shot("side-panel-narrow");
  await session.cmd("POST", "/window/rect", { width: rect.width, height: rect.height });
  await session.waitFor("return innerWidth > 1000", { what: "the wide window" });
  await session.waitFor(`return Math.round(document.querySelector('[data-testid=side-panel]').getBoundingClientRect().width) === ${keyed}`, { what: "the panel back at its width" });

  // A chat's own tabs (todos, scratchpad, tasks) beside the file, in the light theme at three sizes.
  await session.execute("document.querySelector('[data-testid=new-chat]').click()");
  await session.waitFor("return document.querySelectorAll('[data-testid=side-pin-tab]').length === 3", { what: "the chat's tabs in the panel" });
  assert.equal(await session.execute("return matchMedia('(prefers-color-scheme: dark)').matches"), false, "the light theme");
  for (const [width, height] of [[1600, 900], [1100, 720], [640, 420]]) {
    await session.cmd("POST", "/window/rect", { width, height });
    await session.waitFor(`return Math.abs(innerWidth - ${width}) < 40`, { what: `a ${width} px window` });
    assert.equal(await session.execute("return document.scrollingElement.scrollHeight === innerHeight"), true, `${width}×${height}: the page does not scroll`);
    await shot(`side-panel-light-${width}`);
  }
  await session.click("[data-testid=side-panel-toggle]");
  await session.waitFor("return getComputedStyle(document.querySelector('[data-testid=side-panel]')).position === 'fixed'", { what: "the overlay at 640×420" });
  await shot("side-panel-light-640-overlay");
  await session.click("[data-testid=side-hide]");
  await session.cmd("POST", "/window/rect", { width: rect.width, height: rect.height });
  await session.waitFor("return innerWidth > 1000", { what: "the wide window again" });
  await session.execute("document.querySelectorAll('[data-testid=side-tab-close]').forEach((b) => b.click())");
});
