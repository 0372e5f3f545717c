/**
 * The floor for bench/api-floor.ts: the smallest honest app of the prescribed stack (Fastify, a pino logger,
 * better-sqlite3) for the saved-URL POST. Per request it does the durable work Tidings cannot skip: parse
 * the form body, look the key up and compare its SHA-256, check the URL with `new URL`, and insert into a
 * queue_items table with Tidings' columns and indexes (ON CONFLICT DO NOTHING RETURNING id); the requests
 * that arrive in one turn share one BEGIN IMMEDIATE … COMMIT that also bumps the account's queue_version,
 * and each is answered only after that COMMIT. WAL, synchronous = NORMAL, foreign_keys = ON, like Tidings.
 * It is deliberately not a reimplementation of the spec (no title rules, URL normalisation, limits…).
 *
 * Usage: node --import tsx bench/floor-server.ts DB_FILE API_KEY; prints {"port": N} once listening.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { parse, type ParsedUrlQuery } from 'node:querystring';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import pino from 'pino';

const [file, apiKey] = process.argv.slice(2);
if (file === undefined || apiKey === undefined) {
  process.stderr.write('usage: floor-server.ts DB_FILE API_KEY\n');
  process.exit(2);
}
const sha256 = (s: string): Buffer => createHash('sha256').update(s).digest();
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
const credential = db.prepare<[string], { accountId: number; keyHash: string }>(
  'select account_id as accountId, key_hash as keyHash from api_keys where prefix = ?',
);
const insert = db.prepare(
  `insert into queue_items (account_id, url, url_key, title, source, created_at, updated_at)
   values (?, ?, ?, ?, 'api', ?, ?) on conflict do nothing returning id`,
);
const bump = db.prepare('update accounts set queue_version = queue_version + 1 where id = ?');
// Prepared once, as Tidings' statement cache keeps them.
const begin = db.prepare('begin immediate');
const commit = db.prepare('commit');

interface Pending {
  accountId: number;
  url: string;
  title: string;
  resolve: () => void;
  reject: (err: Error) => void;
}
let pending: Pending[] = [];
/** One transaction for every POST that arrived in this turn of the event loop (group commit). */
const flush = (): void => {
  const batch = pending;
  pending = [];
  const now = new Date().toISOString();
  try {
    begin.run();
    for (const id of new Set(batch.map((p) => p.accountId))) bump.run(id);
    for (const p of batch) insert.all(p.accountId, p.url, p.url, p.title, now, now);
    commit.run();
  } catch (err) {
    if (db.inTransaction) db.exec('rollback');
    for (const p of batch) p.reject(err instanceof Error ? err : new Error('the transaction failed'));
    return;
  }
  for (const p of batch) p.resolve();
};

// One log line per request, written when it completes, as Tidings writes it (Fastify's own logging
// writes two: "incoming request" and "request completed").
const app = Fastify({
  loggerInstance: pino(pino.destination({ dest: '/dev/null', sync: false })),
  disableRequestLogging: true,
});
app.addHook('onResponse', (req, reply, done) => {
  const url = req.url.replace(/([?&]apiKey=)[^&]*/, '$1***');
  const fields = { method: req.method, url, status: reply.statusCode, ms: reply.elapsedTime, ip: req.ip };
  req.log.info(fields, 'request');
  done();
});
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
  done(null, parse(body.toString()));
});
const saved = '{"code":0,"message":"saved for the next digest"}';
const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

app.post<{ Querystring: { apiKey?: string }; Body: ParsedUrlQuery }>(
  '/api/v1/articles',
  async (req, reply) => {
    const key = req.query.apiKey ?? '';
    const cred = credential.get(key.slice(0, PREFIX));
    if (cred === undefined || !timingSafeEqual(sha256(key), Buffer.from(cred.keyHash, 'hex'))) {
      return reply.code(401).send({ code: 40102, message: 'unknown API key' });
    }
    let url: string;
    try {
      url = new URL(first(req.body.url) ?? '').href;
    } catch {
      return reply.code(400).send({ code: 40001, message: 'url is not a valid URL' });
    }
    const title = first(req.body.title) ?? url;
    await new Promise<void>((resolve, reject) => {
      if (pending.push({ accountId: cred.accountId, url, title, resolve, reject }) === 1) setImmediate(flush);
    });
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('access-control-allow-origin', '*')
      .header('access-control-expose-headers', 'Retry-After')
      .send(saved);
  },
);

await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('no TCP address');
process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
process.once('SIGTERM', () => {
  void app.close().then(() => {
    db.close();
  });
});
