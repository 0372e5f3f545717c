import type { AccountId } from '../lib/authorized.js';
import type { Store } from '../store/db.js';
import type { Slot } from '../digest/schedule.js';
import { upcomingDigest } from '../digest/upcoming.js';
import { type Account, accountById, renameAccount } from '../store/accounts.js';
import { checkAccountName } from './service.js';

export type { Account } from '../store/accounts.js';

/** The account as it is now (its settings, its digest schedule); null when it no longer exists. */
export function accountOf(store: Store, accountId: AccountId): Promise<Account | null> {
  return accountById(store.db, accountId);
}

/** When the account's next digest will be built (the worker's rule, days already built passed over). */
export function nextDigestOf(store: Store, account: Account): Promise<Slot | null> {
  return upcomingDigest(store.db, account);
}

/** Renames the account (1 to 200 characters); the account as it now is, null when it no longer exists. */
export function renameOwnAccount(store: Store, accountId: AccountId, name: string): Promise<Account | null> {
  return renameAccount(store.db, accountId, checkAccountName(name));
}
