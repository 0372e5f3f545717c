import { hash, randomBytes } from 'node:crypto';
import { leadImage, readingTime } from '../lib/display.js';
import { domainOf } from '../lib/url.js';
import { accountById } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { type Digest, digestCount, digestsPage } from '../store/digests.js';
import {
  accountIdByOpdsTokenHash,
  deleteOpdsToken,
  opdsTokenCreatedAt,
  replaceOpdsToken,
} from '../store/opdsTokens.js';
import { pageCardsByIds } from '../store/pageReads.js';
import { readingListPage } from '../store/readingList.js';
import { type AccountId, grantAccount } from './authorize.js';

/*
 * The OPDS catalogue of an account (docs/apps.md#opds-catalogue): what it lists (its digests, newest
 * first; its unread reading-list entries, newest saved first) and its private link. The link's token is
 * 256 random bits as 43 characters of base64url, shown once when made and stored only as its SHA-256
 * (migration 0060): `tidings account opds-url` and Settings → "E-reader catalogue" make a new one, which
 * replaces (and so revokes) the one before. Signing in with the account's password works without it.
 */

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const hashToken = (token: string): string => hash('sha256', token, 'hex');

/** The catalogue's address with a token. */
export function opdsUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/opds?token=${encodeURIComponent(token)}`;
}

/**
 * Makes the account a new private catalogue link, replacing the one it had (which stops working), and
 * returns it: shown this once. Null when the account no longer exists.
 */
export async function newOpdsLink(
  store: Store,
  accountId: AccountId,
  baseUrl: string,
  now: Date = new Date(),
): Promise<string | null> {
  const token = randomBytes(32).toString('base64url');
  const made = await replaceOpdsToken(store.db, accountId, hashToken(token), now.toISOString());
  return made ? opdsUrl(baseUrl, token) : null;
}

/** Ends the account's private catalogue link; false when it had none. */
export function revokeOpdsLink(store: Store, accountId: AccountId): Promise<boolean> {
  return deleteOpdsToken(store.db, accountId);
}

/** When the account's private link was made; null when it has none. */
export function opdsLinkMadeAt(store: Store, accountId: AccountId): Promise<string | null> {
  return opdsTokenCreatedAt(store.db, accountId);
}

/**
 * The account a presented catalogue token opens; null for anything else (malformed, unknown, replaced,
 * revoked, or of a disabled account). Found by its hash: the index compares hashes, never the secret.
 */
export async function opdsReader(store: Store, presented: string): Promise<AccountId | null> {
  if (!TOKEN_PATTERN.test(presented)) return null;
  const accountId = await accountIdByOpdsTokenHash(store.db, hashToken(presented));
  return accountId === null ? null : grantAccount(accountId);
}

/** A page of a catalogue's list: its entries and how many there are in all. */
export interface OpdsPage<T> {
  total: number;
  entries: T[];
}

/** The account's digests, newest first. */
export async function opdsDigests(
  store: Store,
  accountId: AccountId,
  page: { offset: number; limit: number },
): Promise<OpdsPage<Digest>> {
  const total = await digestCount(store.db, accountId);
  return { total, entries: await digestsPage(store.db, accountId, page) };
}

/** An unread reading-list entry as the catalogue lists it. */
export interface OpdsReadingEntry {
  id: number;
  url: string;
  title: string;
  /** The page's site name, else the link's domain. */
  site: string;
  savedAt: string;
  tags: string[];
  /** The page's description, when read. */
  summary: string | null;
  readingTime: string | null;
  /** The page's lead image (absolute http(s)), unless the account chose to see no images. */
  cover: string | null;
}

/** The account's unread reading-list entries, newest saved first. */
export async function opdsReadingList(
  store: Store,
  accountId: AccountId,
  page: { offset: number; limit: number },
): Promise<OpdsPage<OpdsReadingEntry>> {
  const { items, total } = await readingListPage(store.db, accountId, { state: 'unread' }, page);
  const cards = await pageCardsByIds(
    store.db,
    items.map((i) => i.page_id),
  );
  const showImages = (await accountById(store.db, accountId))?.show_images !== false;
  return {
    total,
    entries: items.map((item) => {
      const card = item.page_id === null ? undefined : cards.get(item.page_id);
      return {
        id: item.id,
        url: item.url,
        title: item.title.trim() || card?.title?.trim() || item.url,
        site: card?.site_name?.trim() || domainOf(item.url),
        savedAt: item.saved_at,
        tags: item.tags.split('\n').filter((t) => t !== ''),
        summary: card?.description ?? null,
        readingTime: readingTime(card),
        cover: leadImage(card, null, showImages)?.url ?? null,
      };
    }),
  };
}
