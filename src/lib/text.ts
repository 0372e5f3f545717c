import { decodeHTML, fromCodePoint, replaceCodePoint } from 'entities/decode';
import { isBidiControl } from './bidi.js';

/**
 * One character where folding has work to do, besides a run of spaces: a control character (C0 and C1,
 * tab, line feed, vertical tab, form feed and return included), a bidi control (lib/bidi.ts) or
 * whitespace other than the space (the rest of JavaScript's `\s`). Every match is one character long. */
const FOLD_START =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u00a0\u1680\u2000-\u200a\u2028-\u202f\u205f\u2066-\u2069\u3000\ufeff]/g;

const VISIBLE = 0;
const WHITESPACE = 1;
const CONTROL = 2;

/** Whether folding keeps a character, folds it as whitespace (JavaScript's `\s`) or drops it (a control). */
function kindOf(c: number): number {
  if (c > 0x20 && c < 0x7f) return VISIBLE;
  if (c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0) return WHITESPACE;
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || isBidiControl(c)) return CONTROL;
  const isSpace =
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff;
  return isSpace ? WHITESPACE : VISIBLE;
}

/**
 * Drops control characters and bidi controls (lib/bidi.ts), folds every run of whitespace into one space,
 * and trims: `withoutBidiControls(text.replace(/[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g, ''))`, then
 * `.replace(/\s+/g, ' ').trim()`. */
export function foldWhitespace(text: string): string {
  return readText(text, false) ?? text; // never null without markup
}

/** Plain text of an HTML fragment: tags, comments, scripts and styles removed, entities decoded, folded. */
export function htmlToText(html: string): string {
  return readText(html, true) ?? foldWhitespace(decodeEntities(stripTags(html)));
}

/**
 * What folding gives (see foldWhitespace) of `html`, with its tags stripped and its references decoded
 * first when `markup` is set: stripTags(), decodeEntities() and foldWhitespace() one after the other, in
 * one scan and without their intermediate strings. Those strings made summarising a feed allocate twice
 * what it keeps (15 MB for the bench's 5 MB RSS document, 7 MB now), which often filled the young
 * generation and had a scavenge copy feedsmith's result, still young, in the middle of parseFeed.
 *
 * The places with work to do come from native searches, each renewed only once the scan has passed what
 * it found: "<", "&", a character folding rewrites (FOLD_START) and two spaces in a row. A lone space
 * between two words, by far the most common gap, is no such place: the text between two places is copied
 * as one slice, with a space at either end (none first in the result, none twice in a row). Other
 * whitespace is carried as `pending` and put out as one space before the next text unless a space is
 * already last; with a final trim that is what folding each run into one space and trimming come to.
 *
 * Null for a reference this scan cannot read, rare in feeds: one that runs into a "<" (stripping the tag
 * first may complete it, as in "&am<b>p;"), or one that only decodeHTML reads and that changes the text
 * ("&copy 2024"). The three passes then do the work.
 */
function readText(html: string, markup: boolean): string | null {
  const n = html.length;
  let out = '';
  let pending = false; // whitespace since the last text put out
  let spaced = true; // nothing put out yet, or a space last: whitespace now would add nothing
  let copied = 0; // html before this index is settled
  let lt = markup ? indexOr(html, '<', 0) : n;
  let amp = markup ? indexOr(html, '&', 0) : n;
  let special = nextFoldStart(html, 0);
  let spaces = indexOr(html, '  ', 0);
  for (;;) {
    const at = Math.min(lt, amp, special, spaces);
    if (at > copied) {
      // Visible characters and lone spaces; one first is the space that whitespace before them makes.
      let from = copied;
      if (html.charCodeAt(from) === 0x20) {
        if (spaced) from++;
      } else if (pending && !spaced) {
        out += ' ';
      }
      if (at > from) {
        out += html.slice(from, at);
        spaced = html.charCodeAt(at - 1) === 0x20;
        pending = false;
      }
      copied = at;
    }
    // trim() drops the space a last slice may end with, and flattens the chain of slices into one string,
    // as the three passes' result was: what parseFeed returns is ready to store, no copy left to the caller.
    if (at === n) return out.trim();
    if (at === lt) {
      const end = markupEnd(html, at);
      if (end === at) {
        lt = indexOr(html, '<', at + 1); // a lone "<", as in "a < b", is text: copied with what follows
        continue;
      }
      if (end < 0) pending = true; // a tag that keeps words apart
      copied = Math.abs(end);
    } else if (at === amp) {
      const value = referenceAt(html, at);
      if (value === undefined) {
        if (!isLiteralAmpersand(html, at)) return null;
        amp = indexOr(html, '&', at + 1); // the "&" is text: copied with what follows
        continue;
      }
      // Every value is one code point, whose kind its first unit tells (a high surrogate is visible).
      const kind = kindOf(value.charCodeAt(0));
      if (kind === VISIBLE) {
        out += pending && !spaced ? ` ${value}` : value;
        spaced = pending = false;
      } else if (kind === WHITESPACE) {
        pending = true;
      }
      copied = html.indexOf(';', at) + 1;
    } else {
      // A run of whitespace and controls: one space when it holds any whitespace, nothing otherwise.
      let end = at;
      for (let kind = kindOf(html.charCodeAt(end)); kind !== VISIBLE && end < n;) {
        if (kind === WHITESPACE) pending = true;
        kind = kindOf(html.charCodeAt(++end));
      }
      copied = end;
    }
    if (lt < copied) lt = indexOr(html, '<', copied);
    if (amp < copied) amp = indexOr(html, '&', copied);
    if (special < copied) special = nextFoldStart(html, copied);
    if (spaces < copied) spaces = indexOr(html, '  ', copied);
  }
}
/** The next match of FOLD_START from `from`, or the end of the text. */
function nextFoldStart(text: string, from: number): number {
  FOLD_START.lastIndex = from;
  return FOLD_START.test(text) ? FOLD_START.lastIndex - 1 : text.length;
}

/** The next `search` in `text` from `from`, or the end of the text. */
function indexOr(text: string, search: string, from: number): number {
  const at = text.indexOf(search, from);
  return at === -1 ? text.length : at;
}

/** HTML 4's named character references, which are nearly all that feeds use, as `entities` decodes them. */
const NAMED_REFERENCES: ReadonlyMap<string, string> = new Map(
  (
    'quot amp apos lt gt nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg ' +
    'plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute ' +
    'Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve ' +
    'Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc ' +
    'atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ' +
    'ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml OElig oelig Scaron scaron Yuml ' +
    'fnof circ tilde ensp emsp thinsp zwnj zwj lrm rlm ndash mdash lsquo rsquo sbquo ldquo rdquo bdquo dagger ' +
    'Dagger bull hellip permil prime Prime lsaquo rsaquo oline frasl euro image weierp real trade alefsym larr ' +
    'uarr rarr darr harr crarr lArr uArr rArr dArr hArr forall part exist empty nabla isin notin ni prod sum ' +
    'minus lowast radic prop infin ang and or cap cup int there4 sim cong asymp ne equiv le ge sub sup nsub sube ' +
    'supe oplus otimes perp sdot lceil rceil lfloor rfloor lang rang loz spades clubs hearts diams Alpha Beta ' +
    'Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho Sigma Tau Upsilon Phi Chi Psi ' +
    'Omega alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigmaf sigma ' +
    'tau upsilon phi chi psi omega thetasym upsih piv'
  )
    .split(' ')
    .map((name): [string, string] => [name, decodeHTML(`&${name};`)]),
);

/**
 * NAMED_REFERENCES whose names have up to five characters, keyed by a number made of the name (6 bits a
 * character, none 0, so names of different lengths never share one): referenceAt() computes it while
 * reading the name, and needs no string for it.
 */
const SHORT_REFERENCES: ReadonlyMap<number, string> = new Map(
  [...NAMED_REFERENCES]
    .filter(([name]) => name.length <= 5)
    .map(([name, value]): [number, string] => {
      let key = 0;
      for (let i = 0; i < name.length; i++) key = key * 64 + nameCharCode(name.charCodeAt(i));
      return [key, value];
    }),
);

/** 1–62 for a letter or digit of a reference's name: a–z, A–Z, 0–9. */
function nameCharCode(c: number): number {
  return c <= 0x39 ? c - 0x30 + 53 : c <= 0x5a ? c - 0x41 + 27 : c - 0x61 + 1;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHexDigit = (c: number): boolean => isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
const isAlphanumeric = (c: number): boolean => isAsciiLetter(c) || isDigit(c);

/**
 * What `entities`' decodeHTML makes of `text`, faster: the references referenceAt() reads are decoded
 * there; any other is left to decodeHTML, given the text up to the next "&" (a reference never reaches
 * past one).
 */
function decodeEntities(text: string): string {
  const out: string[] = []; // joined once: one flat string, which foldWhitespace() reads straight away
  let copied = 0;
  for (let amp = text.indexOf('&'); amp !== -1; amp = text.indexOf('&', copied)) {
    const value = referenceAt(text, amp);
    if (value === undefined) {
      const next = text.indexOf('&', amp + 1);
      const chunkEnd = next === -1 ? text.length : next;
      out.push(text.slice(copied, amp), decodeHTML(text.slice(amp, chunkEnd)));
      copied = chunkEnd;
    } else {
      out.push(text.slice(copied, amp), value);
      copied = text.indexOf(';', amp) + 1; // the first, since a name or number holds none
    }
  }
  if (copied === 0) return text;
  out.push(text.slice(copied));
  return out.join('');
}

/**
 * The character the reference at `amp` stands for when it is one that feeds use, ended by ";": a named
 * one of HTML 4, or a numeric one, read with entities' own table and code point rules. Undefined for any
 * other, or for an "&" that starts no reference.
 */
function referenceAt(text: string, amp: number): string | undefined {
  let end = amp + 1; // then the ";" ending the reference
  if (text.charCodeAt(end) === 0x23 /* # */) {
    const hex = (text.charCodeAt(end + 1) | 0x20) === 0x78; /* x */
    const from = hex ? end + 2 : end + 1;
    const limit = from + (hex ? 6 : 7);
    let code = 0; // what parseInt() makes of the digits, read as they are passed
    for (end = from; end < limit; end++) {
      const c = text.charCodeAt(end);
      const digit = isDigit(c) ? c - 0x30 : hex && isHexDigit(c) ? (c | 0x20) - 0x57 : -1;
      if (digit === -1) break;
      code = code * (hex ? 16 : 10) + digit;
    }
    if (end === from || text.charCodeAt(end) !== 0x3b) return undefined;
    return fromCodePoint(replaceCodePoint(code));
  }
  let key = 0; // see SHORT_REFERENCES
  for (let c = text.charCodeAt(end); isAlphanumeric(c); c = text.charCodeAt(++end)) {
    key = key * 64 + nameCharCode(c);
  }
  if (text.charCodeAt(end) !== 0x3b) return undefined;
  return end - amp - 1 <= 5 ? SHORT_REFERENCES.get(key) : NAMED_REFERENCES.get(text.slice(amp + 1, end));
}

/**
 * Whether an "&" that starts no reference referenceAt() reads is text as it stands, in HTML that tags are
 * yet to be stripped from: decodeHTML reads no further than letters, digits and "#" and a ";" after them,
 * and leaves those as they are, and no "<" follows them, whose tag, once stripped, could lengthen them.
 */
function isLiteralAmpersand(html: string, amp: number): boolean {
  let end = amp + 1;
  for (let c = html.charCodeAt(end); isAlphanumeric(c) || c === 0x23; c = html.charCodeAt(++end));
  const after = html.charCodeAt(end);
  if (after === 0x3c) return false;
  if (end === amp + 1) return true;
  const name = html.slice(amp, after === 0x3b ? end + 1 : end);
  return decodeHTML(name) === name;
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

/**
 * Length in Unicode code points, as a person counts characters rather than UTF-16 units: a surrogate pair
 * is one character, and so is a lone surrogate (one code point, which shows as U+FFFD), exactly as
 * `Array.from(text).length` counts but without the array.
 */
export function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pairsWithPrevious = c >= 0xdc00 && c <= 0xdfff && i > 0 && isHighSurrogate(text.charCodeAt(i - 1));
    if (!pairsWithPrevious) n++;
  }
  return n;
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/** What a tag means for the text around it: words stay apart across it, or its content is hidden. */
const SEPARATING = 1;
const HIDDEN = 2;

/**
 * Tags after which words must stay apart ("<p>a</p><p>b</p>" reads "a b", "a<b>b</b>" reads "ab"), and
 * elements whose content is not text a reader sees. Keyed by lower-case name.
 */
const TAG_KINDS: ReadonlyMap<string, number> = new Map([
  ...'address article aside blockquote br dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 header hr img li main nav ol p pre section table td th tr ul'
    .split(' ')
    .map((name): [string, number] => [name, SEPARATING]),
  ...['script', 'style', 'template', 'noscript'].map((name): [string, number] => [name, HIDDEN]),
]);

const isAsciiLetter = (c: number): boolean => (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;

/** [A-Za-z0-9_:-], the characters of a tag name after its first letter. */
function isNameChar(c: number): boolean {
  return isAsciiLetter(c) || (c >= 0x30 && c <= 0x3a) || c === 0x5f || c === 0x2d;
}

/**
 * Removes markup in one forward scan (regular expressions with lazy or `[^>]*` parts go quadratic on
 * input such as a thousand unclosed "<a"): every search starts where the last one ended, and a search
 * that finds nothing ends the scan, since nothing later could match either.
 */
function stripTags(html: string): string {
  let out = '';
  let i = 0;
  for (let lt = html.indexOf('<'); lt !== -1; lt = html.indexOf('<', i)) {
    const end = markupEnd(html, lt);
    if (end === lt) {
      out += html.slice(i, lt + 1); // a lone "<", as in "a < b", is text
      i = lt + 1;
    } else {
      out += end < 0 ? `${html.slice(i, lt)} ` : html.slice(i, lt);
      i = Math.abs(end);
    }
  }
  return out + html.slice(i);
}

/**
 * Where the markup that the "<" at `lt` starts ends: past a comment (at "-->"), a declaration or processing
 * instruction (at ">"), a tag, or the end tag of an element whose content is hidden; at the end of the
 * text when it is cut off (markup cut off at the end hides nothing a reader would see). Negated for a tag
 * after which words stay apart; `lt` itself when the "<" is text: followed by neither a letter, "/" and a
 * letter, "!" nor "?".
 */
function markupEnd(html: string, lt: number): number {
  const next = html.charCodeAt(lt + 1);
  if (next === 0x21 /* ! */ || next === 0x3f /* ? */) {
    const isComment = html.startsWith('<!--', lt);
    const end = isComment ? html.indexOf('-->', lt + 4) : html.indexOf('>', lt + 2);
    return end === -1 ? html.length : end + (isComment ? 3 : 1);
  }
  const closing = next === 0x2f; // "</"
  const start = closing ? lt + 2 : lt + 1;
  if (!isAsciiLetter(html.charCodeAt(start))) return lt;
  let upper = false;
  let nameEnd = start;
  for (let c = html.charCodeAt(nameEnd); isNameChar(c); c = html.charCodeAt(++nameEnd)) {
    if (c <= 0x5a && c >= 0x41) upper = true;
  }
  const end = html.charCodeAt(nameEnd) === 0x3e ? nameEnd : tagEnd(html, nameEnd); // "<p>" mostly
  if (end === -1) return html.length;
  const name = upper ? html.slice(start, nameEnd).toLowerCase() : html.slice(start, nameEnd);
  const kind = TAG_KINDS.get(name);
  if (kind === SEPARATING) return -(end + 1);
  return kind === HIDDEN && !closing ? skipElement(html, name, end + 1) : end + 1;
}

/**
 * The ">" that ends the tag whose attributes start at `from`, as a browser reads it: one inside a quoted
 * attribute value (`alt="a > b"`, `title='<br>'`) is text; -1 when there is none (the tag is cut off). A
 * quote starts a value only after "=" (and spaces); anywhere else it is part of a name.
 */
function tagEnd(html: string, from: number): number {
  let gt = html.indexOf('>', from);
  for (let at = from; ;) {
    if (gt !== -1 && gt < at) gt = html.indexOf('>', at); // passed by a quoted value: the next one
    const quote = firstQuote(html, at, gt === -1 ? html.length : gt);
    if (quote === -1) return gt;
    let before = quote - 1;
    while (before > at && isSpace(html.charCodeAt(before))) before--;
    if (html.charCodeAt(before) !== 0x3d /* = */) {
      at = quote + 1;
      continue;
    }
    const close = html.indexOf(html[quote] ?? '"', quote + 1);
    if (close === -1) return -1;
    at = close + 1;
  }
}

/** The first '"' or "'" in html[from, to), or -1. */
function firstQuote(html: string, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const c = html.charCodeAt(i);
    if (c === 0x22 || c === 0x27) return i;
  }
  return -1;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;

/** Where the element `name`, opened before `from`, ends: after its end tag, or at the end of the text. */
function skipElement(html: string, name: string, from: number): number {
  const close = new RegExp(`</${name}\\s*>`, 'ig');
  close.lastIndex = from;
  return close.exec(html) === null ? html.length : close.lastIndex;
}
