import type { Kysely } from 'kysely';

/**
 * Signed links that age (issue 33, point F): an email's unsubscribe and action tokens are refused past
 * their lifetime when used, and the digest worker forgets the expired ones of every account, a batch at a
 * time (store/accountTokens.ts deleteTokensMadeBefore). That look-up is by age alone, across accounts,
 * which the (account_id, created_at) indexes of 0016 and 0025 do not serve: one index on created_at per
 * table, so that a pass with nothing to forget reads nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('unsubscribe_tokens_created_idx')
    .on('unsubscribe_tokens')
    .column('created_at')
    .execute();
  await db.schema
    .createIndex('digest_action_tokens_created_idx')
    .on('digest_action_tokens')
    .column('created_at')
    .execute();
}
