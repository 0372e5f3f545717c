import { type BuildOutcome, buildDigestNow } from '../digest/build.js';
import type { DigestDeps } from '../digest/deps.js';
import { nextDigestSlot } from '../digest/upcoming.js';
import { revokeUnsubscribeTokens } from '../digest/unsubscribe.js';
import type { Store } from '../store/db.js';
import { deleteDigestActionTokens } from '../store/digestActionTokens.js';
import { type Account, lockAccount, updateAccountSettings } from '../store/accounts.js';
import { transaction } from '../store/precompiled.js';
import type { AccountId } from './authorize.js';
import type { SettingsChange } from './settings.js';

/**
 * Changes an account's digest settings. A change of zone, send time or days recomputes when the next digest
 * is due (the next slot after `now` whose day has no digest yet: `nextDigestSlot`, the worker's rule). A
 * new email address revokes the unsubscribe and action links of emails sent before. Null when the account no longer
 * exists.
 */
export async function changeAccountSettings(
  store: Store,
  accountId: AccountId,
  change: SettingsChange,
  now: Date = new Date(),
): Promise<Account | null> {
  return transaction(store.db, async (trx) => {
    // The row lock first, as digest builds take it: a build in progress sees the settings before or after.
    // It leaves the queue's version alone: the API's cached reads of the queue stay valid.
    const account = await lockAccount(trx, store.engine, accountId);
    if (account === null) return null;
    const rescheduled =
      change.timezone !== undefined || change.time !== undefined || change.days !== undefined;
    const changed = {
      ...account,
      timezone: change.timezone ?? account.timezone,
      digest_time: change.time ?? account.digest_time,
      digest_days: change.days ?? account.digest_days,
    };
    const next = rescheduled ? await nextDigestSlot(trx, changed, now) : null;
    // Links in emails sent to another address must not control what this one gets.
    if (change.email !== undefined && change.email !== account.email) {
      await revokeUnsubscribeTokens(trx, accountId);
      await deleteDigestActionTokens(trx, accountId);
    }
    return updateAccountSettings(trx, accountId, {
      ...(change.timezone === undefined ? {} : { timezone: change.timezone }),
      ...(change.time === undefined ? {} : { digestTime: change.time }),
      ...(change.days === undefined ? {} : { digestDays: change.days }),
      ...(change.maxItems === undefined ? {} : { digestMaxItems: change.maxItems }),
      ...(change.skipEmpty === undefined ? {} : { digestSkipEmpty: change.skipEmpty }),
      ...(change.email === undefined ? {} : { email: change.email }),
      ...(change.emailEnabled === undefined ? {} : { emailEnabled: change.emailEnabled }),
      ...(change.ereaderEmail === undefined ? {} : { ereaderEmail: change.ereaderEmail }),
      ...(change.resurface === undefined ? {} : { resurfaceCount: change.resurface }),
      ...(change.resurfaceOrder === undefined ? {} : { resurfaceOrder: change.resurfaceOrder }),
      // Turning emails off or on by hand ends a pause ("pause for a week" from an email's unsubscribe page).
      ...(change.emailEnabled === undefined || change.emailEnabled === account.email_enabled
        ? {}
        : { emailPausedUntil: null }),
      ...(change.images === undefined ? {} : { showImages: change.images }),
      ...(change.cleanLinks === undefined ? {} : { cleanLinks: change.cleanLinks }),
      ...(change.language === undefined ? {} : { language: change.language }),
      ...(next === null ? {} : { digestDueAt: next.at.toISOString() }),
    });
  });
}

/**
 * "Send me a digest now": builds today's digest from the account's queue at once, whatever its schedule
 * (an empty queue is skipped; a day that has its digest keeps it). The email follows with the next
 * delivery pass.
 */
export async function sendDigestNow(deps: DigestDeps, accountId: AccountId): Promise<BuildOutcome> {
  return buildDigestNow(deps, accountId);
}
