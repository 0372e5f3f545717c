import type { Kysely } from 'kysely';
import { insertAccountTokens } from './accountTokens.js';
import { accountMayAct } from './accounts.js';
import type { Database, Timestamp } from './schema.js';

/*
 * The private links of an email's actions (migration 0025): a token per email, only its SHA-256 kept, as
 * unsubscribe_tokens. It names the account and the digest the email carried; the actions it authorises
 * name that digest's items and their feeds, read here too.
 */

/**
 * The account and digest of a token (by its SHA-256, hex), when it was made at or after
 * `madeSince` (it has not outlived its lifetime: digest/linkLifetimes.ts) and the account may act (not
 * disabled); null otherwise.
 */
export async function digestOfActionHash(
  db: Kysely<Database>,
  tokenHash: string,
  madeSince: Timestamp,
): Promise<{ accountId: number; digestId: number } | null> {
  const row = await db
    .selectFrom('digest_action_tokens')
    .select(['account_id', 'digest_id'])
    .where('token_hash', '=', tokenHash)
    .where('created_at', '>=', madeSince)
    .where(accountMayAct('digest_action_tokens.account_id'))
    .executeTakeFirst();
  return row === undefined ? null : { accountId: row.account_id, digestId: row.digest_id };
}

/**
 * Keeps the hashes of new tokens, each of an account's digest, and forgets the tokens of those accounts
 * made before `pruneBefore`, in two statements (accountTokens.ts); returns the hashes kept (a digest that
 * is not, or is not that account's, gets none).
 */
export function insertDigestActionTokens(
  db: Kysely<Database>,
  tokens: readonly { accountId: number; digestId: number; tokenHash: string }[],
  t: { createdAt: Timestamp; pruneBefore: Timestamp },
): Promise<Set<string>> {
  return insertAccountTokens(db, 'digest_action_tokens', tokens, t);
}

/** Forgets every action token of the account: the action links of emails already sent stop working. */
export async function deleteDigestActionTokens(db: Kysely<Database>, accountId: number): Promise<number> {
  const result = await db
    .deleteFrom('digest_action_tokens')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** An item of one of the account's digests, as an action shows and queues it again. */
export interface ActionItem {
  id: number;
  url: string;
  title: string;
  feedId: number | null;
  feedTitle: string | null;
}

/** Item `itemId` (digest_items.id) of the account's digest `digestId`; null when it is not one of its items. */
export async function digestItemOfAction(
  db: Kysely<Database>,
  accountId: number,
  digestId: number,
  itemId: number,
): Promise<ActionItem | null> {
  const row = await db
    .selectFrom('digest_items as i')
    .innerJoin('digests as d', 'd.id', 'i.digest_id')
    .select([
      'i.id as id',
      'i.url as url',
      'i.title as title',
      'i.feed_id as feedId',
      'i.feed_title as feedTitle',
    ])
    .where('d.account_id', '=', accountId)
    .where('i.digest_id', '=', digestId)
    .where('i.id', '=', itemId)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * The name the account's digest `digestId` gave feed `feedId` (the reader's name for it when built);
 * null when none of that digest's items came from it.
 */
export async function digestFeedOfAction(
  db: Kysely<Database>,
  accountId: number,
  digestId: number,
  feedId: number,
): Promise<{ feedTitle: string | null } | null> {
  const row = await db
    .selectFrom('digest_items as i')
    .innerJoin('digests as d', 'd.id', 'i.digest_id')
    .select('i.feed_title as feedTitle')
    .where('d.account_id', '=', accountId)
    .where('i.digest_id', '=', digestId)
    .where('i.feed_id', '=', feedId)
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}
