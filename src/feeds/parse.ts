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
 * Throws FeedParseError, and only that, for anything that is not a readable feed.
 *
 * DTD entities are never expanded: feedsmith runs fast-xml-parser with entity processing off, so a
 * "billion laughs" document stays small and literal, and one declaring an external (SYSTEM) entity is
 * refused as malformed before anything is read from outside. The tests pin both.
 */
export function parseFeed(bytes: Buffer | Uint8Array, opts: ParseFeedOptions = {}): Feed {
  const ctx: ReadContext = { url: resolveHttpUrl(opts.url, null), now: opts.now ?? new Date() };
  try {
    const { text } = decodeFeedBytes(bytes, opts.contentType);
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
 * (whose internal subset may itself contain ">"), or null when there is none. One forward scan.
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

/** Past "<!DOCTYPE …>", or past "]>" when an internal subset "[…]" opens before the first ">". */
function endOfDoctype(text: string, from: number): number {
  const bracket = text.indexOf('[', from);
  const close = text.indexOf('>', from);
  if (bracket === -1 || close === -1 || close < bracket) return close === -1 ? -1 : close + 1;
  const subsetEnd = /\]\s*>/g;
  subsetEnd.lastIndex = bracket;
  return subsetEnd.exec(text) === null ? -1 : subsetEnd.lastIndex;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
