/**
 * `tidings backup FILE --force` never replaces the live database (issue 33, A): not through a linked
 * folder, a hard or symbolic link, nor its -wal, -shm or -journal; nor a directory, a device or a FIFO.
 * Each is refused with exit 2 and a message naming what FILE is, while a real `serve` goes on saving, and
 * the database is untouched: the same files (device and inode), every save there, `integrity_check` ok.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
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

const work = mkdtempSync(join(tmpdir(), 'tidings-backup-targets-'));
const data = join(work, 'data');
const db = join(data, 'tidings.db');
/** A symbolic link to the data folder: `alias/tidings.db` is the database by another path. */
const alias = join(work, 'alias');
const other = join(work, 'other');

const isRoot = process.getuid?.() === 0;

describe('tidings backup refuses every FILE that is the live database or no regular file', () => {
  let server: ServerProcess;
  let apiKey = '';
  let saved = 0;
  /** The database's files as serve has them open: [device, inode] by suffix. */
  let files: Map<string, [number, number]>;

  async function save(): Promise<void> {
    const res = await request(`${server.baseUrl}/api/v1/articles?apiKey=${apiKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `https://example.org/kept/${saved}` }),
    });
    assert.equal(res.status, 200, res.body);
    saved++;
  }

  const identity = (): Map<string, [number, number]> =>
    new Map(
      ['', '-wal', '-shm'].map((suffix) => {
        const st = statSync(db + suffix);
        return [suffix, [st.dev, st.ino]];
      }),
    );

  before(async () => {
    mkdirSync(data);
    mkdirSync(other);
    symlinkSync(data, alias);
    ({ apiKey } = await createAccountViaCli(db, 'targets'));
    server = await startServer({ databaseUrl: db, env: { TIDINGS_WORKER: 'false' } });
    await save(); // serve holds the -wal and -shm from here on
    files = identity();
  });

  after(async () => {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  });

  /** Runs `backup --force FILE` (and without --force), expecting the refusal; then serve still saves. */
  async function refused(file: string, why: string): Promise<void> {
    for (const args of [
      ['backup', '--force', file],
      ['backup', file],
    ]) {
      const r = await runCli(args, { DATABASE_URL: db });
      assert.equal(r.stdout, '', `${args.join(' ')} wrote something`);
      assert.equal(r.stderr, `tidings: ${file} ${why}\n`);
      assert.equal(r.code, 2);
    }
    assert.deepEqual(identity(), files, 'the database files are the same files');
    await save();
  }

  const elsewhere = 'write the backup elsewhere';
  const notRegular = (what: string) =>
    `is ${what}, not a regular file; give the name of a new file or of an earlier copy`;

  test('the database through a symbolically linked folder', async () => {
    await refused(join(alias, 'tidings.db'), `is the database itself; ${elsewhere}`);
  });

  test('its -wal, -shm and -journal, by their own name or through the linked folder', async () => {
    await refused(`${db}-wal`, `is the database's write-ahead log; ${elsewhere}`);
    await refused(join(alias, 'tidings.db-wal'), `is the database's write-ahead log; ${elsewhere}`);
    await refused(`${db}-shm`, `is the database's shared-memory index; ${elsewhere}`);
    await refused(`${db}-journal`, `is the database's rollback journal; ${elsewhere}`);
  });

  test('a hard link to the database or to its -wal, a symbolic link to the database', async () => {
    const hard = join(other, 'hard.db');
    linkSync(db, hard);
    await refused(hard, `is the database itself; ${elsewhere}`);
    const hardWal = join(other, 'hard.db-log');
    linkSync(`${db}-wal`, hardWal);
    await refused(hardWal, `is the database's write-ahead log; ${elsewhere}`);
    const soft = join(other, 'soft.db');
    symlinkSync(db, soft);
    await refused(soft, `is the database itself; ${elsewhere}`);
    assert.ok(lstatSync(soft).isSymbolicLink());
  });

  test('a directory, a FIFO, a dangling symbolic link: refused, left as they are', async () => {
    const dir = join(other, 'folder');
    mkdirSync(dir);
    writeFileSync(join(dir, 'inside'), 'kept');
    await refused(dir, notRegular('a directory'));
    assert.deepEqual(readdirSync(dir), ['inside']);
    const fifo = join(other, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await refused(fifo, notRegular('a FIFO (named pipe)'));
    assert.ok(lstatSync(fifo).isFIFO());
    const dangling = join(other, 'dangling.db');
    symlinkSync(join(work, 'nowhere.db'), dangling);
    await refused(dangling, notRegular('a symbolic link'));
    assert.ok(lstatSync(dangling).isSymbolicLink());
  });

  test(
    'a device node (as root: a node of its own, made like /dev/null)',
    { skip: !isRoot && 'not root' },
    async () => {
      const device = join(other, 'null');
      execFileSync('mknod', [device, 'c', '1', '3']);
      await refused(device, notRegular('a character device'));
      assert.ok(lstatSync(device).isCharacterDevice());
    },
  );

  test("refused in the operator's language (TIDINGS_LANGUAGE), what FILE is named in it", async () => {
    const said = async (file: string, language: string): Promise<string> => {
      const r = await runCli(['backup', file, '--force'], { DATABASE_URL: db, TIDINGS_LANGUAGE: language });
      assert.equal(r.code, 2, r.stderr);
      return r.stderr;
    };
    assert.equal(
      await said(`${db}-wal`, 'de'),
      `tidings: ${db}-wal ist das Write-Ahead-Log der Datenbank; schreibe die Sicherung an einen anderen Ort\n`,
    );
    const dir = join(other, 'dossier');
    mkdirSync(dir);
    assert.equal(
      await said(dir, 'fr'),
      `tidings: ${dir} est un répertoire, pas un fichier ordinaire ; donnez le nom d’un nouveau fichier ou d’une copie précédente\n`,
    );
    assert.equal(
      await said(join(alias, 'tidings.db'), 'ja'),
      `tidings: ${join(alias, 'tidings.db')} はデータベースそのものです。バックアップは別の場所に書き出してください\n`,
    );
    assert.deepEqual(identity(), files, 'the database files are the same files');
  });

  test('another name in the linked folder is a backup as any other', async () => {
    const copy = join(alias, 'copy.db');
    const r = await runCli(['backup', copy], { DATABASE_URL: db });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^Wrote ${copy}: `));
    rmSync(join(data, 'copy.db'));
  });

  test('after it all: every save is there, SQLite finds the database sound, no file left behind', async () => {
    await server.stop();
    const sqlite = new SQLite(db, { fileMustExist: true });
    try {
      assert.equal(sqlite.pragma('integrity_check', { simple: true }), 'ok');
      const { n } = sqlite.prepare('select count(*) as n from queue_items').get() as { n: number };
      assert.equal(n, saved);
    } finally {
      sqlite.close();
    }
    assert.deepEqual(readdirSync(data).sort(), ['tidings.db']);
    assert.deepEqual(
      readdirSync(other).filter((f) => f.endsWith('.tmp')),
      [],
    );
  });
});
