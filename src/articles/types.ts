import type { PageMetadata } from './metadata.js';

/** What Tidings keeps of a saved page: its metadata, and its readable text when it is an HTML page. */
export interface PageExtract extends PageMetadata {
  /** An HTML page, or any other file (PDF, image, video, audio…), which gets no text. */
  kind: 'html' | 'file';
  /** Sanitised reader HTML of the main text, at most MAX_HTML_CHARS; null when none was found. */
  html: string | null;
  /** The plain text of `html`, whitespace folded to single spaces: for search and the word count. */
  text: string | null;
  wordCount: number;
  readingMinutes: number;
  /** The media type the body was read as ("text/html", "application/pdf"), null when unknown. */
  mediaType: string | null;
  /** The size of the body as received. */
  byteLength: number;
  /**
   * Why nothing was read: the page went past a limit of articles/limits.ts (its nesting or element count,
   * or the time or memory its extraction took), in plain words; the page is then failed. Null otherwise.
   */
  refused: string | null;
}

export interface ExtractInput {
  /** The body as received (after content decoding: gzip and such are the fetcher's). */
  body: Uint8Array;
  /** The Content-Type header, if any. */
  contentType: string | null;
  /** The final URL, after redirects. */
  url: string;
}

/** A result with nothing read: the start of every extract, and what a failure returns. */
export function emptyExtract(
  kind: PageExtract['kind'],
  mediaType: string | null,
  byteLength: number,
): PageExtract {
  return {
    kind,
    title: null,
    description: null,
    siteName: null,
    author: null,
    publishedAt: null,
    language: null,
    direction: null,
    canonicalUrl: null,
    image: null,
    html: null,
    text: null,
    wordCount: 0,
    readingMinutes: 0,
    mediaType,
    byteLength,
    refused: null,
  };
}
