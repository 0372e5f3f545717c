import { Parser } from 'htmlparser2';

/*
 * Stored reader HTML (pages.html, sanitised when the page was read) re-written as XHTML that an EPUB 3
 * reading system parses as XML and EPUBCheck accepts. Written independently of the sanitiser, as the
 * reading view's second pass is (http/web/readerHtml.ts): whatever the row holds, the output is
 * well-formed and valid. How:
 *
 * - an allow-list of text elements, each written as itself or as a plainer one (section → div, time →
 *   span); scripts, styles, frames, forms, media, SVG and MathML go with their content; any other element
 *   goes and keeps its content;
 * - the content model kept by construction: a block inside a paragraph (or any phrasing element) is
 *   unwrapped, a link inside a link too; a list holds only items, a row only cells, a table one tbody of
 *   rows: anything else there is wrapped in an item, a cell, a row;
 * - an image is written only when the book embeds it (`images`: its src → the file in the book, see
 *   images.ts), with its alt text; any other is left out, its alt text kept in brackets: the book never
 *   loads anything remote (see docs/digest.md);
 * - only a few attributes (lang, dir, title; a link's absolute http(s) or mailto: href, encoded as RFC 3986
 *   requires; a list's start; a cell's spans), each checked, none longer than MAX_ATTRIBUTE;
 * - text and attribute values escaped, characters XML 1.0 forbids (controls, lone surrogates) and C1
 *   controls removed; nesting deeper than MAX_DEPTH flattened into its parent's text.
 */

/** Deeper elements are unwrapped (their text kept): reading systems are not fond of deep trees either. */
export const MAX_DEPTH = 40;
/** Longer attribute values are dropped (a link that long is no link a reader follows). */
export const MAX_ATTRIBUTE = 2048;

type Kind = 'flow' | 'phrasing' | 'table' | 'rows' | 'cells' | 'items' | 'defs';

/** What an element's content may hold, by the element written. */
const CONTENT: Record<string, Kind> = {
  div: 'flow',
  blockquote: 'flow',
  li: 'flow',
  dd: 'flow',
  td: 'flow',
  th: 'flow',
  table: 'table',
  tbody: 'rows',
  tr: 'cells',
  ul: 'items',
  ol: 'items',
  dl: 'defs',
};

const PHRASING = new Set(
  'a em strong b i u s del ins mark small sub sup abbr q cite code kbd samp var span dfn bdi bdo'.split(' '),
);
const BLOCK = new Set('p h1 h2 h3 h4 h5 h6 pre blockquote div ul ol dl table'.split(' '));
/** Written as another element: the plain ones every reading system knows. */
const RENAMED: Record<string, string> = {
  section: 'div',
  article: 'div',
  main: 'div',
  header: 'div',
  footer: 'div',
  aside: 'div',
  figure: 'div',
  figcaption: 'div',
  details: 'div',
  summary: 'p',
  address: 'div',
  center: 'div',
  time: 'span',
  tt: 'code',
  strike: 's',
  big: 'span',
  font: 'span',
};
/** The structure of lists and tables: placed only where they belong. */
const STRUCTURAL = new Set(['li', 'dt', 'dd', 'tr', 'td', 'th']);
/** Left out with everything inside. */
const GONE = new Set(
  (
    'script style noscript template textarea option select button form iframe frame frameset object embed ' +
    'applet svg math canvas video audio head title link meta base dialog input portal xmp plaintext nav ' +
    'picture source track map area noembed noframes param'
  ).split(' '),
);

interface Open {
  tag: string;
  kind: Kind;
  /** A wrapper this writer added (an item, a cell, a row): closed before the next structural element. */
  implicit: boolean;
}

/** The XHTML of a fragment of HTML: well-formed, valid in an EPUB 3 content document's body. */
export function toXhtml(
  html: string,
  opts: { root?: Kind; images?: ReadonlyMap<string, string> } = {},
): string {
  const out: string[] = [];
  const written: Open[] = [];
  /** Per source element: how many written elements were open before it (its own and wrappers go at its end). */
  const sources: { before: number; skip: boolean }[] = [];
  let skipping = 0;
  const rootKind = opts.root ?? 'flow';
  const kind = (): Kind => written.at(-1)?.kind ?? rootKind;
  const inLink = (): boolean => written.some((w) => w.tag === 'a');

  const open = (tag: string, attrs: string, implicit = false): void => {
    out.push(`<${tag}${attrs}>`);
    written.push({ tag, kind: CONTENT[tag] ?? 'phrasing', implicit });
  };
  const closeTo = (depth: number): void => {
    while (written.length > depth) out.push(`</${written.pop()?.tag ?? ''}>`);
  };
  const closeImplicit = (): void => {
    while (written.at(-1)?.implicit === true) closeTo(written.length - 1);
  };
  /** Wrappers so that `what` (an element of this kind, or text) fits where the writer stands. */
  const fit = (what: 'cell' | 'row' | 'item' | 'term' | 'other'): void => {
    for (;;) {
      const k = kind();
      if (k === 'table') open('tbody', '', true);
      else if (k === 'rows' && what !== 'row') open('tr', '', true);
      else if (k === 'cells' && what !== 'cell') open('td', '', true);
      else if (k === 'items' && what !== 'item') open('li', '', true);
      else if (k === 'defs' && what !== 'term') open('dd', '', true);
      else return;
    }
  };
  const text = (value: string): void => {
    const clean = xmlChars(value);
    if (clean === '') return;
    const k = kind();
    if (k !== 'flow' && k !== 'phrasing' && clean.trim() === '') return;
    fit('other');
    out.push(escapeText(clean));
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const before = written.length;
        if (skipping > 0 || GONE.has(name)) {
          skipping++;
          sources.push({ before, skip: true });
          return;
        }
        sources.push({ before, skip: false });
        const tag = RENAMED[name] ?? name;
        if (tag === 'img') {
          const alt = truncateChars(foldSpace(xmlChars(attribs.alt ?? '')), 300);
          const embedded = opts.images?.get(attribs.src?.trim() ?? '');
          if (embedded !== undefined) {
            fit('other');
            out.push(`<img src="${escapeAttribute(embedded)}" alt="${escapeAttribute(alt)}"/>`);
          } else if (alt !== '') text(` [${alt}] `);
          return;
        }
        if (tag === 'br') {
          if (kind() === 'flow' || kind() === 'phrasing') out.push('<br/>');
          return;
        }
        if (tag === 'hr') {
          if (kind() === 'flow') out.push('<hr/>');
          return;
        }
        if (written.length >= MAX_DEPTH) return;
        const source = sources.at(-1);
        const place = (t: string): void => {
          // Wrappers opened to make room stay open for the siblings that follow (the next cell, item…).
          if (source !== undefined) source.before = written.length;
          open(t, t === 'table' ? '' : attributes(t, attribs));
          if (t === 'table') open('tbody', '');
        };
        if (STRUCTURAL.has(tag)) {
          closeImplicit();
          const what =
            tag === 'li' ? 'item' : tag === 'tr' ? 'row' : tag === 'dt' || tag === 'dd' ? 'term' : 'cell';
          if (kind() !== 'flow' && kind() !== 'phrasing') fit(what);
          // An item, row, cell or term out of its list or table: its content as a block, or inline.
          if (kind() === 'flow') place('div');
          else if (kind() !== 'phrasing') place(tag);
          return;
        }
        const phrasing = PHRASING.has(tag);
        if (!phrasing && !BLOCK.has(tag)) return;
        if (tag === 'a' && inLink()) return;
        if (kind() === 'phrasing' && !phrasing) {
          // A block inside a paragraph: its content joins the paragraph, a space apart.
          out.push(' ');
          return;
        }
        fit('other');
        place(tag);
      },
      ontext(value) {
        if (skipping === 0) text(value);
      },
      onclosetag() {
        const source = sources.pop();
        if (source === undefined) return;
        if (source.skip) {
          skipping--;
          return;
        }
        closeTo(source.before);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: false },
  );
  parser.write(html);
  parser.end();
  closeTo(0);
  return out.join('');
}

/** The checked attributes of an element, each ` name="value"`. */
function attributes(tag: string, attribs: Record<string, string>): string {
  const kept: [string, string][] = [];
  const lang = attribs.lang?.trim() ?? '';
  if (LANGUAGE.test(lang)) kept.push(['lang', lang], ['xml:lang', lang]);
  const dir = attribs.dir?.trim().toLowerCase() ?? '';
  if (dir === 'ltr' || dir === 'rtl' || dir === 'auto') kept.push(['dir', dir]);
  const title = foldSpace(xmlChars(attribs.title ?? ''));
  if (title !== '') kept.push(['title', title]);
  if (tag === 'a') {
    const href = safeHref(attribs.href ?? '');
    if (href !== null) kept.push(['href', href]);
  }
  if (tag === 'ol') {
    const start = attribs.start?.trim() ?? '';
    if (/^-?\d{1,9}$/.test(start)) kept.push(['start', String(Number(start))]);
    if (attribs.reversed !== undefined) kept.push(['reversed', 'reversed']);
  }
  if (tag === 'td' || tag === 'th') {
    for (const name of ['colspan', 'rowspan']) {
      const n = Number(attribs[name]?.trim() ?? '');
      if (Number.isInteger(n) && n >= 1 && n <= 100) kept.push([name, String(n)]);
    }
  }
  if (tag === 'th') {
    const scope = attribs.scope?.trim().toLowerCase() ?? '';
    if (['row', 'col', 'rowgroup', 'colgroup'].includes(scope)) kept.push(['scope', scope]);
  }
  return kept
    .filter(([, value]) => value.length <= MAX_ATTRIBUTE)
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join('');
}

/** BCP 47 in its common shape (en, pt-BR, zh-Hant-TW). */
export const LANGUAGE = /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8}){0,4}$/;

/**
 * An absolute http(s) link as the WHATWG URL parser writes it, or a plain mailto:, in the form RFC 3986
 * allows (what EPUBCheck checks, RSC-020): the parser leaves `|`, `^`, `{`, `}`, `[`, `]`, `\`, a backquote, a
 * lone `%` and a second `#` as they are, and those are percent-encoded. Null for anything else.
 */
export function safeHref(raw: string): string | null {
  const value = raw.trim();
  if (value.length > MAX_ATTRIBUTE) return null;
  if (/^mailto:[^\s<>"'\\]+$/i.test(value)) return `mailto:${uriPart(value.slice('mailto:'.length))}`;
  if (!/^https?:\/\/[^\s/]/i.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // The host as the parser wrote it (ASCII, an IPv6 address in its brackets); every other part encoded.
  const password = url.password === '' ? '' : `:${uriPart(url.password)}`;
  const user = url.username === '' && password === '' ? '' : `${uriPart(url.username)}${password}@`;
  const query = url.search === '' ? '' : `?${uriPart(url.search.slice(1))}`;
  const fragment = url.hash === '' ? '' : `#${uriPart(url.hash.slice(1))}`;
  return `${url.protocol}//${user}${url.host}${uriPart(url.pathname)}${query}${fragment}`;
}

/**
 * A part of a URL (path, query, fragment, user) with every character RFC 3986 does not allow there
 * percent-encoded (as UTF-8): only unreserved characters, sub-delimiters, ":", "@", "/", "?" and whole
 * %XX escapes stay.
 */
function uriPart(part: string): string {
  // A lone surrogate (a mailto: is not parsed) has no UTF-8: U+FFFD, as the URL parser makes it.
  return part
    .replace(/[\ud800-\udfff]/gu, '\ufffd')
    .replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]+/gu, (bad) =>
      bad === '%' ? '%25' : encodeURIComponent(bad),
    );
}

/** Characters XML 1.0 forbids (C0 controls but tab and newlines, lone surrogates, U+FFFE/F) and C1 controls. */
const NOT_XML = /[^\t\n\r\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

export function xmlChars(value: string): string {
  return value.replace(NOT_XML, '');
}

export function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttribute(value: string): string {
  return escapeText(xmlChars(value))
    .replace(/"/g, '&quot;')
    .replace(/[\t\n\r]/g, ' ');
}

/** Plain text made XML-safe and escaped: a title, a name, an excerpt. */
export function xmlText(value: string): string {
  return escapeText(xmlChars(value));
}

function foldSpace(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

function truncateChars(value: string, limit: number): string {
  const chars = Array.from(value);
  return chars.length <= limit ? value : `${chars.slice(0, limit).join('')}…`;
}
