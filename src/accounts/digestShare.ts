import { TidingsError } from '../errors.js';
import type { AccountId } from '../lib/authorized.js';
import {
  MAX_PER_DIGEST,
  type PerDigest,
  type PerDigestChoice,
  type Priority,
  isPriority,
  perDigestChoiceOf,
  perDigestColumn,
  perDigestOf,
  validPerDigest,
} from '../lib/digestShare.js';
import type { Store } from '../store/db.js';
import { type SubscriptionRow, updateSubscriptionShare } from '../store/subscriptions.js';

/**
 * A feed's share of the account's digests (issue 24): how many of its entries each digest shows, its
 * priority, and a mute. The one service the CLI (`feed set`), the Feeds page and the e-mail's actions
 * (accounts/digestActions.ts) change it through; the rules of the values are lib/digestShare.ts's.
 */

export interface DigestShare {
  /** What a digest shows of the feed: the default as its number, then `perDigestDefault`. */
  perDigest: PerDigest;
  perDigestDefault: boolean;
  /** The setting as stored: 'default', 'all' or a number (what an undo restores). */
  perDigestChoice: PerDigestChoice;
  priority: Priority;
  mutedUntil: string | null;
}

export interface DigestShareChange {
  /** A whole number 0..100, 'all', or 'default'; undefined leaves it. */
  perDigest?: number | 'all' | 'default' | undefined;
  priority?: Priority | undefined;
  /** An ISO 8601 time until which the feed is only counted; null unmutes; undefined leaves it. */
  mutedUntil?: string | null | undefined;
}

/** The share a subscription row states. */
export const shareOf = (
  row: Pick<SubscriptionRow, 'per_digest' | 'priority' | 'muted_until'>,
): DigestShare => ({
  perDigest: perDigestOf(row.per_digest),
  perDigestDefault: row.per_digest === null,
  perDigestChoice: perDigestChoiceOf(row.per_digest),
  priority: row.priority,
  mutedUntil: row.muted_until,
});

/**
 * Changes a subscription's share of the digest; the share as stored. invalid_input for a value out of its
 * range (nothing is written), not_found for a subscription the account does not have.
 */
export async function setDigestShare(
  store: Store,
  accountId: AccountId,
  subscriptionId: number,
  change: DigestShareChange,
): Promise<DigestShare> {
  const { perDigest, priority, mutedUntil } = change;
  if (perDigest !== undefined && typeof perDigest === 'number' && !validPerDigest(perDigest)) {
    throw new TidingsError(
      'invalid_input',
      `entries per digest must be all, default or a whole number from 0 to ${MAX_PER_DIGEST}, not ${perDigest}`,
    );
  }
  if (priority !== undefined && !isPriority(priority)) {
    throw new TidingsError('invalid_input', 'the priority must be high, normal or low');
  }
  let muted: string | null | undefined = mutedUntil;
  if (typeof mutedUntil === 'string') {
    const at = Date.parse(mutedUntil);
    if (!/^\d{4}-\d\d-\d\dT/.test(mutedUntil) || Number.isNaN(at)) {
      throw new TidingsError('invalid_input', `"${mutedUntil.slice(0, 40)}" is not a time (ISO 8601)`);
    }
    muted = new Date(at).toISOString();
  }
  const row = await updateSubscriptionShare(store.db, accountId, subscriptionId, {
    ...(perDigest === undefined ? {} : { perDigest: perDigestColumn(perDigest) }),
    ...(priority === undefined ? {} : { priority }),
    ...(muted === undefined ? {} : { mutedUntil: muted }),
  });
  if (row === null) {
    throw new TidingsError('not_found', `account ${accountId} has no feed subscription ${subscriptionId}`);
  }
  return shareOf(row);
}
