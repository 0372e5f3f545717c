import { MAX_HTML_CHARS, MAX_TEXT_CHARS } from '../lib/readerLimits.js';
import { htmlToText, truncate } from '../lib/text.js';
import { capHtml } from '../lib/capHtml.js';
import { httpUrl, LIMITS, plain } from './clean.js';
import { decodeHtml } from './decode.js';
import type { DomDocument, HtmlParser } from './dom.js';
import { LIMIT_REASONS, READABLE_DEPTH } from './limits.js';
import { scanMarkup } from './scanMarkup.js';
import { readMetadata } from './metadata.js';
import { readableContent } from './readable.js';
import { sanitizeArticle } from '../lib/sanitize.js';
import { emptyExtract, type PageExtract } from './types.js';
import { countWords, readingMinutes } from '../lib/words.js';

/**
 * How much of a page is parsed, in characters: pages beyond it are cut before parsing (the parser closes
 * what is left open), which keeps a 10 MB page from costing seconds and hundreds of MB. Articles are far
 * smaller; what is lost is the end of pages that are mostly inline data.
 */
export const MAX_PARSE_CHARS = 3 * 1024 * 1024;

/** The caps on what is kept of a page (lib/readerLimits.ts), shared with newsletters. */
export { MAX_HTML_CHARS, MAX_TEXT_CHARS };

/** The address relative URLs resolve against: the page's <base href> when it is http(s), else the page. */
function baseOf(doc: DomDocument, pageUrl: string | null): string | null {
  return httpUrl(doc.querySelector('base[href]')?.getAttribute('href'), pageUrl) ?? pageUrl;
}

/** The first paragraph of the reader HTML that reads like one (40 characters or more), else the first. */
function firstParagraph(html: string): string | null {
  let first: string | null = null;
  for (const m of html.matchAll(/<p\b[^>]*>([\s\S]*?)<\/p>/g)) {
    const text = htmlToText(m[1] ?? '');
    if (text.length >= 40) return truncate(text, LIMITS.description);
    first ??= text === '' ? null : truncate(text, LIMITS.description);
  }
  return first;
}

/**
 * Metadata and reader text of an HTML page, parsed with `parse`; or, for markup past a limit of
 * articles/limits.ts (found by a scan before parsing), nothing but the reason in `refused`.
 */
export function extractHtml(
  body: Uint8Array,
  type: { mediaType: string | null; charset: string | null },
  url: URL | null,
  parse: HtmlParser,
): PageExtract {
  const pageUrl = url?.href ?? null;
  const extract = emptyExtract('html', type.mediaType, body.byteLength);
  const decoded = decodeHtml(body, type.charset).text;
  const source = decoded.length > MAX_PARSE_CHARS ? decoded.slice(0, MAX_PARSE_CHARS) : decoded;
  const scan = scanMarkup(source);
  if (scan.past !== null) return { ...extract, refused: LIMIT_REASONS[scan.past] };
  const doc = parse(source, pageUrl);
  const base = baseOf(doc, pageUrl);
  const meta = readMetadata(doc, base, pageUrl);
  const readable = scan.depth > READABLE_DEPTH ? null : readableContent(doc, base);
  const sanitized = readable === null ? '' : sanitizeArticle(readable.html, base);
  const capped = capHtml(sanitized, MAX_HTML_CHARS).html;
  const text = htmlToText(capped);
  const words = countWords(text);
  return {
    ...extract,
    ...meta,
    description: meta.description ?? firstParagraph(capped),
    author: meta.author ?? plain(readable?.byline, LIMITS.author),
    html: text === '' ? null : capped,
    text: text === '' ? null : truncate(text, MAX_TEXT_CHARS),
    wordCount: words,
    readingMinutes: readingMinutes(words),
  };
}
