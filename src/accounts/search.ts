import { digestTokenOf } from '../digest/token.js';
import { digestLinks } from '../digest/view.js';
import { TidingsError } from '../errors.js';
import { shownTitle, siteName } from '../lib/display.js';
import { type Segment, highlight, snippet } from '../lib/highlight.js';
import { parseSearchQuery } from '../lib/searchQuery.js';
import { foldWhitespace } from '../lib/text.js';
import { domainOf } from '../lib/url.js';
import type { Store } from '../store/db.js';
import type { SearchKind, Timestamp } from '../store/schema.js';
import { type SearchRow, indexNewItems, searchItems } from '../store/searchDocuments.js';
import type { AccountId } from './authorize.js';

/**
 * Search over an account's queue and every digest it was sent (issue 13), for the web's /search page and
 * `tidings search`. The query's syntax is lib/searchQuery.ts; the marks are lib/highlight.ts's.
 */

export type { Segment } from '../lib/highlight.js';

/** Hits per page on the web, and by default. */
export const SEARCH_PAGE_SIZE = 20;
/** Most hits one page may ask for. */
export const SEARCH_MAX_LIMIT = 100;
/** How far into the results a page may start. */
export const SEARCH_MAX_OFFSET = 10_000;

export interface SearchHit {
  /** `queue`: waiting in the queue; `digest`: in a digest already built; `reading`: the reading list. */
  kind: SearchKind;
  /** queue_items.id, digest_items.id or reading_list.id. */
  itemId: number;
  digestId: number | null;
  /** The digest's day, YYYY-MM-DD; null for a queued item. */
  digestDate: string | null;
  /** The digest's web page (with its token), when a base URL was given; null otherwise and when queued. */
  digestUrl: string | null;
  /** When it was queued, or its digest built. */
  at: Timestamp;
  url: string;
  /** The title shown (lib/display.ts shownTitle), its matches marked. */
  title: Segment[];
  /** The page's site name, else the feed's name, else the link's host. */
  site: string;
  /** A passage of the summary, description or page text around the first match. */
  snippet: Segment[];
}

export interface SearchResults {
  /** Hits in all, of this account only. */
  total: number;
  /**
   * More than RANKED_HITS (10,000) matched: `total` is that many plus one, and hits come newest first
   * rather than ranked (store/searchDocuments.ts).
   */
  capped: boolean;
  offset: number;
  limit: number;
  hits: SearchHit[];
}

/**
 * One page of the account's hits for `text`, best first. A query that cannot be read (too long, nothing to
 * look for) and a page out of bounds are TidingsError `invalid_input`.
 */
export async function searchAccount(
  store: Store,
  accountId: AccountId,
  text: string,
  page: { offset?: number; limit?: number; baseUrl?: string } = {},
): Promise<SearchResults> {
  const offset = page.offset ?? 0;
  const limit = page.limit ?? SEARCH_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_MAX_LIMIT) {
    throw new TidingsError('invalid_input', `A page of results holds 1 to ${SEARCH_MAX_LIMIT} hits.`);
  }
  if (!Number.isInteger(offset) || offset < 0 || offset > SEARCH_MAX_OFFSET) {
    throw new TidingsError(
      'invalid_input',
      `Results can be paged up to hit ${SEARCH_MAX_OFFSET.toLocaleString('en')}.`,
    );
  }
  const query = parseSearchQuery(text);
  await indexNewItems(store.db, store.engine, accountId);
  const { total, capped, rows } = await searchItems(store.db, store.engine, accountId, query, {
    offset,
    limit,
  });
  const token =
    page.baseUrl !== undefined && rows.some((r) => r.kind === 'digest')
      ? await digestTokenOf(store.db, accountId)
      : null;
  const digestUrl = (r: SearchRow): string | null =>
    r.digest_id === null || page.baseUrl === undefined || token === null
      ? null
      : digestLinks(page.baseUrl, r.digest_id, token).web;
  const hits = rows.map((r): SearchHit => ({
    kind: r.kind,
    itemId: r.item_id,
    digestId: r.digest_id,
    digestDate: r.digest_date,
    digestUrl: digestUrl(r),
    at: r.created_at,
    url: r.url,
    title: highlight(shownTitle(r.title, r.url, { title: r.page_title }), query),
    site: siteName({ site_name: r.site_name }) ?? (foldWhitespace(r.feed_title ?? '') || domainOf(r.url)),
    snippet: snippet([r.summary, r.page_description, r.page_text], query),
  }));
  return { total, capped, offset, limit, hits };
}
