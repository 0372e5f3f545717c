import { TidingsError } from '../errors.js';
import type { Store } from '../store/db.js';
import {
  accountById,
  accountCount,
  deleteAccount,
  lockAccount,
  lockEnabledAdmins,
} from '../store/accounts.js';
import { deleteOrphanFeeds } from '../store/feeds.js';
import { transaction } from '../store/precompiled.js';
import type { AccountId } from './authorize.js';

/**
 * Deletes an account with everything in it: its keys and sessions, its queue, subscriptions, digests and
 * their items, its digest token and the invitations it made (each table's ON DELETE CASCADE), then the
 * feeds nobody follows any more. Pages read for its links are forgotten by the page reader's walk of the
 * pages, a window a pass (`deleteUnusedPages`), as for any link that leaves a queue.
 *
 * The last enabled administrator cannot be deleted while other accounts exist (someone must be able to
 * manage them): another account is made an administrator first. Throws not_found for no such account.
 */
export async function removeAccount(store: Store, accountId: number): Promise<void> {
  await transaction(store.db, async (trx) => {
    const admins = await lockEnabledAdmins(trx, store.engine);
    // The row lock every queue writer and digest build takes: none is half-way through this account.
    const account = await lockAccount(trx, store.engine, accountId);
    if (account === null) throw new TidingsError('not_found', `no account ${accountId}`);
    const lastAdmin = admins.length === 1 && admins[0] === accountId;
    if (lastAdmin && (await accountCount(trx)) > 1) {
      throw new TidingsError(
        'invalid_input',
        'this is the last administrator, and other accounts remain: make another account an administrator first',
        { facts: { reason: 'last_admin' } },
      );
    }
    await deleteAccount(trx, accountId);
    await deleteOrphanFeeds(trx);
  });
}

/**
 * A person deletes their own account, confirming by typing its name exactly (surrounding spaces aside).
 * invalid_input when the name does not match or the account is the last administrator.
 */
export async function deleteOwnAccount(
  store: Store,
  accountId: AccountId,
  confirmation: string,
): Promise<void> {
  const account = await accountById(store.db, accountId);
  if (account === null) throw new TidingsError('account_gone', 'this account no longer exists');
  if (confirmation.trim() !== account.name) {
    throw new TidingsError('invalid_input', 'type the name of your account exactly as shown to confirm', {
      facts: { reason: 'confirm_name' },
    });
  }
  await removeAccount(store, accountId);
}
