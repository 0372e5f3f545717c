import { type FetchOptions, type FetchResult, fetchUrl } from '../fetch/fetch.js';

/** HTML first, then anything: a saved link may be a PDF or an image, which is described as a file. */
export const PAGE_ACCEPT = 'text/html, application/xhtml+xml;q=0.9, */*;q=0.8';

/** The User-Agent of page reads, unless the configuration gives another. */
export const PAGE_USER_AGENT = 'Tidings/0.1 (+https://github.com/tidings/tidings; page reader)';

/** 5 MiB: a page larger than this is read up to here (its article is nearly always near the top). */
export const DEFAULT_PAGE_MAX_BYTES = 5 * 1024 * 1024;

/**
 * Fetches a saved page with the guarded client (the same private-network policy, timeouts and redirects
 * as feeds). A body over the limit is cut there, not refused: the result says `truncated`.
 */
export function fetchPage(url: string, options: FetchOptions): Promise<FetchResult> {
  return fetchUrl(url, {
    ...options,
    accept: PAGE_ACCEPT,
    noun: 'page',
    maxBytes: options.maxBytes ?? DEFAULT_PAGE_MAX_BYTES,
    truncate: true,
    userAgent: options.userAgent ?? PAGE_USER_AGENT,
  });
}
