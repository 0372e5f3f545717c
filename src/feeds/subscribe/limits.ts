import { TidingsError } from '../../errors.js';

/**
 * The two bounds of what one request may make Tidings follow, each stated once: the feeds an account may
 * follow (TIDINGS_MAX_SUBSCRIPTIONS) and the feeds one OPML import may list (TIDINGS_MAX_OPML_OUTLINES).
 * Both are refused with TidingsError limit_reached, whose message names the limit and its variable. Pure:
 * the OPML reading thread (opmlWorker.ts) counts with it too; subscribe.ts's subscriptionRoom reads the room.
 */

const count = (n: number): string => n.toLocaleString('en');
const feeds = (n: number): string => `${count(n)} feed${n === 1 ? '' : 's'}`;

/** The refusal of one more feed for an account that follows `limit` already. */
export const subscriptionLimitError = (limit: number): TidingsError =>
  new TidingsError(
    'limit_reached',
    `the account follows ${feeds(limit)}, the most it may (TIDINGS_MAX_SUBSCRIPTIONS)`,
    { facts: { reason: 'feeds_limit', limit } },
  );

/** Refuses a whole import that would make the account follow more than `limit` feeds; nothing is imported. */
export function checkImportRoom(following: number, adding: number, limit: number): void {
  if (following + adding <= limit) return;
  throw new TidingsError(
    'limit_reached',
    `importing would make the account follow ${feeds(following + adding)} (${count(following)} now, ` +
      `${count(adding)} new in the file); an account may follow at most ${count(limit)} (TIDINGS_MAX_SUBSCRIPTIONS)`,
    { facts: { reason: 'import_feeds_limit', following, adding, limit } },
  );
}

/** Refuses an OPML file that lists more than `limit` feeds, before anything of it is imported. */
export function checkOutlineCount(listed: number, limit: number): void {
  if (listed <= limit) return;
  throw new TidingsError(
    'limit_reached',
    `the file lists ${feeds(listed)}; one import may list at most ${count(limit)} (TIDINGS_MAX_OPML_OUTLINES)`,
    { facts: { reason: 'opml_outlines_limit', listed, limit } },
  );
}
