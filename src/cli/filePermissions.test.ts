/**
 * The data folder and the database are their owner's alone, whatever the umask (issue 33, I): under
 * `npm start`'s usual umask 022 SQLite made `./data` 0755 and `tidings.db` 0644 and backups 0644, readable by
 * every local user. Now the folder is created 0700, the database (and so its -wal and -shm) 0600, backup
 * copies 0600. Real processes inherit this test's umask 022; a folder or file that exists keeps its mode.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { assertBuilt, createAccountViaCli, runCli } from '../test/process.js';

assertBuilt();

const work = mkdtempSync(join(tmpdir(), 'tidings-modes-'));
const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

describe('files Tidings creates are private under umask 022', () => {
  let umask = 0;
  before(() => {
    umask = process.umask(0o022);
  });
  after(() => {
    process.umask(umask);
    rmSync(work, { recursive: true, force: true });
  });

  test('the first command makes the data folder 0700 and the database 0600', async () => {
    const data = join(work, 'first', 'data');
    const db = join(data, 'tidings.db');
    await createAccountViaCli(db, 'modes');
    assert.deepEqual([modeOf(join(work, 'first')), modeOf(data), modeOf(db)], ['700', '700', '600']);
  });

  test('the -wal and -shm beside a database in use are 0600 too', async () => {
    const db = join(work, 'wal', 'tidings.db');
    const store = openStore(db);
    try {
      await migrateToLatest(store);
      assert.deepEqual([modeOf(db), modeOf(`${db}-wal`), modeOf(`${db}-shm`)], ['600', '600', '600']);
    } finally {
      await store.close();
    }
  });

  test('backup copies are 0600, new or replacing a file with --force', async () => {
    const db = join(work, 'first', 'data', 'tidings.db');
    const copy = join(work, 'copy.db');
    const made = await runCli(['backup', copy], { DATABASE_URL: db });
    assert.equal(made.code, 0, made.stderr);
    assert.equal(modeOf(copy), '600');
    const older = join(work, 'older.db');
    writeFileSync(older, 'an earlier copy');
    assert.equal(modeOf(older), '644');
    const replaced = await runCli(['backup', '--force', older], { DATABASE_URL: db });
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.equal(modeOf(older), '600');
  });

  test('a data folder and a database that exist keep the modes their owner gave them', async () => {
    const data = join(work, 'shared');
    mkdirSync(data);
    chmodSync(data, 0o750);
    const db = join(data, 'tidings.db');
    await createAccountViaCli(db, 'first');
    chmodSync(db, 0o640);
    await createAccountViaCli(db, 'second');
    assert.deepEqual([modeOf(data), modeOf(db)], ['750', '640']);
  });
});
