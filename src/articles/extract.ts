import { httpUrl } from './clean.js';
import { parseWithLinkedom, type HtmlParser } from './dom.js';
import { extractFile } from './file.js';
import { extractHtml } from './html.js';
import { effectiveType, parseContentType } from './mediaType.js';
import { siteOf } from './metadata.js';
import { bylineAuthor } from '../lib/display.js';
import { emptyExtract, type ExtractInput, type PageExtract } from './types.js';

export type { ExtractInput, PageExtract } from './types.js';
export type { LeadImage, PageMetadata } from './metadata.js';

export interface ExtractOptions {
  /** The DOM to parse HTML with; linkedom unless a bench compares others (bench/enrich-extract.ts). */
  parse?: HtmlParser;
}

/** The page's URL when it is an absolute http(s) URL. */
function parseUrl(url: string): URL | null {
  const href = httpUrl(url, null);
  return href === null ? null : new URL(href);
}

/**
 * What Tidings keeps of a saved page, from its body as fetched, its Content-Type and its final URL. Pure
 * and synchronous: no network, no scripts run. Everything the page sends is taken as hostile: every
 * string is cleaned and capped, the reader HTML sanitised and capped, and no input makes it throw; what
 * could not be read is null (or the body is described as a file).
 */
export function extractPage(input: ExtractInput, options: ExtractOptions = {}): PageExtract {
  const byteLength = input.body.byteLength;
  const header = parseContentType(input.contentType);
  let type = { mediaType: header.mediaType, html: false };
  try {
    type = effectiveType(header, input.body);
    const url = parseUrl(input.url);
    if (!type.html) return extractFile(url, type.mediaType, byteLength);
    const parse = options.parse ?? parseWithLinkedom;
    const page = extractHtml(input.body, { mediaType: type.mediaType, charset: header.charset }, url, parse);
    // Readability's byline too is only an author when it is a name (not the site, not a date).
    return { ...page, author: bylineAuthor(page.author, page.siteName, siteOf(url?.href ?? null)) };
  } catch {
    return emptyExtract(type.html ? 'html' : 'file', type.mediaType, byteLength);
  }
}
