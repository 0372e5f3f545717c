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
import { fromCdf } from './cdf.js';
import { decodeFeedBytes } from './decode.js';
import { expandEntities, readProlog } from './doctype.js';
import type { ReadContext } from './entry.js';
import { fromJson } from './json.js';
import { recoverXml } from './lenient.js';
import { decodeBase64Modes, unprefixRoot } from './rewrites.js';
import { type Feed, type FeedContent, FeedParseError, MalformedXmlError } from './model.js';
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
 * A document whose DOCTYPE declares an external entity (XXE) or entities built from other entities
 * (billion laughs) is refused before it is parsed: such a document is an attack, not a feed. Internal
 * entities whose values are text are expanded here (doctype.ts, bounded), never by the XML parser
 * (feedsmith runs fast-xml-parser with entity processing off). The tests pin all three.
 *
 * A document the XML parser refuses is read again by the recovering parse (lenient.ts) and, when that
 * gives a feed, returned with `lenient` set; otherwise the strict parse's error stands.
 */
export function parseFeed(bytes: Buffer | Uint8Array, opts: ParseFeedOptions = {}): Feed {
  const ctx: ReadContext = { url: resolveHttpUrl(opts.url, null), now: opts.now ?? new Date() };
  try {
    const { text } = decodeFeedBytes(bytes, opts.contentType, { unknownCharset: 'error' });
    return /^\s*[{[]/.test(text) ? { ...readJson(text, ctx), lenient: false } : readXmlDocument(text, ctx);
  } catch (err) {
    if (err instanceof FeedParseError) throw err;
    // A feed reader meets every kind of broken input: whatever slipped through is still a parse failure.
    throw new FeedParseError(`unreadable feed: ${messageOf(err)}`, { cause: err });
  }
}

const HTML_ROOTS = new Set(['html', 'head', 'body']);

function readXmlDocument(text: string, ctx: ReadContext): Feed {
  const prolog = readProlog(text);
  const expanded = expandEntities(text, prolog);
  try {
    return { ...readXml(expanded, prolog.root, ctx), lenient: false };
  } catch (err) {
    if (!(err instanceof MalformedXmlError)) throw err;
    try {
      const recovered = recoverXml(expanded);
      return { ...readXml(recovered, readProlog(recovered).root, ctx), lenient: true };
    } catch {
      throw err; // what the strict parse said is the clearer account of what is wrong
    }
  }
}

function readXml(text: string, root: string | null, ctx: ReadContext): FeedContent {
  if (root === null) {
    throw new FeedParseError(text.trim() === '' ? 'empty document' : 'not a feed: no XML element found');
  }
  const name = root.slice(root.indexOf(':') + 1).toLowerCase();
  if (name === 'rss') {
    const rss = unprefixRoot(text, root);
    return fromRss(runFeedsmith(() => parseRssFeed(rss)) ?? {}, ctx);
  }
  if (name === 'feed') {
    const atom = decodeBase64Modes(text);
    return fromAtom(runFeedsmith(() => parseAtomFeed(atom)) ?? {}, ctx);
  }
  if (name === 'rdf') return fromRdf(runFeedsmith(() => parseRdfFeed(text)) ?? {}, ctx);
  if (name === 'channel') return fromCdf(text, ctx);
  if (HTML_ROOTS.has(name)) throw new FeedParseError('not a feed: HTML page');
  // A broken PHP site prints warnings ("<br />\n<b>Warning</b>: …") before its feed: the XML declaration
  // shows where the feed starts. Past it, the declaration is first, so this happens at most once.
  const declaration = text.indexOf('<?xml');
  if (declaration > 0) {
    const rest = text.slice(declaration);
    return readXml(rest, readProlog(rest).root, ctx);
  }
  throw new FeedParseError(`not a feed: the document is <${root}>, not <rss>, <feed> or <rdf:RDF>`);
}

/**
 * feedsmith recognises a JSON Feed only by a version URL; publishers also write a bare "1.1" or nothing,
 * so any object with an items list is taken for one.
 */
const JSON_FEED_VERSION = 'https://jsonfeed.org/version/1.1';

function readJson(text: string, ctx: ReadContext): FeedContent {
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
      throw new MalformedXmlError(`malformed XML: ${messageOf(err.cause ?? err)}`, { cause: err });
    }
    if (err instanceof DetectError || err instanceof ParseError) return undefined;
    throw err;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
