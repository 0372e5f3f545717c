import type { Kysely } from 'kysely';
import type { Database, Timestamp } from './schema.js';

/*
 * The feeds' mutes ("Mute for a week", subscriptions.muted_until) as a digest's rendering reads them, for
 * every digest of a batch at once: a muted feed's group offers Unmute instead of Mute (digest/actionLinks.ts).
 * The rest of the subscriptions table is store/subscriptions.ts.
 */

/**
 * Of several accounts, the feeds each has muted at some time, by account: feed id → muted until. A mute
 * that has ended is among them: the caller compares with its clock (lib/digestShare.ts `mutedAt`).
 */
export async function mutesOfAccounts(
  db: Kysely<Database>,
  accountIds: readonly number[],
): Promise<Map<number, Map<number, Timestamp>>> {
  const byAccount = new Map<number, Map<number, Timestamp>>(accountIds.map((id) => [id, new Map()]));
  if (accountIds.length === 0) return byAccount;
  const rows = await db
    .selectFrom('subscriptions')
    .select(['account_id', 'feed_id', 'muted_until'])
    .where('account_id', 'in', accountIds)
    .where('muted_until', 'is not', null)
    .execute();
  for (const row of rows) {
    if (row.muted_until !== null) byAccount.get(row.account_id)?.set(row.feed_id, row.muted_until);
  }
  return byAccount;
}
