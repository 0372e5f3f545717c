import { createHash } from 'node:crypto';

/**
 * The web app's one stylesheet. It lives in a module (not a .css file) so that the build needs no copy
 * step; it is served at a path carrying its content hash, cached for a year. Colours meet WCAG AA
 * contrast (4.5:1 for text) in the light and the dark scheme; every focusable element shows a 3 px ring.
 */
export const STYLESHEET = `
:root {
  color-scheme: light dark;
  --bg: #fdfcf9;
  --fg: #1d1d1b;
  --muted: #595750;
  --line: #d9d6cc;
  --panel: #f3f1ea;
  --accent: #1f5f8b;
  --accent-fg: #ffffff;
  --danger: #a3261b;
  --ok-bg: #e4f2e3;
  --ok-fg: #1c4d1a;
  --err-bg: #fbe7e4;
  --err-fg: #7a1d14;
  --focus: #c25e00;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #161614;
    --fg: #ecebe6;
    --muted: #b3b0a6;
    --line: #3d3b36;
    --panel: #22211e;
    --accent: #8cc4ec;
    --accent-fg: #10212d;
    --danger: #f2998f;
    --ok-bg: #1d3a1c;
    --ok-fg: #c9ecc6;
    --err-bg: #46201c;
    --err-fg: #f8d3ce;
    --focus: #ffb057;
  }
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0;
  background: var(--bg);
  color: var(--fg);
  font: 1rem/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
}
a { color: var(--accent); text-underline-offset: 0.15em; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip {
  position: absolute; inset-inline-start: 0.5rem; top: -3rem; padding: 0.5rem 0.75rem;
  background: var(--accent); color: var(--accent-fg); z-index: 1;
}
.skip:focus { top: 0.5rem; }
header.site { border-bottom: 1px solid var(--line); background: var(--panel); }
header.site .bar {
  max-width: 52rem; margin: 0 auto; padding: 0.5rem 1rem;
  display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 1rem;
}
.brand { font-weight: 700; font-size: 1.15rem; color: var(--fg); text-decoration: none; margin-inline-end: auto; }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 0.9rem; margin: 0; padding: 0; }
nav a { display: inline-block; padding: 0.35rem 0; color: var(--fg); }
nav a[aria-current='page'] { font-weight: 700; text-decoration-thickness: 3px; }
.account { display: flex; align-items: center; gap: 0.5rem; color: var(--muted); font-size: 0.9rem; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem 1rem 4rem; }
h1 { font-size: 1.6rem; margin: 0.75rem 0 0.5rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 0.5rem; }
p, ol, ul { margin: 0.5rem 0; }
.muted, .hint { color: var(--muted); }
.hint { font-size: 0.9rem; margin: 0.15rem 0 0; }
.notice, .error {
  padding: 0.6rem 0.8rem; border-radius: 6px; margin: 0.75rem 0; border: 1px solid transparent;
}
.notice { background: var(--ok-bg); color: var(--ok-fg); border-color: var(--ok-fg); }
.error { background: var(--err-bg); color: var(--err-fg); border-color: var(--err-fg); }
form.stack { display: grid; gap: 0.75rem; max-width: 36rem; margin: 0.75rem 0; }
label { font-weight: 600; display: block; }
input[type='text'], input[type='url'], input[type='password'], input[type='email'],
input[type='number'], input[type='time'], input[type='search'], select, textarea {
  font: inherit; color: inherit; background: var(--bg);
  width: 100%; padding: 0.45rem 0.55rem; border: 1px solid var(--muted); border-radius: 6px;
}
/* A refused field: a thicker border in the error colour and an outline, besides its message (not colour alone). */
input[aria-invalid='true'], fieldset[aria-invalid='true'] {
  border: 2px solid var(--danger); outline: 2px dashed var(--danger); outline-offset: 1px;
}
input[aria-invalid='true']:focus-visible { outline: 3px solid var(--focus); }
label.check { font-weight: 400; display: flex; gap: 0.5rem; align-items: center; }
input[type='checkbox'] { width: 1.15rem; height: 1.15rem; margin: 0; accent-color: var(--accent); }
fieldset { border: 1px solid var(--line); border-radius: 6px; padding: 0.5rem 0.75rem; margin: 0; }
legend { font-weight: 600; padding: 0 0.25rem; }
fieldset.days { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
fieldset.days legend { width: 100%; }
input[readonly] { background: var(--panel); font-family: ui-monospace, Menlo, Consolas, monospace; }
button, .button {
  font: inherit; font-weight: 600; cursor: pointer; display: inline-block; text-decoration: none;
  padding: 0.45rem 0.9rem; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--accent-fg);
}
button.quiet { background: transparent; color: var(--accent); }
button.danger { background: transparent; color: var(--danger); border-color: var(--danger); }
button.link { background: none; border: none; padding: 0.35rem 0; color: var(--accent); font-weight: 400; text-decoration: underline; }
.inline { display: inline; margin: 0; }
.row { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: end; }
.row > .grow { flex: 1 1 14rem; }
mark { background: #fde68a; color: #1d1d1b; border-radius: 2px; padding: 0 0.1em; }
ol.items, ul.items { list-style: none; padding: 0; margin: 1rem 0; border-top: 1px solid var(--line); }
.items > li {
  display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; align-items: start;
  padding: 0.75rem 0; border-bottom: 1px solid var(--line);
}
.items .main { flex: 1 1 20rem; min-width: 0; }
.items .title { font-weight: 600; overflow-wrap: anywhere; }
.items .meta { color: var(--muted); font-size: 0.9rem; overflow-wrap: anywhere; }
.items .actions { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.items .actions form { display: flex; gap: 0.5rem; align-items: center; margin: 0; }
.items .actions input[type='text'] { width: 11rem; }
.panel > h2:first-child { margin-top: 0.25rem; }
.error-text, .items .meta.error-text { color: var(--danger); }
details { margin: 0.5rem 0 0; }
summary { cursor: pointer; color: var(--accent); padding: 0.25rem 0; }
details[open] > summary { margin-bottom: 0.25rem; }
.cut { color: var(--muted); font-size: 0.9rem; padding: 0.5rem 0; border-bottom: 2px dashed var(--line); }
/* Text that may hold a long unbroken name (a feed's, a headline's): wraps anywhere rather than scroll sideways. */
.wrap { overflow-wrap: anywhere; }
code, pre, .mono { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.9rem; overflow-wrap: anywhere; }
pre {
  background: var(--panel); border: 1px solid var(--line); border-radius: 6px;
  padding: 0.6rem 0.75rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere;
}
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem 1rem; margin: 1rem 0; }
.bookmarklet {
  display: inline-block; padding: 0.45rem 0.9rem; border: 2px dashed var(--accent); border-radius: 6px;
  font-weight: 700; text-decoration: none;
}
table { border-collapse: collapse; width: 100%; }
th, td { text-align: start; padding-block: 0.4rem; padding-inline: 0 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.visually-hidden {
  position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
.pager { display: flex; gap: 1rem; margin: 1rem 0; }
/* The reading list's tag filters: a tag is one word, and may be a long one. */
.tags li { min-width: 0; }
.tags a { overflow-wrap: anywhere; }
.items .thumb { flex: 0 0 auto; order: 2; }
.items > li > .actions { order: 3; }
.items .thumb img { display: block; border-radius: 4px; object-fit: cover; background: var(--panel); }
.items .excerpt { margin: 0.25rem 0 0; overflow-wrap: anywhere; }
.items .read { font-size: 0.9rem; font-weight: 600; }
.reader { max-width: 40rem; margin: 0 auto; font-size: 1.125rem; line-height: 1.65; overflow-wrap: break-word; }
.reader .original { font-size: 1rem; margin: 0 0 1rem; }
.reader h1 { line-height: 1.25; margin: 0.25rem 0 0.5rem; }
.reader .byline { color: var(--muted); font-size: 0.95rem; margin: 0 0 1rem; }
.reader .lead { margin: 0 0 1.5rem; }
.reader img, .reader video { max-width: 100%; height: auto; }
.reader figure { margin: 1.5rem 0; }
.reader figcaption { color: var(--muted); font-size: 0.9rem; }
.reader blockquote { margin: 1rem 0; padding-inline-start: 1rem; border-inline-start: 3px solid var(--line); color: var(--muted); }
.reader pre { white-space: pre; overflow-x: auto; }
.reader table { display: block; overflow-x: auto; }
@media (max-width: 30rem) {
  h1 { font-size: 1.35rem; }
  .items .actions { width: 100%; }
  .items .thumb img { width: 64px; height: auto; }
  .reader { font-size: 1.05rem; }
}
`;

export const STYLESHEET_HASH = createHash('sha256').update(STYLESHEET).digest('hex').slice(0, 12);
export const STYLESHEET_PATH = `/static/app.${STYLESHEET_HASH}.css`;
