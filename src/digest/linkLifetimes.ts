import type { Kysely } from 'kysely';
import { type TokenTable, deleteTokensMadeBefore } from '../store/accountTokens.js';
import type { Database, Timestamp } from '../store/schema.js';

/*
 * How long each signed link of a digest email works, counted from when its token was made (the email
 * was sent, or the digest's web page shown to its signed-in reader): the one place it is decided (issue 33,
 * point F). The look-up of a token refuses one older than this (digest/unsubscribe.ts,
 * digest/actionTokens.ts), with the answer of an unknown link; the digest worker forgets expired tokens of
 * every account (pruneExpiredLinks), whether or not the account gets another email.
 *
 * - Unsubscribe (RFC 8058's one-click link, and the email's footer): a year. It must keep working for a
 *   reasonable time after the email (CAN-SPAM asks for 30 days at least): whoever finds an old email in an
 *   archive or a forward can still turn the emails off, and that is all the link can do.
 * - The digest's actions (keep for tomorrow, fewer, more, mute; the reading list's archive and keep for
 *   tomorrow): 30 days. They act on that digest's items and feeds, which matter for its day; a month
 *   covers an inbox read late (a holiday's pile), after which the Feeds page and the queue do the same.
 *
 * The digest token (digest/token.ts: the digest's web page and EPUB, the Atom feed, an item's reading
 * view) is the account's, not an email's, and has no age: it is the feed's address, which a feed reader
 * keeps. It works until it is replaced (`tidings account feed-url --rotate`, the Keys page) and only while
 * the account may act.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** Days a token of each table works after it was made. */
export const LINK_LIFETIME_DAYS = {
  unsubscribe_tokens: 365,
  digest_action_tokens: 30,
} as const satisfies Record<TokenTable, number>;

/** The oldest creation time of a token of the table that still works at `now`. */
export function linksMadeSince(table: TokenTable, now: Date): Timestamp {
  return new Date(now.getTime() - LINK_LIFETIME_DAYS[table] * DAY_MS).toISOString();
}

/** Expired tokens forgotten per table and pass at most: an old database's backlog goes over passes. */
export const PRUNE_BATCH = 1000;

/** Forgets the tokens of every account that have expired at `now` (up to PRUNE_BATCH a table): how many. */
export async function pruneExpiredLinks(db: Kysely<Database>, now: Date): Promise<number> {
  let pruned = 0;
  for (const table of Object.keys(LINK_LIFETIME_DAYS) as TokenTable[]) {
    pruned += await deleteTokensMadeBefore(db, table, linksMadeSince(table, now), PRUNE_BATCH);
  }
  return pruned;
}
