import { type FetchOptions, type FetchResult, fetchUrl } from '../fetch/fetch.js';

/** Feed formats first, then generic XML (many feeds are served as it), then anything: some are text/html. */
export const FEED_ACCEPT =
  'application/rss+xml, application/atom+xml, application/feed+json, ' +
  'application/xml;q=0.9, text/xml;q=0.9, */*;q=0.8';

/** The User-Agent of feed fetches, unless the configuration gives another. */
export const FEED_USER_AGENT = 'Tidings/0.1 (+https://github.com/tidings/tidings; feed fetcher)';

/**
 * Fetches a feed with the guarded client, asking for feed formats and naming the feed in its messages. A
 * result of kind `gone` (410) means the feed was removed for good: refreshing records it and stops polling.
 */
export function fetchFeed(url: string, options: FetchOptions): Promise<FetchResult> {
  return fetchUrl(url, {
    ...options,
    accept: FEED_ACCEPT,
    noun: 'feed',
    userAgent: options.userAgent ?? FEED_USER_AGENT,
  });
}
