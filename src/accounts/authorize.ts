import { TidingsError } from '../errors.js';
import type { AccountId } from '../lib/authorized.js';
import type { Store } from '../store/db.js';
import { accountById } from '../store/accounts.js';

export type { AccountId } from '../lib/authorized.js';

/**
 * The one place where a number becomes an AccountId. Only the authentications in src/accounts/ call it
 * (an API key that matched, a web session that is valid, an account the operator named and that exists);
 * `npm run check:imports` fails on an import of it from anywhere else, or a cast to AccountId outside
 * this file.
 */
export const grantAccount = (id: number): AccountId => id as AccountId;

/**
 * The account an operator names on the command line (the CLI is trusted: whoever runs it owns the
 * database). Throws not_found when there is no such account.
 */
export async function operatorAccount(store: Store, id: number): Promise<AccountId> {
  if ((await accountById(store.db, id)) === null) throw new TidingsError('not_found', `no account ${id}`);
  return grantAccount(id);
}
