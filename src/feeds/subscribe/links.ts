import { decodeHTMLAttribute } from 'entities';
import { nestedBase, resolveHttpUrl } from '../parse/urls.js';

/** Reading the feed links a web page announces in its head, as a browser's tokenizer would see them. */

/** A feed link found in a page. */
export interface FeedLink {
  /** Absolute http(s), resolved against the page's <base href> or else its URL. */
  url: string;
  /** The media type, lower case, without parameters. */
  type: string;
  /** The title attribute, "" when absent. */
  title: string;
}

const FEED_TYPES = new Set([
  'application/rss+xml',
  'application/atom+xml',
  'application/rdf+xml',
  'application/feed+json',
  // Older sites announced RSS as plain XML (early WordPress themes: type="text/xml" title="RSS .92").
  'application/xml',
  'text/xml',
]);

/**
 * The feeds a page announces with <link rel="alternate" type="…feed type…" href="…">, in document order,
 * each URL once. Only the head is read: a link in the body is content, which a page's author may not control.
 */
export function feedLinks(html: string, pageUrl: string): FeedLink[] {
  const tags = [...headTags(html)];
  // The first <base href> applies to every URL in the document, links before it included.
  const baseHref = tags
    .find((tag) => tag.name === 'base' && tag.attributes.has('href'))
    ?.attributes.get('href');
  const base = nestedBase(baseHref, pageUrl);
  const links: FeedLink[] = [];
  for (const tag of tags) {
    const link = tag.name === 'link' ? feedLink(tag.attributes, base) : null;
    if (link !== null && !links.some((l) => l.url === link.url)) links.push(link);
  }
  return links;
}

function feedLink(attributes: ReadonlyMap<string, string>, base: string | null): FeedLink | null {
  const rel = (attributes.get('rel') ?? '').toLowerCase().split(/[\t\n\f\r ]+/);
  if (!rel.includes('alternate')) return null;
  const type = (attributes.get('type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const title = (attributes.get('title') ?? '').replace(/\s+/g, ' ').trim();
  const url = resolveHttpUrl(attributes.get('href'), base);
  if (url === null) return null;
  // WordPress links every page to its REST API as application/json: only a feed-like one is worth a fetch.
  const jsonFeed = type === 'application/json' && /feed/i.test(`${title} ${url}`);
  return FEED_TYPES.has(type) || jsonFeed ? { url, type, title } : null;
}

interface Tag {
  /** Lower case. */
  name: string;
  /** Names in lower case, values with character references decoded; the first of a repeated name wins. */
  attributes: Map<string, string>;
  /** Where the text after the tag starts. */
  end: number;
}

/**
 * Elements whose content is text, not markup (script and style above all, where a "<link" may sit in a
 * string); template too, whose content is not part of the document.
 */
const TEXT_CONTENT = new Set([
  'script',
  'style',
  'title',
  'textarea',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'template',
]);

/**
 * The start tags before </head> or <body>, following the HTML tokenizer's rules for what a browser would
 * see: comments, doctypes, end tags and the content of TEXT_CONTENT elements are passed over.
 */
function* headTags(html: string): Generator<Tag> {
  let at = html.indexOf('<');
  while (at !== -1 && at < html.length) {
    const next = html.charAt(at + 1);
    if (html.startsWith('<!--', at)) {
      at = indexAfter(html, '-->', at + 2); // from the first "-": "<!-->" is a whole (empty) comment
    } else if (next === '!' || next === '?') {
      at = indexAfter(html, '>', at + 2);
    } else if (next === '/') {
      if (/^<\/head[\t\n\f\r />]/i.test(html.slice(at, at + 7))) return;
      at = indexAfter(html, '>', at + 2);
    } else if (/[A-Za-z]/.test(next)) {
      const tag = readTag(html, at + 1);
      if (tag === null || tag.name === 'body') return;
      yield tag;
      at = TEXT_CONTENT.has(tag.name) ? endOfText(html, tag.name, tag.end) : tag.end;
    } else {
      at += 1; // a "<" that opens nothing is text
    }
    at = html.indexOf('<', at);
  }
}

/**
 * A start tag from its name's first character: name, attributes, and where it ends; null when the text ends
 * inside it, where a browser drops the tag.
 */
function readTag(html: string, from: number): Tag | null {
  let at = from;
  while (
    at < html.length &&
    !isSpace(html.charAt(at)) &&
    html.charAt(at) !== '/' &&
    html.charAt(at) !== '>'
  ) {
    at++;
  }
  const tag: Tag = { name: html.slice(from, at).toLowerCase(), attributes: new Map(), end: html.length };
  for (;;) {
    while (isSpace(html.charAt(at)) || html.charAt(at) === '/') at++;
    if (at >= html.length) return null;
    if (html.charAt(at) === '>') {
      tag.end = at + 1;
      return tag;
    }
    const attribute = readAttribute(html, at);
    if (!tag.attributes.has(attribute.name)) tag.attributes.set(attribute.name, attribute.value);
    at = attribute.end;
  }
}

/** name, name=value, name='value' or name="value", with white space around the "=" allowed. */
function readAttribute(html: string, from: number): { name: string; value: string; end: number } {
  let at = from + 1; // the first character belongs to the name even when it is "="
  while (at < html.length && !isSpace(html.charAt(at)) && !'/>='.includes(html.charAt(at))) at++;
  const name = html.slice(from, at).toLowerCase();
  at = skipSpace(html, at);
  if (html.charAt(at) !== '=') return { name, value: '', end: at };
  at = skipSpace(html, at + 1);
  const quote = html.charAt(at);
  if (quote === '"' || quote === "'") {
    const close = html.indexOf(quote, at + 1);
    const end = close === -1 ? html.length : close;
    return { name, value: decodeHTMLAttribute(html.slice(at + 1, end)), end: Math.min(end + 1, html.length) };
  }
  const start = at;
  while (at < html.length && !isSpace(html.charAt(at)) && html.charAt(at) !== '>') at++;
  return { name, value: decodeHTMLAttribute(html.slice(start, at)), end: at };
}

/** Where the end tag of a text-content element starts, or the end of the text. */
function endOfText(html: string, name: string, from: number): number {
  const endTag = new RegExp(`</${name}[\\t\\n\\f\\r />]`, 'ig');
  endTag.lastIndex = from;
  return endTag.exec(html)?.index ?? html.length;
}

function indexAfter(html: string, needle: string, from: number): number {
  const at = html.indexOf(needle, from);
  return at === -1 ? html.length : at + needle.length;
}

function skipSpace(html: string, from: number): number {
  let at = from;
  while (isSpace(html.charAt(at))) at++;
  return at;
}

/** HTML's ASCII white space; charAt past the end gives "", which is not. */
function isSpace(char: string): boolean {
  return char !== '' && ' \t\n\f\r'.includes(char);
}
