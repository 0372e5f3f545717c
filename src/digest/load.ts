import type { Kysely } from 'kysely';
import { type Account, accountById } from '../store/accounts.js';
import { digestItemsByDigest, digestItemsByDigests } from '../store/digestItems.js';
import { type Digest, digestById, digestsPage } from '../store/digests.js';
import { pageCardsByIds } from '../store/pageReads.js';
import type { Database } from '../store/schema.js';
import { digestTokenOf } from './token.js';
import { type DigestView, digestView } from './view.js';

/**
 * Reading digests for display (email, web page, Atom feed, `digest show`): the rows a rendering needs, read
 * only, each item with the page read for it (store/pageReads.ts). The links carry the account's digest
 * token, made when the account was created or a digest built.
 */

/** A stored digest with its account and its view, ready for a renderer. */
export interface LoadedDigest {
  digest: Digest;
  account: Account;
  view: DigestView;
}

/** Reads one of the account's digests and everything its rendering needs; null when it has no such digest. */
export async function loadDigest(
  db: Kysely<Database>,
  accountId: number,
  digestId: number,
  baseUrl: string,
): Promise<LoadedDigest | null> {
  const digest = await digestById(db, accountId, digestId);
  const account = digest === null ? null : await accountById(db, accountId);
  if (digest === null || account === null) return null;
  const items = await digestItemsByDigest(db, digest.id);
  const token = await digestTokenOf(db, accountId);
  const pages = await pageCardsByIds(
    db,
    items.map((i) => i.page_id),
  );
  return { digest, account, view: digestView({ account, digest, items, baseUrl, token, pages }) };
}

/** The account's latest digests (at most `limit`, newest first), each with its view; null without the account. */
export async function loadLatestDigests(
  db: Kysely<Database>,
  accountId: number,
  limit: number,
  baseUrl: string,
): Promise<{ account: Account; token: string | null; digests: LoadedDigest[] } | null> {
  const account = await accountById(db, accountId);
  if (account === null) return null;
  const token = await digestTokenOf(db, accountId);
  const digests = await digestsPage(db, accountId, { offset: 0, limit });
  const items = await digestItemsByDigests(
    db,
    digests.map((d) => d.id),
  );
  const pages = await pageCardsByIds(
    db,
    [...items.values()].flatMap((list) => list.map((i) => i.page_id)),
  );
  return {
    account,
    token,
    digests: digests.map((digest) => ({
      digest,
      account,
      view: digestView({ account, digest, items: items.get(digest.id) ?? [], baseUrl, token, pages }),
    })),
  };
}
