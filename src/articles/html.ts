import { htmlToText, truncate } from '../lib/text.js';
import { capHtml } from './capHtml.js';
import { httpUrl, LIMITS, plain } from './clean.js';
import { decodeHtml } from './decode.js';
import type { DomDocument, HtmlParser } from './dom.js';
import { LIMIT_REASONS, READABLE_DEPTH } from './limits.js';
import { scanMarkup } from './scanMarkup.js';
import { readMetadata } from './metadata.js';
import { readableContent } from './readable.js';
import { sanitizeArticle } from './sanitize.js';
import { emptyExtract, type PageExtract } from './types.js';
import { countWords, readingMinutes } from './words.js';

/**
 * How much of a page is parsed, in characters: pages beyond it are cut before parsing (the parser closes
 * what is left open), which keeps a 10 MB page from costing seconds and hundreds of MB. Articles are far
 * smaller; what is lost is the end of pages that are mostly inline data.
 */
export const MAX_PARSE_CHARS = 3 * 1024 * 1024;

/**
 * The cap on stored reader HTML, in characters. Longer text is cut on an element boundary (capHtml) so
 * the reader gets its beginning in whole paragraphs, and the metadata is kept; `text` and the word count
 * are of what is kept.
 */
export const MAX_HTML_CHARS = 512 * 1024;

/**
 * The cap on the plain text kept of a page, in characters: what search indexes (migration 0015's
 * search_texts takes the same first 20,000) and nothing else reads. A typical article is whole in it; a
 * very long page is found by its first ~3,500 words. The word count and reading time are of the whole text.
 * Measured with `npm run bench:enrich` (BENCHMARKS.md, session 6): indexing 100,000 characters a page, the
 * reader ran at 34.7–36.8 pages a second; with 20,000, at 34.4–46.4 (runs vary ±15 %).
 */
export const MAX_TEXT_CHARS = 20_000;

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
