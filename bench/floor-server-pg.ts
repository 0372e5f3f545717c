/**
 * The PostgreSQL floor for bench/api-floor.ts: the smallest honest app of the prescribed stack (Fastify, a
 * pino logger, pg) for the saved-URL POST; the app itself (form body, key check, `new URL`, batching by
 * turn, answer) is bench/floor-app.ts, shared with the SQLite floor. It works on Tidings' own schema (a
 * database `tidings account create` has migrated: accounts, api_keys, queue_items with all their indexes,
 * foreign keys and triggers, among them the one that NOTIFYs when a queue_version changes).
 *
 * Its storage: one connection. A key's account and stored hash are looked up once by the key's prefix and
 * then kept in memory, as Tidings caches keys on PostgreSQL (the SHA-256 is still compared on every
 * request). A batch is ONE named (prepared) statement, autocommit, synchronous_commit on: it advances the
 * account's queue_version by the batch's size and inserts the rows from unnest (ON CONFLICT (account_id,
 * url_key) DO NOTHING RETURNING id), one round trip. It is deliberately not a reimplementation of the spec
 * (no title rules, URL normalisation, limits, renames of waiting items…).
 *
 * Usage: node --import tsx bench/floor-server-pg.ts DATABASE_URL; prints {"port": N} once listening.
 */
import pg from 'pg';
import { type FloorCredential, type FloorSave, serveFloor } from './floor-app.js';

const databaseUrl = process.argv[2];
if (databaseUrl === undefined) {
  process.stderr.write('usage: floor-server-pg.ts DATABASE_URL\n');
  process.exit(2);
}
/** Tidings' keys: `tdg_` + a 12-character prefix + the secret. */
const prefixOf = (key: string): string => key.slice(4, 16);

const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();
await client.query('set synchronous_commit = on');

const CREDENTIAL = `select k.account_id as "accountId", k.key_hash as "keyHash"
  from api_keys k join accounts a on a.id = k.account_id
  where k.prefix = $1 and k.revoked_at is null and a.disabled_at is null`;
const SAVE = `with bumped as (
    update accounts set queue_version = queue_version + $2 where id = $1 returning id
  )
  insert into queue_items (account_id, url, url_key, title, source, created_at, updated_at)
  select bumped.id, r.url, r.url, r.title, 'api', $5, $5
  from bumped cross join unnest($3::text[], $4::text[]) with ordinality as r(url, title, n)
  order by r.n
  on conflict (account_id, url_key) do nothing
  returning id`;

/** The credentials looked up so far, by prefix (a look-up under way is shared). */
const credentials = new Map<string, Promise<FloorCredential | undefined>>();

await serveFloor({
  credential: (key) => {
    const prefix = prefixOf(key);
    let found = credentials.get(prefix);
    if (found === undefined) {
      found = client
        .query<FloorCredential>({ name: 'floor-credential', text: CREDENTIAL, values: [prefix] })
        .then((r) => r.rows[0]);
      credentials.set(prefix, found);
      // Only keys that exist are kept.
      void found.then(
        (c) => c === undefined && credentials.delete(prefix),
        () => credentials.delete(prefix),
      );
    }
    return found;
  },
  saveBatch: async (accountId: number, saves: readonly FloorSave[]) => {
    const now = new Date().toISOString();
    await client.query({
      name: 'floor-save',
      text: SAVE,
      values: [accountId, saves.length, saves.map((s) => s.url), saves.map((s) => s.title), now],
    });
  },
  close: () => client.end(),
});
