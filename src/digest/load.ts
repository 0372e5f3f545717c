import type { Kysely } from 'kysely';
import { mutedAt } from '../lib/digestShare.js';
import { type Account, accountById, accountsByIds } from '../store/accounts.js';
import { digestItemsRange, shownItemsOfDigests } from '../store/digestItems.js';
import { type Digest, digestById, digestsPage } from '../store/digests.js';
import { pageCardsByIds } from '../store/pageReads.js';
import { offeredOfDigests } from '../store/readingListOffers.js';
import type { Database } from '../store/schema.js';
import { mutesOfAccounts } from '../store/subscriptionMutes.js';
import { DIGEST_PAGE_ITEMS, EMAIL_ROWS } from './limits.js';
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

/** The part of a digest to read: a page of its web page (1-based), or its first items. */
export type DigestPart = { page: number } | { first: number };

/** How a view is read: `now` reads the account's mutes as they are then (a muted feed offers Unmute). */
export interface LoadOptions {
  now?: Date;
}

/**
 * Reads one of the account's digests and what its rendering needs (its web page: every item, shown or
 * only counted by the email); null when it has no such digest.
 */
export async function loadDigest(
  db: Kysely<Database>,
  accountId: number,
  digestId: number,
  baseUrl: string,
  part: DigestPart,
  options: LoadOptions = {},
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
  const mutes = (await mutesAt(db, [accountId], options.now)).get(accountId);
  const view = digestView({
    account,
    digest,
    items,
    baseUrl,
    token,
    pages,
    tally,
    offset,
    resurfaced,
    ...(mutes === undefined ? {} : { mutes }),
  });
  return { digest, account, view };
}

/**
 * The email's view of a batch of digests (a worker's emails; the Atom feed's entries, `digest show`, the
 * EPUB: every rendering but the web page): each with what its email shows (the entries and their other
 * sources, and each feed's count of the rest; a digest built before migration 0025, its first `first`
 * items), in a handful of statements for the whole batch. At most EMAIL_ROWS shown items of a digest are
 * read: its entries past them are counted in `view.cut`, as the ones a size cut leaves out (render/fit.ts).
 * A digest whose account is gone is absent.
 */
export async function loadClaimedDigests(
  db: Kysely<Database>,
  digests: readonly Digest[],
  baseUrl: string,
  first: number,
  options: LoadOptions = {},
): Promise<Map<number, LoadedDigest>> {
  const accountIds = [...new Set(digests.map((d) => d.account_id))];
  const accounts = new Map((await accountsByIds(db, accountIds)).map((a) => [a.id, a]));
  const present = digests.filter((d) => accounts.has(d.account_id));
  const shown = await shownItemsOfDigests(
    db,
    accountIds,
    present.map((d) => d.id),
    first,
    EMAIL_ROWS,
  );
  const mutes = await mutesAt(db, accountIds, options.now);
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
    const muted = mutes.get(digest.account_id);
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
      ...(muted === undefined ? {} : { mutes: muted }),
    });
    // Entries past the rows read: left out, as a size cut leaves them (the web page lists them).
    const entries = view.groups.reduce((n, g) => n + g.items.length, 0);
    const unread = digest.shown_count === null ? 0 : Math.max(0, digest.shown_count - entries);
    loaded.set(digest.id, { digest, account, view: { ...view, cut: view.cut + unread } });
  }
  return loaded;
}

/** The accounts' feeds muted at `now` (feed id → until), by account; none without a clock. */
async function mutesAt(
  db: Kysely<Database>,
  accountIds: readonly number[],
  now: Date | undefined,
): Promise<Map<number, Map<number, string>>> {
  if (now === undefined) return new Map();
  const all = await mutesOfAccounts(db, accountIds);
  return new Map(
    [...all].map(([id, feeds]) => [id, new Map([...feeds].filter(([, until]) => mutedAt(until, now)))]),
  );
}

/**
 * The account's latest digests (at most `limit`, newest first), each with its email's view (a digest
 * built before migration 0025: its first `itemsEach` items); null without the account.
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
  const loaded = await loadClaimedDigests(db, digests, baseUrl, itemsEach);
  return {
    account,
    token,
    digests: digests.flatMap((d) => {
      const one = loaded.get(d.id);
      return one === undefined ? [] : [one];
    }),
  };
}

const tallyOfDigest = (d: Digest): DigestTally => ({
  items: d.item_count,
  saved: d.saved_count,
  feeds: d.feed_count,
});
