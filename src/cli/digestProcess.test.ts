import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openStore } from '../store/db.js';
import { type TestDatabase, createTestDatabase } from '../test/databases.js';
import { saveUrl } from '../test/digestPipeline.js';
import { assertBuilt, createAccountViaCli, runCli } from '../test/process.js';

/** The built `tidings` binary: exit codes and output of account set and digest run/list/show. */

assertBuilt();

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase('sqlite');
});
after(() => db.drop());

test('tidings account set, digest run --force, list and show as separate processes', async () => {
  const env = { DATABASE_URL: db.url, LOG_LEVEL: 'silent' };
  const { id } = await createAccountViaCli(db.url, 'process');
  const account = String(id);

  const bad = await runCli(['account', 'set', '--account', account, '--time', '24:00'], env);
  assert.equal(bad.code, 2);
  assert.equal(bad.stdout, '');
  assert.match(bad.stderr, /^tidings: --time: must be HH:MM from 00:00 to 23:59, not "24:00"\n$/);

  const set = await runCli(
    ['account', 'set', '--account', account, '--timezone', 'Asia/Kathmandu', '--json'],
    env,
  );
  assert.equal(set.code, 0, set.stderr);
  assert.equal((JSON.parse(set.stdout) as { timezone: string }).timezone, 'Asia/Kathmandu');

  const empty = await runCli(['digest', 'run', '--account', account, '--force'], env);
  assert.equal(empty.code, 0, empty.stderr);
  assert.match(empty.stdout, /the queue is empty, no digest/);
  assert.equal(
    (await runCli(['digest', 'list', '--account', account], env)).stdout,
    `No digests yet for account ${account}.\n`,
  );

  const store = openStore(db.url);
  try {
    await saveUrl(store, id, 'https://process.example/saved', 'Saved from a process test');
  } finally {
    await store.close();
  }
  const built = await runCli(['digest', 'run', '--account', account, '--force'], env);
  assert.equal(built.code, 0, built.stderr);
  const digestId = /built digest (\d+) for (\d{4}-\d{2}-\d{2}) with 1 item\n$/.exec(built.stdout);
  assert.ok(digestId !== null, built.stdout);

  const list = await runCli(['digest', 'list', '--account', account, '--json'], env);
  const line = JSON.parse(list.stdout) as { id: number; date: string; items: number; delivery: string };
  assert.deepEqual(
    [line.id, line.date, line.items, line.delivery],
    [Number(digestId[1]), digestId[2], 1, 'not_emailed'],
  );
  const text = await runCli(['digest', 'show', digestId[1] ?? ''], env);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /Saved from a process test/);
  const missing = await runCli(['digest', 'show', '424242'], env);
  assert.deepEqual([missing.code, missing.stderr], [1, 'tidings: no digest 424242\n']);
});
