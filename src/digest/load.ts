import type { Kysely } from 'kysely';
import { ensureDigestToken } from './token.js';
import { type Account, accountById } from '../store/accounts.js';
import { digestItemsByDigest } from '../store/digestItems.js';
import { type Digest, digestById } from '../store/digests.js';
import type { Database } from '../store/schema.js';
import { type DigestView, digestView } from './view.js';

/** A stored digest with its account and its view, ready for a renderer. */
export interface LoadedDigest {
  digest: Digest;
  account: Account;
  view: DigestView;
}

/** Reads a digest and everything its rendering needs; null when there is no such digest. */
export async function loadDigest(
  db: Kysely<Database>,
  digestId: number,
  baseUrl: string,
): Promise<LoadedDigest | null> {
  const digest = await digestById(db, digestId);
  if (digest === null) return null;
  const account = await accountById(db, digest.account_id);
  if (account === null) return null;
  const items = await digestItemsByDigest(db, digestId);
  // The web link carries the account's digest token ("Read on the web" in the email).
  const token = await ensureDigestToken(db, account.id);
  const view = digestView({ account, digest, items, baseUrl, token });
  return { digest, account, view };
}
