/**
 * `tidings account password` as a real process: the password is piped in (never an argument), then the
 * account signs in on the web with it; `--clear` removes it. Both engines.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { type Store, openStore } from '../store/db.js';
import { ENGINES, type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { assertBuilt, createAccountViaCli, runCli } from '../test/process.js';
import { WebClient, webServer } from '../test/webClient.js';

assertBuilt();
const pgSkip = await postgresSkipReason();
const PASSWORD = 'piped in from a script';

for (const engine of ENGINES) {
  describe(
    `tidings account password [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    () => {
      let database: TestDatabase | undefined;
      let store: Store | undefined;
      after(async () => {
        await store?.close();
        await database?.drop();
      });

      test('a password piped in signs in on the web; --clear removes it; never an argument', async () => {
        database = await createTestDatabase(engine);
        const env = { DATABASE_URL: database.url, LOG_LEVEL: 'silent' };
        const { id } = await createAccountViaCli(database.url, `cli reader ${engine}`);
        const args = ['account', 'password', '--account', String(id)];

        const set = await runCli(args, env, 30_000, `${PASSWORD}\nignored second line\n`);
        assert.equal(set.code, 0, set.stderr);
        assert.match(set.stdout, new RegExp(`^Set the password of account ${id}\\.`));
        assert.ok(!`${set.stdout}${set.stderr}`.includes(PASSWORD), 'the password is not echoed');

        store = openStore(database.url);
        const app = webServer(store);
        try {
          const client = new WebClient(app, '10.20.0.1');
          await client.get('/sign-in');
          const res = await client.post('/sign-in/password', {
            identifier: `cli reader ${engine}`,
            password: PASSWORD,
          });
          assert.equal(res.statusCode, 303, res.body);
          assert.equal((await client.get('/queue')).statusCode, 200);

          // Refusals change nothing: nothing piped, a password too short, the password as an argument.
          const empty = await runCli(args, env, 30_000, '');
          assert.equal(empty.code, 2);
          assert.match(empty.stderr, /no password on standard input/);
          const short = await runCli(args, env, 30_000, 'short\n');
          assert.equal(short.code, 2);
          assert.match(short.stderr, /at least 10 characters/);
          const argument = await runCli([...args, 'another password entirely'], env, 30_000, `${PASSWORD}\n`);
          assert.notEqual(argument.code, 0);
          assert.equal((await client.get('/queue')).statusCode, 200, 'still signed in: nothing changed');
          const unknown = await runCli(
            ['account', 'password', '--account', '999999'],
            env,
            30_000,
            `${PASSWORD}\n`,
          );
          assert.notEqual(unknown.code, 0);
          assert.match(unknown.stderr, /no account 999999/);

          const cleared = await runCli([...args, '--clear'], env, 30_000);
          assert.equal(cleared.code, 0, cleared.stderr);
          assert.match(cleared.stdout, /Removed the password/);
          // The browser signed in with it is signed out, and the password no longer works.
          assert.equal((await client.get('/queue')).statusCode, 303);
          await client.get('/sign-in');
          const again = await client.post('/sign-in/password', {
            identifier: `cli reader ${engine}`,
            password: PASSWORD,
          });
          assert.equal(again.statusCode, 401);
        } finally {
          await app.close();
        }
      });
    },
  );
}
