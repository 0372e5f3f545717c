/**
 * `tidings … | head -1`: the reader of stdout is gone before the command writes. Every command stops printing
 * quietly and ends with its own exit status (issue 33 point 3), the built CLI and the bundle alike.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, createTestDatabase } from '../test/databases.js';
import {
  APP_MAIN,
  assertBuilt,
  createAccountViaCli,
  request,
  runCli,
  runCliOutputClosed,
  startServer,
} from '../test/process.js';

assertBuilt();

describe('a closed stdout or stderr', () => {
  let database: TestDatabase;
  let account: string;
  before(async () => {
    database = await createTestDatabase('sqlite');
    account = String((await createAccountViaCli(database.url, 'Ada')).id);
  });
  after(() => database.drop());

  const env = (): Record<string, string> => ({ DATABASE_URL: database.url });

  const printing = (): string[][] => [
    ['--help'],
    ['digest', 'run', '--help'],
    ['feed', 'list', '--account', account],
    ['feed', 'list', '--account', account, '--json'],
    ['digest', 'list', '--account', account, '--json'],
    ['digest', 'list', '--account', account],
    ['search', '--account', account, 'anything'],
    ['account', 'list'],
    ['account', 'show', '--account', account, '--json'],
    ['key', 'list', '--account', account],
    ['opml', 'export', '--account', account],
    ['migrate'],
  ];

  test('every printing command exits 0 with nothing on stderr (was: EPIPE, a stack trace, exit 1)', async () => {
    for (const args of printing()) {
      const r = await runCliOutputClosed(args, env());
      assert.deepEqual({ args, code: r.code, stderr: r.stderr }, { args, code: 0, stderr: '' });
    }
  });

  test('the bundle users run behaves the same', async () => {
    for (const args of [['--help'], ['feed', 'list', '--account', account]]) {
      const r = await runCliOutputClosed(args, env(), { main: APP_MAIN });
      assert.deepEqual({ args, code: r.code, stderr: r.stderr }, { args, code: 0, stderr: '' });
    }
  });

  test('the command still does its work: an account made with stdout closed is there', async () => {
    const r = await runCliOutputClosed(['account', 'create', '--name', 'Grace', '--json'], env());
    assert.deepEqual({ code: r.code, stderr: r.stderr }, { code: 0, stderr: '' });
    const listed = await runCli(['account', 'list', '--json'], env());
    assert.equal(listed.code, 0, listed.stderr);
    const lines = listed.stdout.trim().split('\n');
    const names = lines.map((line) => (JSON.parse(line) as { name: string }).name);
    assert.deepEqual(names, ['Ada', 'Grace']);
  });

  test('a failure keeps its own exit status and message when stdout is closed', async () => {
    const r = await runCliOutputClosed(['feed', 'list', '--account', '999'], env());
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'tidings: no account 999\n');
  });

  test('a closed stderr: the usage error still exits 2, quietly', async () => {
    const r = await runCliOutputClosed(['feed', 'list', '--account', 'x'], env(), { close: ['stderr'] });
    assert.equal(r.code, 2);
    const both = await runCliOutputClosed(['no-such-command'], env(), { close: ['stdout', 'stderr'] });
    assert.equal(both.code, 2);
  });

  test('serve with stdout closed prints its first key nowhere and keeps serving', async (t) => {
    const fresh = await createTestDatabase('sqlite');
    t.after(() => fresh.drop());
    const server = await startServer({ databaseUrl: fresh.url, closeStdout: true });
    try {
      assert.equal((await request(`${server.baseUrl}/readyz`)).status, 200);
      assert.doesNotMatch(server.stderr(), /EPIPE/);
      server.child.kill('SIGTERM');
      assert.deepEqual(await server.exited, { code: 0, signal: null });
    } finally {
      await server.stop();
    }
  });
});
