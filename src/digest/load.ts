import type { Kysely } from 'kysely';
import { type Account, accountById, accountsByIds } from '../store/accounts.js';
import {
  type DigestItem,
  digestItemsRange,
  firstDigestItems,
  shownItemsOfDigests,
} from '../store/digestItems.js';
import { type Digest, digestById, digestsPage } from '../store/digests.js';
import { pageCardsByIds } from '../store/pageReads.js';
import { offeredOfDigests } from '../store/readingListOffers.js';
import type { Database } from '../store/schema.js';
import { DIGEST_PAGE_ITEMS } from './limits.js';
import { digestTokenOf, digestTokensOf } from './token.js';
import { type DigestTally, type DigestView, digestView } from './view.js';

/**
 * Reading digests for display (email, web page, Atom feed, `digest show`): the rows a rendering needs, read
 * only, each item with the page read for it (store/pageReads.ts). The links carry the account's digest
 * token, made when the account was created or a digest built. Only the items a rendering shows are read
 * (see limits.ts); what the whole digest holds was counted when it was built.
 */

/** A stored digest with its account and its view, ready for a renderer. */
export interface LoadedDigest {
  digest: Digest;
  account: Account;
  view: DigestView;
}

/** The part of a digest to read: a page of its web page (1-based), or its first items (email, `digest show`). */
export type DigestPart = { page: number } | { first: number };

/** Reads one of the account's digests and what its rendering needs; null when it has no such digest. */
export async function loadDigest(
  db: Kysely<Database>,
  accountId: number,
  digestId: number,
  baseUrl: string,
  part: DigestPart,
): Promise<LoadedDigest | null> {
  const digest = await digestById(db, accountId, digestId);
  const account = digest === null ? null : await accountById(db, accountId);
  if (digest === null || account === null) return null;
  const range =
    'page' in part
      ? { from: (part.page - 1) * DIGEST_PAGE_ITEMS, count: DIGEST_PAGE_ITEMS }
      : { from: 0, count: part.first };
  const items = await digestItemsRange(db, accountId, digest.id, range);
  const token = await digestTokenOf(db, accountId);
  // "From your reading list" closes the first page (a later page of a long digest is its feeds' rest).
  const resurfaced =
    range.from === 0 ? ((await offeredOfDigests(db, [accountId], [digest.id])).get(digest.id) ?? []) : [];
  const pages = await pageCardsByIds(
    db,
    [...items, ...resurfaced].map((i) => i.page_id),
  );
  const tally = tallyOfDigest(digest);
  const offset = range.from;
  const view = digestView({ account, digest, items, baseUrl, token, pages, tally, offset, resurfaced });
  return { digest, account, view };
}

/**
 * loadDigest for a batch of claimed digests (a worker's emails): each with what its email shows (the
 * entries and their other sources, and each feed's count of the rest; a digest built before migration 0025,
 * its first `first` items), in a handful of statements for the whole batch. A digest whose account is
 * gone is absent.
 */
export async function loadClaimedDigests(
  db: Kysely<Database>,
  digests: readonly Digest[],
  baseUrl: string,
  first: number,
): Promise<Map<number, LoadedDigest>> {
  const accountIds = [...new Set(digests.map((d) => d.account_id))];
  const accounts = new Map((await accountsByIds(db, accountIds)).map((a) => [a.id, a]));
  const present = digests.filter((d) => accounts.has(d.account_id));
  const shown = await shownItemsOfDigests(
    db,
    accountIds,
    present.map((d) => d.id),
    first,
  );
  const tokens = await digestTokensOf(db, accountIds);
  const offered = await offeredOfDigests(
    db,
    accountIds,
    present.map((d) => d.id),
  );
  const pages = await pageCardsByIds(db, [
    ...[...shown.values()].flatMap(({ items }) => items.map((i) => i.page_id)),
    ...[...offered.values()].flatMap((list) => list.map((i) => i.page_id)),
  ]);
  const loaded = new Map<number, LoadedDigest>();
  for (const digest of present) {
    const account = accounts.get(digest.account_id);
    if (account === undefined) continue;
    const { items, collapsed } = shown.get(digest.id) ?? { items: [], collapsed: [] };
    const view = digestView({
      account,
      digest,
      items,
      collapsed,
      baseUrl,
      token: tokens.get(digest.account_id) ?? null,
      pages,
      tally: tallyOfDigest(digest),
      offset: 0,
      resurfaced: offered.get(digest.id) ?? [],
    });
    loaded.set(digest.id, { digest, account, view });
  }
  return loaded;
}

/**
 * The account's latest digests (at most `limit`, newest first), each with its view of its first
 * `itemsEach` items; null without the account.
 */
export async function loadLatestDigests(
  db: Kysely<Database>,
  accountId: number,
  limit: number,
  itemsEach: number,
  baseUrl: string,
): Promise<{ account: Account; token: string | null; digests: LoadedDigest[] } | null> {
  const account = await accountById(db, accountId);
  if (account === null) return null;
  const token = await digestTokenOf(db, accountId);
  const digests = await digestsPage(db, accountId, { offset: 0, limit });
  const ids = digests.map((d) => d.id);
  const items = await firstDigestItems(db, accountId, ids, itemsEach);
  const offered = await offeredOfDigests(db, [accountId], ids);
  const pages = await pageCardsByIds(db, [
    ...[...items.values()].flatMap((list) => list.map((i) => i.page_id)),
    ...[...offered.values()].flatMap((list) => list.map((i) => i.page_id)),
  ]);
  const view = (digest: Digest, rows: readonly DigestItem[]): DigestView =>
    digestView({
      account,
      digest,
      items: rows,
      baseUrl,
      token,
      pages,
      tally: tallyOfDigest(digest),
      resurfaced: offered.get(digest.id) ?? [],
    });
  return {
    account,
    token,
    digests: digests.map((digest) => ({ digest, account, view: view(digest, items.get(digest.id) ?? []) })),
  };
}

const tallyOfDigest = (d: Digest): DigestTally => ({
  items: d.item_count,
  saved: d.saved_count,
  feeds: d.feed_count,
});
