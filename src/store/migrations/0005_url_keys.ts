import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

const BATCH = 1000;

/**
 * The rules this migration keyed URLs by, frozen as src/queue/url.ts had them when it shipped: the queue's
 * rules may change later, what this migration wrote may not. Never edit them.
 */
const TRACKING_PARAMS = new Set([
  'fbclid',
  'gclid',
  'dclid',
  'gbraid',
  'wbraid',
  'msclkid',
  'mc_cid',
  'mc_eid',
  'igshid',
  'yclid',
  '_hsenc',
  '_hsmi',
  'mkt_tok',
  'oly_anon_id',
  'oly_enc_id',
  'vero_id',
  'rb_clickid',
  's_cid',
]);

const isTrackingParam = (name: string): boolean => {
  const lower = name.toLowerCase();
  return lower.startsWith('utm_') || TRACKING_PARAMS.has(lower);
};

/** Scheme and host lower-cased, default port, fragment and tracking parameters dropped (WHATWG URL). */
function normaliseUrl(input: string): string {
  const u = new URL(input);
  u.hash = '';
  const names = [...new Set(u.searchParams.keys())];
  for (const name of names) if (isTrackingParam(name)) u.searchParams.delete(name);
  if (u.search === '?') u.search = '';
  return u.href;
}

/** The normalised URL itself, or past 500 characters `sha256:` and its hash. */
const urlKey = (normalised: string): string =>
  normalised.length <= 500 ? normalised : `sha256:${createHash('sha256').update(normalised).digest('hex')}`;

/** The key 0005 gave a stored URL; exported for the test that it matched the queue's rules when it shipped. */
export const urlKeyAt0005 = (url: string): string => urlKey(normaliseUrl(url));

/**
 * Queue items are deduplicated by their normal URL itself instead of its SHA-256 (see urlKey in
 * src/queue/url.ts): recomputes every waiting item's key from its URL. Old keys are 64 hex digits and
 * new ones start with "http" or "sha256:", so the two never meet in the unique index; should two items of
 * an account come out with the same key, the later one is a duplicate by the queue's own rule and goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  let after = 0;
  for (;;) {
    const { rows } = await sql<{ id: number; account_id: number; url: string }>`
      select id, account_id, url from queue_items where id > ${after} order by id limit ${BATCH}`.execute(db);
    const last = rows.at(-1);
    if (last === undefined) return;
    for (const row of rows) {
      const key = urlKeyAt0005(row.url);
      const { rows: taken } = await sql<{ id: number }>`
        select id from queue_items where account_id = ${row.account_id} and url_key = ${key}`.execute(db);
      if (taken.some((t) => t.id !== row.id)) {
        await sql`delete from queue_items where id = ${row.id}`.execute(db);
      } else {
        await sql`update queue_items set url_key = ${key} where id = ${row.id}`.execute(db);
      }
    }
    after = last.id;
  }
}
