/**
 * The SQLite floor for bench/api-floor.ts: the smallest honest app of the prescribed stack (Fastify, a pino
 * logger, better-sqlite3) for the saved-URL POST; the app itself (form body, key check, `new URL`, batching
 * by turn, answer) is bench/floor-app.ts, shared with the PostgreSQL floor. Here is its storage: the key
 * looked up by its prefix on every request (a prepared statement), and a batch written as one BEGIN
 * IMMEDIATE … COMMIT that advances the account's queue_version by the batch's size and inserts each save
 * into a queue_items table with Tidings' columns and indexes (ON CONFLICT DO NOTHING RETURNING id). WAL,
 * synchronous = NORMAL, foreign_keys = ON, like Tidings. It is deliberately not a reimplementation of the
 * spec (no title rules, URL normalisation, limits…).
 *
 * Usage: node --import tsx bench/floor-server.ts DB_FILE API_KEY; prints {"port": N} once listening.
 */
import Database from 'better-sqlite3';
import { type FloorCredential, type FloorSave, serveFloor, sha256 } from './floor-app.js';

const [file, apiKey] = process.argv.slice(2);
if (file === undefined || apiKey === undefined) {
  process.stderr.write('usage: floor-server.ts DB_FILE API_KEY\n');
  process.exit(2);
}
const PREFIX = 12;

const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.exec(`
  create table accounts (id integer primary key, queue_version integer not null default 0);
  create table api_keys (id integer primary key, account_id integer not null references accounts (id),
    prefix text not null unique, key_hash text not null);
  create table feeds (id integer primary key);
  create table queue_items (id integer primary key,
    account_id integer not null references accounts (id) on delete cascade,
    url text not null, url_key text not null, title text not null, source text not null,
    created_at text not null, updated_at text not null,
    feed_id integer references feeds (id) on delete set null, summary text, published_at text,
    constraint queue_items_account_url_key unique (account_id, url_key));
  create index queue_items_account_order_idx on queue_items (account_id, id);
  insert into accounts (id) values (1);`);
db.prepare('insert into api_keys (account_id, prefix, key_hash) values (1, ?, ?)').run(
  apiKey.slice(0, PREFIX),
  sha256(apiKey).toString('hex'),
);
const credential = db.prepare<[string], FloorCredential>(
  'select account_id as accountId, key_hash as keyHash from api_keys where prefix = ?',
);
const insert = db.prepare(
  `insert into queue_items (account_id, url, url_key, title, source, created_at, updated_at)
   values (?, ?, ?, ?, 'api', ?, ?) on conflict do nothing returning id`,
);
const bump = db.prepare('update accounts set queue_version = queue_version + ? where id = ?');
// Prepared once, as Tidings' statement cache keeps them.
const begin = db.prepare('begin immediate');
const commit = db.prepare('commit');

await serveFloor({
  credential: (key) => credential.get(key.slice(0, PREFIX)),
  saveBatch: (accountId: number, saves: readonly FloorSave[]) => {
    const now = new Date().toISOString();
    try {
      begin.run();
      bump.run(saves.length, accountId);
      for (const s of saves) insert.all(accountId, s.url, s.url, s.title, now, now);
      commit.run();
    } catch (err) {
      if (db.inTransaction) db.exec('rollback');
      throw err;
    }
  },
  close: () => {
    db.close();
  },
});
