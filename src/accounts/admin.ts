import { nextSlotAfter, scheduleOf } from '../digest/schedule.js';
import { TidingsError } from '../errors.js';
import type { Store } from '../store/db.js';
import {
  type Account,
  accountById,
  allAccounts,
  lockEnabledAdmins,
  setAccountAdmin,
  setAccountDisabled,
} from '../store/accounts.js';
import { transaction } from '../store/precompiled.js';
import { queueLengths } from '../store/queueItems.js';
import { deleteAccountWebSessions } from '../store/webSessions.js';
import type { AccountId } from './authorize.js';

/**
 * What an administrator (on the web's Accounts page) or the operator (the CLI) does to other accounts:
 * disable and enable them, make them administrators or not. The rules live here once:
 *
 * - nobody disables or demotes their own account on the web (`by`: the administrator acting);
 * - there is always an administrator who can act: the last enabled administrator is neither disabled nor
 *   demoted (by the CLI either: the operator makes another administrator first).
 *
 * A disabled account cannot sign in (its sessions end now, and `liveWebSession` refuses any other), its
 * API keys are refused (`credentialByPrefix`), its signed links and invitations answer as unknown ones (the
 * look-ups of their tokens, through `accountMayAct`), no digest is built or sent for it (`claimDueAccounts`,
 * `claimDueDeliveries`) and its subscriptions queue nothing (`subscriptionsByFeed`).
 */

/** Every account with how many links wait in its queue, oldest account first. */
export async function accountsOverview(store: Store): Promise<(Account & { queued: number })[]> {
  const [accounts, lengths] = await Promise.all([allAccounts(store.db), queueLengths(store.db)]);
  return accounts.map((a) => ({ ...a, queued: lengths.get(a.id) ?? 0 }));
}

const notFound = (id: number): TidingsError => new TidingsError('not_found', `no account ${id}`);

/** Disables an account (again: no change); the account as it now is. */
export async function disableAccount(
  store: Store,
  targetId: number,
  options: { by?: AccountId; now?: Date } = {},
): Promise<Account> {
  if (options.by === targetId) {
    throw new TidingsError('invalid_input', 'you cannot disable your own account', {
      facts: { reason: 'cannot_disable_self' },
    });
  }
  const at = (options.now ?? new Date()).toISOString();
  return transaction(store.db, async (trx) => {
    const admins = await lockEnabledAdmins(trx, store.engine);
    const target = await accountById(trx, targetId);
    if (target === null) throw notFound(targetId);
    if (target.disabled_at !== null) return target;
    if (admins.length === 1 && admins[0] === targetId) {
      throw new TidingsError(
        'invalid_input',
        `account ${targetId} is the last enabled administrator; make another account an administrator first`,
        { facts: { reason: 'last_admin' } },
      );
    }
    const changed = await setAccountDisabled(trx, targetId, { disabledAt: at });
    await deleteAccountWebSessions(trx, targetId);
    return changed ?? target;
  });
}

/**
 * Enables a disabled account (an enabled one: no change). Its next digest is due at its next send time
 * after now: the days it was disabled bring no digest of their own.
 */
export async function enableAccount(
  store: Store,
  targetId: number,
  now: Date = new Date(),
): Promise<Account> {
  return transaction(store.db, async (trx) => {
    const target = await accountById(trx, targetId);
    if (target === null) throw notFound(targetId);
    if (target.disabled_at === null) return target;
    const dueAt = nextSlotAfter(now, scheduleOf(target)).at.toISOString();
    return (await setAccountDisabled(trx, targetId, { disabledAt: null, digestDueAt: dueAt })) ?? target;
  });
}

/** Makes an account an administrator or not (the same: no change); the account as it now is. */
export async function setAdministrator(
  store: Store,
  targetId: number,
  admin: boolean,
  options: { by?: AccountId } = {},
): Promise<Account> {
  if (!admin && options.by === targetId) {
    throw new TidingsError('invalid_input', 'you cannot stop being an administrator yourself', {
      facts: { reason: 'cannot_unadmin_self' },
    });
  }
  return transaction(store.db, async (trx) => {
    const admins = await lockEnabledAdmins(trx, store.engine);
    const target = await accountById(trx, targetId);
    if (target === null) throw notFound(targetId);
    if (target.is_admin === admin) return target;
    if (!admin && admins.length === 1 && admins[0] === targetId) {
      throw new TidingsError('invalid_input', `account ${targetId} is the last enabled administrator`, {
        facts: { reason: 'last_admin' },
      });
    }
    return (await setAccountAdmin(trx, targetId, admin)) ?? target;
  });
}
