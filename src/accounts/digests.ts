import { type DigestEpub, type EpubOptions, digestEpub } from '../digest/epub/load.js';
import type { EpubImageSource } from '../digest/epub/images.js';
import { ATOM_ENTRY_ITEMS, EMAIL_ITEMS } from '../digest/limits.js';
import { type LoadedDigest, loadClaimedDigests, loadDigest, loadLatestDigests } from '../digest/load.js';
import { digestTokenOf } from '../digest/token.js';
import { localDateOf } from '../digest/schedule.js';
import { digestLinks } from '../digest/view.js';
import { zoneOrUtc } from '../digest/zone.js';
import type { Account } from '../store/accounts.js';
import { accountById } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import {
  type Digest,
  accountIdOfDigest,
  digestByDate,
  digestById,
  digestCount,
  digestsPage,
  neighbourDigestIds,
} from '../store/digests.js';
import type { AccountId } from './authorize.js';

/**
 * An account's digests as its reader (the web, a digest link) and the operator (the CLI) see them, read
 * only: the archive, one digest for display, the Atom feed's digests.
 */

export type { LoadedDigest } from '../digest/load.js';

/** A digest of the archive, with the address of its web page. */
export interface ArchivedDigest {
  digest: Digest;
  /** `/digests/ID?token=…`, the page its email links to. */
  webUrl: string;
}

/** A page of the account's digests, newest first, and how many it has; null when it no longer exists. */
export async function digestArchive(
  store: Store,
  accountId: AccountId,
  page: { offset: number; limit: number; baseUrl: string },
): Promise<{ account: Account; total: number; digests: ArchivedDigest[] } | null> {
  const account = await accountById(store.db, accountId);
  const token = await digestTokenOf(store.db, accountId);
  if (account === null || token === null) return null;
  const total = await digestCount(store.db, accountId);
  const digests = await digestsPage(store.db, accountId, page);
  return { account, total, digests: digests.map((d) => archived(d, page.baseUrl, token)) };
}

const archived = (digest: Digest, baseUrl: string, token: string): ArchivedDigest => ({
  digest,
  webUrl: digestLinks(baseUrl, digest.id, token).web,
});

/** The account's latest digests, newest first (`digest list`). */
export async function digestHistory(store: Store, accountId: AccountId, limit: number): Promise<Digest[]> {
  return digestsPage(store.db, accountId, { offset: 0, limit });
}

/** One of the account's digests with the address of its web page; null when it has no such digest. */
export async function archivedDigest(
  store: Store,
  accountId: AccountId,
  digestId: number,
  baseUrl: string,
): Promise<ArchivedDigest | null> {
  return withWebUrl(store, accountId, await digestById(store.db, accountId, digestId), baseUrl);
}

/** A digest of the account (or none) with the address of its web page. */
async function withWebUrl(
  store: Store,
  accountId: AccountId,
  digest: Digest | null,
  baseUrl: string,
): Promise<ArchivedDigest | null> {
  const token = digest === null ? null : await digestTokenOf(store.db, accountId);
  return digest === null || token === null ? null : archived(digest, baseUrl, token);
}

/** The account's digest of its local day at `now` (in its zone), if that day has one. */
export async function todaysDigest(
  store: Store,
  accountId: AccountId,
  now: Date,
  baseUrl: string,
): Promise<ArchivedDigest | null> {
  const account = await accountById(store.db, accountId);
  if (account === null) return null;
  const digest = await digestByDate(store.db, accountId, localDateOf(now, zoneOrUtc(account.timezone)));
  return withWebUrl(store, accountId, digest, baseUrl);
}

/**
 * A page (1-based) of one of the account's digests, ready to render; null when it has no such digest.
 * A page past the last is loaded empty: `view.page.count` says how many there are.
 */
export async function digestToRead(
  store: Store,
  accountId: AccountId,
  digestId: number,
  page: number,
  baseUrl: string,
  now: Date,
): Promise<LoadedDigest | null> {
  // Its feeds' mutes as they are now: opened from its email, a muted feed's group offers Unmute.
  const loaded = await loadDigest(store.db, accountId, digestId, baseUrl, { page }, { now });
  if (loaded === null) return null;
  // Its web page leads on to the digests built before and after it, by the same token.
  const { previous, next } = await neighbourDigestIds(store.db, accountId, loaded.digest);
  const token = await digestTokenOf(store.db, accountId);
  const web = (id: number | null) => (id === null ? null : digestLinks(baseUrl, id, token).web);
  const links = { ...loaded.view.links, previousDigest: web(previous), nextDigest: web(next) };
  return { ...loaded, view: { ...loaded.view, links } };
}

/**
 * Any account's digest as its email shows it (the email's view: its entries, each feed's "+N more from"
 * line; the caller cuts it to the email's size), named by its id alone (the operator's `digest show`);
 * null when there is none.
 */
export async function anyDigestToRead(
  store: Store,
  digestId: number,
  baseUrl: string,
): Promise<LoadedDigest | null> {
  const accountId = await accountIdOfDigest(store.db, digestId);
  const digest = accountId === null ? null : await digestById(store.db, accountId, digestId);
  if (digest === null) return null;
  return (await loadClaimedDigests(store.db, [digest], baseUrl, EMAIL_ITEMS)).get(digestId) ?? null;
}

/**
 * The account's latest `limit` digests for its Atom feed, each with its email's view (a digest built before
 * migration 0025: its first ATOM_ENTRY_ITEMS items); null when it no longer exists.
 */
export async function digestFeed(
  store: Store,
  accountId: AccountId,
  limit: number,
  baseUrl: string,
): Promise<{ account: Account; digests: LoadedDigest[] } | null> {
  return loadLatestDigests(store.db, accountId, limit, ATOM_ENTRY_ITEMS, baseUrl);
}

/**
 * One of the account's digests as an EPUB (the digest link's download); null when it has no such digest.
 * A request takes its turn among the process's builds or is refused as busy (digest/epub/builds.ts).
 */
export function digestAsEpub(
  store: Store,
  accountId: AccountId,
  digestId: number,
  baseUrl: string,
  options: EpubOptions = {},
): Promise<DigestEpub | null> {
  return digestEpub(store.db, accountId, digestId, baseUrl, { queue: 'bounded', ...options });
}

/**
 * Any account's digest as an EPUB, named by its id alone (the operator's `digest epub`); null when none.
 * It waits for its turn however long: the operator asked for this one file.
 */
export async function anyDigestAsEpub(
  store: Store,
  digestId: number,
  baseUrl: string,
  images?: EpubImageSource,
): Promise<DigestEpub | null> {
  const accountId = await accountIdOfDigest(store.db, digestId);
  return accountId === null
    ? null
    : digestEpub(store.db, accountId, digestId, baseUrl, { queue: 'unbounded', images });
}
