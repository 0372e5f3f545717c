/**
 * Commands that write to the SQLite file `serve` is writing to (issue 33, B): `tidings import` of a large
 * CSV and `tidings account create`, run while a real `serve` answers a steady flood of API saves, as
 * docs/reading-list.md says an import may be. Every row is imported, every account made, exit 0, and every
 * save is answered 200 and kept. Before, a transaction that read and then wrote began DEFERRED, and SQLite
 * answered "database is locked" at once whenever serve committed between its read and its write.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import {
  type CliResult,
  type ServerProcess,
  assertBuilt,
  createAccountViaCli,
  request,
  runCli,
  startServer,
} from '../test/process.js';

assertBuilt();

const work = mkdtempSync(join(tmpdir(), 'tidings-write-load-'));
after(() => rmSync(work, { recursive: true, force: true }));

const CLIENTS = 6;
/** Rows of the CSV: 20 batches of the import's 500, each a transaction that reads, then writes. */
const ROWS = 10_000;
const ACCOUNTS = 4;

interface Flood {
  /** Saves answered 200 so far. */
  acked(): number;
  stop(): Promise<string[]>;
}

/** CLIENTS loops saving new URLs one after another until stopped; stop() gives the URLs saved. */
function flood(server: ServerProcess, apiKey: string): Flood {
  const saved: string[] = [];
  let running = true;
  const client = async (c: number): Promise<void> => {
    for (let i = 0; running; i++) {
      const url = `https://example.org/load/${c}/${i}`;
      const res = await request(`${server.baseUrl}/api/v1/articles?apiKey=${apiKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url, title: `Load ${c}/${i}` }),
      });
      assert.equal(res.status, 200, res.body);
      saved.push(url);
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
  return {
    acked: () => saved.length,
    stop: async () => {
      running = false;
      await Promise.all(clients);
      return saved;
    },
  };
}

/** A Pocket export of `rows` links, none of them saved before. */
function pocketCsv(rows: number): string {
  const lines = ['title,url,time_added,tags,status'];
  for (let i = 0; i < rows; i++) {
    lines.push(
      `Link ${i},https://import.example/${i},${1_600_000_000 + i},t${i % 9},${i % 3 ? 'unread' : 'archive'}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

describe('commands that write while serve writes', () => {
  test(`tidings import of ${ROWS} rows and ${ACCOUNTS} account creates, under a flood of saves: all written, exit 0`, async (t) => {
    const db = join(work, 'tidings.db');
    const { id, apiKey } = await createAccountViaCli(db, 'load');
    const csv = join(work, 'export.csv');
    writeFileSync(csv, pocketCsv(ROWS));
    const server = await startServer({
      databaseUrl: db,
      env: { TIDINGS_WORKER: 'false', TIDINGS_QUEUE_LIMIT: '1000000' },
    });
    const load = flood(server, apiKey);
    let saved: string[];
    let imported: CliResult;
    const creates: CliResult[] = [];
    try {
      while (load.acked() < 200) await new Promise((r) => setTimeout(r, 20));
      const before = load.acked();
      imported = await runCli(
        ['import', '--account', String(id), csv, '--json'],
        { DATABASE_URL: db },
        300_000,
      );
      const during = load.acked() - before;
      for (let n = 0; n < ACCOUNTS; n++) {
        const args = ['account', 'create', '--name', `under load ${n}`, '--json'];
        creates.push(await runCli(args, { DATABASE_URL: db }));
      }
      t.diagnostic(
        `${during} saves answered while the import ran, ${load.acked() - before} while the commands ran`,
      );
      assert.ok(during > 0, 'the import ran while serve was saving');
    } finally {
      saved = await load.stop();
      await server.stop();
    }
    t.diagnostic(`import: exit ${String(imported.code)} ${imported.stdout.trim()}`);
    t.diagnostic(`account create: exit ${creates.map((r) => String(r.code)).join(', ')}`);
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(imported.stderr, '');
    const counts = JSON.parse(imported.stdout) as { rows: number; imported: number; bad: number };
    assert.deepEqual([counts.rows, counts.imported, counts.bad], [ROWS, ROWS, 0]);
    for (const r of creates) assert.equal(r.code, 0, r.stderr);
    const created = creates.map((r) => (JSON.parse(r.stdout) as { id: number }).id);

    const sqlite = new SQLite(db, { fileMustExist: true });
    try {
      const count = (q: string, ...p: unknown[]) => (sqlite.prepare(q).get(...p) as { n: number }).n;
      assert.equal(count('select count(*) as n from reading_list where account_id = ?', id), ROWS);
      assert.equal(count('select count(*) as n from queue_items where account_id = ?', id), saved.length);
      for (const a of created) assert.equal(count('select count(*) as n from accounts where id = ?', a), 1);
      assert.equal(sqlite.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      sqlite.close();
    }
  });
});
