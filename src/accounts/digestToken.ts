import { accountIdByDigestToken, digestFeedUrl, digestTokenOf, rotateDigestToken } from '../digest/token.js';
import type { Store } from '../store/db.js';
import { type AccountId, grantAccount } from './authorize.js';

/**
 * The account's digest token (see src/digest/token.ts): the private part of the URLs of its digest pages
 * and of the Atom feed of its digests. A read-only capability: a token that matches authorises reading
 * that account's digests, nothing else.
 */

/**
 * The account a presented digest token opens; null for anything else (malformed, unknown, replaced, or
 * of a disabled account: store/accounts.ts accountMayAct).
 */
export async function digestReader(store: Store, presented: string): Promise<AccountId | null> {
  const accountId = await accountIdByDigestToken(store.db, presented);
  return accountId === null ? null : grantAccount(accountId);
}

/** The private URL of the Atom feed of the account's digests; null when the account no longer exists. */
export async function digestFeedAddress(
  store: Store,
  accountId: AccountId,
  baseUrl: string,
): Promise<string | null> {
  const token = await digestTokenOf(store.db, accountId);
  return token === null ? null : digestFeedUrl(baseUrl, token);
}

/**
 * Gives the account a new token and returns the feed's new URL: the old URL and the "Read on the web"
 * links of emails already sent stop working. Null when the account no longer exists.
 */
export async function rotateDigestFeed(
  store: Store,
  accountId: AccountId,
  baseUrl: string,
): Promise<string | null> {
  const token = await rotateDigestToken(store.db, accountId);
  return token === null ? null : digestFeedUrl(baseUrl, token);
}
