import { decodeHTML } from 'entities';

// Control characters other than the whitespace ones (tab, line feed, vertical tab, form feed, return).
// eslint-disable-next-line no-control-regex
const INVISIBLE_CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;

/**
 * Every run of whitespace but a lone space, which folding would leave as it is: matching only these
 * rather than every `\s+` spares a replacement per word gap (most of the time htmlToText took).
 */
const FOLDABLE_WHITESPACE = /[^\S ]\s*| \s+/g;

/** Drops control characters, folds every run of whitespace into one space, and trims. */
export function foldWhitespace(text: string): string {
  return text.replace(INVISIBLE_CONTROL, '').replace(FOLDABLE_WHITESPACE, ' ').trim();
}

/** Plain text of an HTML fragment: tags, comments, scripts and styles removed, entities decoded, folded. */
export function htmlToText(html: string): string {
  const text = stripTags(html);
  return foldWhitespace(text.includes('&') ? decodeHTML(text) : text);
}

/** Cuts text to at most `limit` characters, at a word boundary when one is near, marking the cut with "…". */
export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit - 1; // room for the ellipsis
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // never cut between the halves of a surrogate pair
  const cut = text.slice(0, end);
  const space = cut.lastIndexOf(' ');
  return `${space > limit * 0.8 ? cut.slice(0, space) : cut}…`;
}

/** Text made safe to place inside HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Tags after which words must stay apart: "<p>a</p><p>b</p>" reads "a b", "a<b>b</b>" reads "ab". */
const SEPARATING_TAGS = new Set(
  'address article aside blockquote br dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 header hr img li main nav ol p pre section table td th tr ul'.split(
    ' ',
  ),
);

/** Elements whose content is not text a reader sees. */
const HIDDEN_ELEMENTS = new Set(['script', 'style', 'template', 'noscript']);

/**
 * The start of a tag (its name captured), a declaration ("<!DOCTYPE") or a processing instruction, matched
 * where lastIndex points (sticky): no copy of the text after each "<".
 */
const TAG_START = /<\/?([a-zA-Z][\w:-]*)|<[!?]/y;

/**
 * Removes markup in one forward scan (regular expressions with lazy or `[^>]*` parts go quadratic on
 * input such as a thousand unclosed "<a"): every search starts where the last one ended, and a search
 * that finds nothing ends the scan, since nothing later could match either.
 */
function stripTags(html: string): string {
  let out = '';
  let i = 0;
  for (let lt = html.indexOf('<'); lt !== -1; lt = html.indexOf('<', i)) {
    out += html.slice(i, lt);
    const isComment = html.startsWith('<!--', lt);
    TAG_START.lastIndex = lt;
    const tag = isComment ? null : TAG_START.exec(html);
    if (!isComment && tag === null) {
      out += '<'; // a lone "<", as in "a < b", is text
      i = lt + 1;
      continue;
    }
    const end = isComment ? html.indexOf('-->', lt + 4) : html.indexOf('>', lt + 1);
    if (end === -1) return out; // markup cut off at the end hides nothing a reader would see
    i = end + (isComment ? 3 : 1);
    const name = tag?.[1]?.toLowerCase();
    if (name === undefined) continue;
    if (SEPARATING_TAGS.has(name)) out += ' ';
    if (HIDDEN_ELEMENTS.has(name) && html[lt + 1] !== '/') i = skipElement(html, name, i);
  }
  return out + html.slice(i);
}

/** Where the element `name`, opened before `from`, ends: after its end tag, or at the end of the text. */
function skipElement(html: string, name: string, from: number): number {
  const close = new RegExp(`</${name}\\s*>`, 'ig');
  close.lastIndex = from;
  return close.exec(html) === null ? html.length : close.lastIndex;
}
