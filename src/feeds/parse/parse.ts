import {
  DetectError,
  MalformedError,
  ParseError,
  parseAtomFeed,
  parseJsonFeed,
  parseRdfFeed,
  parseRssFeed,
} from 'feedsmith';
import { fromAtom } from './atom.js';
import { decodeFeedBytes } from './decode.js';
import type { ReadContext } from './entry.js';
import { fromJson } from './json.js';
import { type Feed, FeedParseError } from './model.js';
import { fromRdf, fromRss } from './rss.js';
import { resolveHttpUrl } from './urls.js';

export { type Feed, type FeedItem, FeedParseError } from './model.js';

export interface ParseFeedOptions {
  /** The URL the feed was fetched from: the base for relative links when the feed sets no xml:base. */
  url?: string;
  /** The HTTP Content-Type header, for its charset. */
  contentType?: string;
  /** Parse time, against which implausibly future dates are judged; defaults to the current time. */
  now?: Date;
}

/**
 * Reads RSS 0.90–2.0, RDF, Atom 0.3 / 1.0 or JSON Feed 1.0 / 1.1 from raw bytes into Tidings' model.
 * Throws FeedParseError, and only that, for anything that is not a readable feed, including a declared
 * charset Tidings does not know (`unsupported charset "x"`).
 *
 * DTD entities are never expanded (feedsmith runs fast-xml-parser with entity processing off), and a
 * document whose DOCTYPE declares an external entity (XXE) or entities built from other entities (billion
 * laughs) is refused before it is parsed: such a document is an attack, not a feed. The tests pin both.
 */
export function parseFeed(bytes: Buffer | Uint8Array, opts: ParseFeedOptions = {}): Feed {
  const ctx: ReadContext = { url: resolveHttpUrl(opts.url, null), now: opts.now ?? new Date() };
  try {
    const { text } = decodeFeedBytes(bytes, opts.contentType, { unknownCharset: 'error' });
    return /^\s*[{[]/.test(text) ? readJson(text, ctx) : readXml(text, ctx);
  } catch (err) {
    if (err instanceof FeedParseError) throw err;
    // A feed reader meets every kind of broken input: whatever slipped through is still a parse failure.
    throw new FeedParseError(`unreadable feed: ${messageOf(err)}`, { cause: err });
  }
}

const HTML_ROOTS = new Set(['html', 'head', 'body']);

function readXml(text: string, ctx: ReadContext): Feed {
  const root = rootElement(text);
  if (root === null) {
    throw new FeedParseError(text.trim() === '' ? 'empty document' : 'not a feed: no XML element found');
  }
  const name = root.slice(root.indexOf(':') + 1).toLowerCase();
  if (name === 'rss') return fromRss(runFeedsmith(() => parseRssFeed(text)) ?? {}, ctx);
  if (name === 'feed') return fromAtom(runFeedsmith(() => parseAtomFeed(text)) ?? {}, ctx);
  if (name === 'rdf') return fromRdf(runFeedsmith(() => parseRdfFeed(text)) ?? {}, ctx);
  if (HTML_ROOTS.has(name)) throw new FeedParseError('not a feed: HTML page');
  // A broken PHP site prints warnings ("<br />\n<b>Warning</b>: …") before its feed: the XML declaration
  // shows where the feed starts. Past it, the declaration is first, so this happens at most once.
  const declaration = text.indexOf('<?xml');
  if (declaration > 0) return readXml(text.slice(declaration), ctx);
  throw new FeedParseError(`not a feed: the document is <${root}>, not <rss>, <feed> or <rdf:RDF>`);
}

/**
 * feedsmith recognises a JSON Feed only by a version URL; publishers also write a bare "1.1" or nothing,
 * so any object with an items list is taken for one.
 */
const JSON_FEED_VERSION = 'https://jsonfeed.org/version/1.1';

function readJson(text: string, ctx: ReadContext): Feed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new FeedParseError(`malformed JSON: ${messageOf(err)}`);
  }
  if (typeof value !== 'object' || value === null || !('items' in value) || !Array.isArray(value.items)) {
    throw new FeedParseError('not a feed: JSON without an "items" list');
  }
  return fromJson(runFeedsmith(() => parseJsonFeed({ ...value, version: JSON_FEED_VERSION })) ?? {}, ctx);
}

/**
 * Runs one of feedsmith's parsers on a document whose root already says which format it is. Undefined
 * when feedsmith recognises nothing in it (`<rss version="2.0"/>`, a channel of unknown elements): that
 * is an empty feed, as a brand-new blog's may be, not an error.
 */
function runFeedsmith<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch (err) {
    if (err instanceof MalformedError) {
      throw new FeedParseError(`malformed XML: ${messageOf(err.cause ?? err)}`, { cause: err });
    }
    if (err instanceof DetectError || err instanceof ParseError) return undefined;
    throw err;
  }
}

/**
 * The name of the first element, past the prolog, comments, processing instructions and the DOCTYPE
 * (whose internal subset may itself contain ">"), or null when there is none. One forward scan. Throws
 * FeedParseError when the DOCTYPE's internal subset declares entities checkEntity() refuses.
 */
function rootElement(text: string): string | null {
  for (let i = text.indexOf('<'); i !== -1; i = text.indexOf('<', i)) {
    if (text.startsWith('<?', i)) i = indexAfter(text, '?>', i);
    else if (text.startsWith('<!--', i)) i = indexAfter(text, '-->', i);
    else if (text.startsWith('<!', i)) i = endOfDoctype(text, i);
    else return /^<([A-Za-z_][\w.:-]*)/.exec(text.slice(i, i + 256))?.[1] ?? null;
    if (i === -1) return null;
  }
  return null;
}

function indexAfter(text: string, end: string, from: number): number {
  const at = text.indexOf(end, from);
  return at === -1 ? -1 : at + end.length;
}

/**
 * Past "<!DOCTYPE …>", or past the "]>" that ends the internal subset when a "[" opens before the first
 * ">". The subset is read declaration by declaration, quoted values skipped whole (they may hold "]>"),
 * and every entity declared in it is checked by checkEntity(). -1 when the DOCTYPE never ends.
 */
function endOfDoctype(text: string, from: number): number {
  const bracket = text.indexOf('[', from);
  const close = text.indexOf('>', from);
  if (bracket === -1 || close === -1 || close < bracket) return close === -1 ? -1 : close + 1;
  const subsetEnd = /\]\s*>/y;
  let i = bracket + 1;
  for (;;) {
    SUBSET_MARKUP.lastIndex = i;
    const found = SUBSET_MARKUP.exec(text);
    if (found === null) return -1;
    const at = found.index;
    if (found[0] === ']') {
      subsetEnd.lastIndex = at;
      if (subsetEnd.test(text)) return subsetEnd.lastIndex;
      i = at + 1;
    } else if (found[0] === '<!--') {
      i = indexAfter(text, '-->', at + 4);
    } else if (found[0] === '<?') {
      i = indexAfter(text, '?>', at + 2);
    } else {
      i = endOfDeclaration(text, at + 2);
      if (text.startsWith('<!ENTITY', at)) checkEntity(text.slice(at, i === -1 ? text.length : i));
    }
    if (i === -1) return -1;
  }
}

/** What the internal subset is read by: its end, comments, processing instructions and declarations. */
const SUBSET_MARKUP = /\]|<!--|<\?|<!/g;

/** Past the ">" ending the markup declaration that goes on at `from`, skipping quoted values; or -1. */
function endOfDeclaration(text: string, from: number): number {
  const next = /["'>]/g;
  next.lastIndex = from;
  for (let found = next.exec(text); found !== null; found = next.exec(text)) {
    if (found[0] === '>') return next.lastIndex;
    const quoteEnd = text.indexOf(found[0], next.lastIndex);
    if (quoteEnd === -1) return -1;
    next.lastIndex = quoteEnd + 1;
  }
  return -1;
}

/** "<!ENTITY", "%" for a parameter entity, the name; then a quoted value, or SYSTEM / PUBLIC and its id. */
const ENTITY_DECLARATION = /^<!ENTITY\s+(?:%\s+)?[^\s"'>]+\s+(?:(SYSTEM|PUBLIC)\b|(["'])([^]*?)\2)/;
/** A reference to an entity other than the five XML predefines, or to a parameter entity. */
const EXPANDING_REFERENCE = /&(?!(?:amp|lt|gt|quot|apos);)[A-Za-z_:][\w.:-]*;|%[A-Za-z_:][\w.:-]*;/;
const CHARACTER_REFERENCE = /&#(?:x([0-9A-Fa-f]{1,6})|(\d{1,7}));/g;

const EXPANDING = 'refused: the feed declares XML entities that expand other entities (billion laughs)';

/**
 * Throws FeedParseError for the declaration of an external entity (SYSTEM or PUBLIC: a file or an address
 * the document wants read, XXE) or of an entity whose value refers to another entity (the nesting a
 * "billion laughs" document multiplies itself with), character references that spell such a reference
 * included. An entity whose value is text and character references passes; so does one whose value
 * declares entities (a parameter entity's may) that pass, up to a nesting no feed needs.
 */
function checkEntity(declaration: string, depth = 0): void {
  const m = ENTITY_DECLARATION.exec(declaration);
  if (m === null) return; // malformed: the XML parser has its say
  if (m[1] !== undefined) throw new FeedParseError('refused: the feed declares an external XML entity (XXE)');
  const value = (m[3] ?? '').replace(CHARACTER_REFERENCE, characterOf);
  if (EXPANDING_REFERENCE.test(value)) throw new FeedParseError(EXPANDING);
  for (let at = value.indexOf('<!ENTITY'); at !== -1; at = value.indexOf('<!ENTITY', at + 1)) {
    if (depth >= 2) throw new FeedParseError(EXPANDING);
    const end = endOfDeclaration(value, at + 2);
    checkEntity(value.slice(at, end === -1 ? value.length : end), depth + 1);
  }
}

/** The character a reference stands for; an impossible one stays as written, which refers to nothing. */
function characterOf(reference: string, hex: string | undefined, decimal: string | undefined): string {
  const code = hex === undefined ? Number(decimal) : parseInt(hex, 16);
  return code <= 0x10ffff ? String.fromCodePoint(code) : reference;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
