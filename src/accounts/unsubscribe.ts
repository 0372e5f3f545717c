import {
  PAUSE_MS,
  accountIdByUnsubscribeToken,
  emailPaused,
  revokeUnsubscribeTokens,
} from '../digest/unsubscribe.js';
import type { Store } from '../store/db.js';
import { deleteDigestActionTokens } from '../store/digestActionTokens.js';
import { accountById, lockAccount, updateAccountSettings } from '../store/accounts.js';
import { transaction } from '../store/precompiled.js';
import { type AccountId, grantAccount } from './authorize.js';

/**
 * One-click unsubscribe, as the account sees it (see digest/unsubscribe.ts for the links). A token from an
 * email authorises exactly these: reading whether the account's emails are on, off or paused, and turning
 * them off, pausing them for a week, or on again. The unsubscribe page uses nothing else.
 */

/**
 * The account a presented unsubscribe token opens at `now`; null for anything else (an expired token's, a
 * disabled account's too).
 */
export async function unsubscribeReader(
  store: Store,
  presented: string,
  now: Date,
): Promise<AccountId | null> {
  const accountId = await accountIdByUnsubscribeToken(store.db, presented, now);
  return accountId === null ? null : grantAccount(accountId);
}

/** Where the account's digest emails stand; the unsubscribe page shows nothing more. */
export type EmailState = { status: 'on' } | { status: 'off' } | { status: 'paused'; until: string };

export type EmailAction = 'off' | 'pause' | 'resume';

/** The state of the account's emails at `now`; null when the account no longer exists. */
export async function emailStateOf(
  store: Store,
  accountId: AccountId,
  now: Date,
): Promise<EmailState | null> {
  const account = await accountById(store.db, accountId);
  return account === null ? null : stateOf(account, now);
}

/**
 * Turns the account's emails off, pauses them for a week from `now` (digests are still built, and read on
 * the web and in Atom), or turns them on again, at once: a digest built and not yet sent is not sent while
 * they are off or paused. The new state; null when the account no longer exists.
 */
export async function changeEmailDelivery(
  store: Store,
  accountId: AccountId,
  action: EmailAction,
  now: Date,
): Promise<EmailState | null> {
  return transaction(store.db, async (trx) => {
    // The row lock digest builds and settings changes take: a build sees the change before or after.
    if ((await lockAccount(trx, store.engine, accountId)) === null) return null;
    const changed = await updateAccountSettings(trx, accountId, {
      emailEnabled: action !== 'off',
      emailPausedUntil: action === 'pause' ? new Date(now.getTime() + PAUSE_MS).toISOString() : null,
    });
    return changed === null ? null : stateOf(changed, now);
  });
}

/**
 * Revokes every private link of the account's emails already sent (the next email has new ones): the
 * unsubscribe links and the digest's action links (keep, fewer, more, mute). How many unsubscribe links
 * there were.
 */
export async function resetUnsubscribeLinks(store: Store, accountId: AccountId): Promise<number> {
  return transaction(store.db, async (trx) => {
    await deleteDigestActionTokens(trx, accountId);
    return revokeUnsubscribeTokens(trx, accountId);
  });
}

function stateOf(
  account: { email_enabled: boolean; email_paused_until: string | null },
  now: Date,
): EmailState {
  if (!account.email_enabled) return { status: 'off' };
  if (emailPaused(account, now) && account.email_paused_until !== null) {
    return { status: 'paused', until: account.email_paused_until };
  }
  return { status: 'on' };
}
