/**
 * `tidings backup FILE` against a real `tidings serve` under a flood of saves, then the restore procedure
 * of docs/operating.md ("Backups and restore") into a fresh data directory: every save answered before the
 * backup began is there, and SQLite finds the copy sound. Real processes, real TCP, real SQLite files.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import {
  type ServerProcess,
  assertBuilt,
  createAccountViaCli,
  request,
  runCli,
  startServer,
} from '../test/process.js';

assertBuilt();

const work = mkdtempSync(join(tmpdir(), 'tidings-backup-'));
after(() => rmSync(work, { recursive: true, force: true }));

const CLIENTS = 8;
const QUEUE_LIMIT = '1000000';

interface Flood {
  /** Each save answered 200, with when its answer arrived (Date.now(): the backup says when it began so). */
  acked: { url: string; at: number }[];
  /** Every URL sent, answered or not. */
  sent: Set<string>;
  stop(): Promise<void>;
}

/** CLIENTS loops, each saving new URLs one after another (both API variants) until stopped. */
function flood(server: ServerProcess, apiKey: string): Flood {
  const acked: Flood['acked'] = [];
  const sent = new Set<string>();
  let running = true;
  const client = async (c: number): Promise<void> => {
    for (let i = 0; running; i++) {
      const url = `https://example.org/flood/${c}/${i}`;
      sent.add(url);
      const path = i % 2 === 0 ? `/api/v1/articles?apiKey=${apiKey}` : `/api?api_key=${apiKey}`;
      const res = await request(`${server.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url, title: `Flood ${c}/${i}` }),
      });
      const at = Date.now();
      assert.equal(res.status, 200, res.body);
      acked.push({ url, at });
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
  return {
    acked,
    sent,
    stop: async () => {
      running = false;
      await Promise.all(clients);
    },
  };
}

/** PRAGMA integrity_check; read-write, so that closing removes the -wal and -shm a WAL file's reader makes. */
function integrity(file: string): string {
  const db = new SQLite(file, { fileMustExist: true });
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

async function queueUrls(server: ServerProcess, apiKey: string): Promise<Set<string>> {
  const res = await request(`${server.baseUrl}/api/v1/articles?apiKey=${apiKey}`);
  assert.equal(res.status, 200, res.body);
  return new Set((JSON.parse(res.body) as { url: string }[]).map((i) => i.url));
}

describe('tidings backup', () => {
  const servers: ServerProcess[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  test('a backup taken under a flood of saves restores every save answered before it began', async (t) => {
    const live = mkdtempSync(join(work, 'live-'));
    const liveDb = join(live, 'tidings.db');
    const { apiKey } = await createAccountViaCli(liveDb, 'backup');
    const env = { TIDINGS_WORKER: 'false', TIDINGS_QUEUE_LIMIT: QUEUE_LIMIT };
    const server = await startServer({ databaseUrl: liveDb, env });
    servers.push(server);

    const load = flood(server, apiKey);
    let backup: Awaited<ReturnType<typeof runCli>>;
    let spawned: number;
    let ackedBeforeSpawn: string[];
    const backupFile = join(work, 'tidings-backup.db');
    try {
      // Let the flood build up a write-ahead log the checkpointer is busy with, then back up in its midst.
      while (load.acked.length < 500) await new Promise((r) => setTimeout(r, 20));
      spawned = Date.now();
      ackedBeforeSpawn = load.acked.filter((a) => a.at < spawned).map((a) => a.url);
      backup = await runCli(['backup', '--json', backupFile], { DATABASE_URL: liveDb }, 60_000);
      const during = load.acked.filter((a) => a.at > spawned).length;
      t.diagnostic(
        `${ackedBeforeSpawn.length} saves answered before the backup was run, ${during} while it ran`,
      );
      assert.ok(during > 0, 'no save was answered while the backup ran');
    } finally {
      await load.stop();
      await server.stop();
    }
    assert.equal(backup.code, 0, backup.stderr);
    t.diagnostic(backup.stdout.trim());
    const done = JSON.parse(backup.stdout) as { file: string; bytes: number; startedAt: string };
    assert.equal(done.file, backupFile);
    assert.equal(done.bytes, statSync(backupFile).size);
    // The copy's moment, as the command tells it: the flood went on around it, so saves answered a few
    // milliseconds before it may still be only in the write-ahead log, which a copy of the file would miss.
    const began = Date.parse(done.startedAt);
    assert.ok(began >= spawned && began <= Date.now(), done.startedAt);
    const ackedBefore = load.acked.filter((a) => a.at < began).map((a) => a.url);
    const lastSecond = load.acked.filter((a) => a.at < began && a.at > began - 1000).length;
    t.diagnostic(
      `${ackedBefore.length} answered before the copy began, ${lastSecond} of them in its last second`,
    );
    assert.ok(lastSecond > 0, 'no save was answered in the second before the copy began');
    assert.ok(ackedBefore.length >= ackedBeforeSpawn.length);
    assert.deepEqual(
      readdirSync(work).filter((f) => f.endsWith('.tmp')),
      [],
      'the temporary file is gone',
    );

    // The restore procedure, step by step: serve is stopped; the copy becomes the database file of a
    // fresh data directory, without any -wal or -shm beside it; serve starts (and migrates) on it.
    const restored = mkdtempSync(join(work, 'restored-'));
    const restoredDb = join(restored, 'tidings.db');
    copyFileSync(backupFile, restoredDb);
    for (const stale of ['-wal', '-shm']) rmSync(restoredDb + stale, { force: true });
    assert.equal(integrity(restoredDb), 'ok');
    const again = await startServer({ databaseUrl: restoredDb, env });
    servers.push(again);
    let queued: Set<string>;
    try {
      queued = await queueUrls(again, apiKey);
    } finally {
      await again.stop();
    }
    const missing = ackedBefore.filter((u) => !queued.has(u));
    assert.deepEqual(missing, [], `${missing.length} acknowledged saves are missing from the restore`);
    for (const u of queued) assert.ok(load.sent.has(u), `${u} was never sent`);
    assert.ok(queued.size < load.sent.size, 'the copy holds a moment of the flood, not its end');
    assert.equal(integrity(restoredDb), 'ok');
  });

  test('an existing FILE is kept unless --force; --force replaces it', async () => {
    const dir = mkdtempSync(join(work, 'force-'));
    const db = join(dir, 'tidings.db');
    await createAccountViaCli(db, 'force');
    const file = join(dir, 'copy.db');
    writeFileSync(file, 'precious');
    const refused = await runCli(['backup', file], { DATABASE_URL: db });
    assert.equal(refused.code, 2);
    assert.equal(refused.stderr, `tidings: ${file} exists; choose another name, or --force to replace it\n`);
    assert.equal(statSync(file).size, 'precious'.length);
    const forced = await runCli(['backup', '--force', file], { DATABASE_URL: db });
    assert.equal(forced.code, 0, forced.stderr);
    const kib = (statSync(file).size / 1024).toFixed(1);
    assert.match(forced.stdout, new RegExp(`^Wrote ${file}: ${kib} KiB \\(\\d+ pages\\) in \\d+ ms\\.\\n$`));
    assert.equal(integrity(file), 'ok');
    assert.deepEqual(readdirSync(dir).sort(), ['copy.db', 'tidings.db']);
  });

  test('no database, the database itself, a missing directory: a message and no file', async () => {
    const dir = mkdtempSync(join(work, 'bad-'));
    const db = join(dir, 'tidings.db');
    const none = await runCli(['backup', join(dir, 'copy.db')], { DATABASE_URL: db });
    assert.equal(none.code, 1);
    assert.equal(none.stderr, `tidings: there is no database at ${db}\n`);
    assert.equal(existsSync(db), false, 'backup does not create the database');
    await createAccountViaCli(db, 'bad');
    const self = await runCli(['backup', db], { DATABASE_URL: db });
    assert.equal(self.code, 2);
    assert.match(self.stderr, /is the database itself/);
    const nowhere = await runCli(['backup', join(dir, 'no/such/dir/copy.db')], { DATABASE_URL: db });
    assert.equal(nowhere.code, 2);
    assert.match(nowhere.stderr, /the directory .*no\/such\/dir does not exist/);
    assert.deepEqual(readdirSync(dir).sort(), ['tidings.db']);
  });

  test('on PostgreSQL it names pg_dump, with a line to run, and exits 2', async () => {
    const dir = mkdtempSync(join(work, 'pg-'));
    const file = join(dir, 'copy.db');
    const r = await runCli(['backup', file], {
      DATABASE_URL: 'postgres://tidings:secret@127.0.0.1:5432/tidings',
    });
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.equal(
      r.stderr,
      'tidings: backup copies SQLite databases; this one is PostgreSQL: back it up with pg_dump, e.g.\n' +
        '  pg_dump --format=custom --file=tidings-$(date +%F).dump "$DATABASE_URL"\n',
    );
    assert.equal(existsSync(file), false);
  });
});
