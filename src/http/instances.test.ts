import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { disableAccount } from '../accounts/admin.js';
import { issueKey, revokeAnyKey } from '../accounts/apiKeys.js';
import type { AccountId } from '../lib/authorized.js';
import { removeQueuedItem } from '../queue/remove.js';
import { type Store, openStore } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { queuedItemsPage } from '../queue/reads.js';
import { A, assertError, codes } from '../test/apiClient.js';
import { ENGINES, type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { newAccount, testServer } from '../test/harness.js';

/**
 * Two instances (two stores, two servers) on one database. On PostgreSQL each caches keys and queue
 * versions and learns of the other's changes by LISTEN/NOTIFY (store/changeFeed.ts); on SQLite nothing
 * is cached, and the other store's changes are seen at once.
 */
const pgSkip = await postgresSkipReason();

for (const engine of ENGINES) {
  await describe(
    `two instances on one database [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    () => {
      let db: TestDatabase;
      let one: Store;
      let two: Store;
      let app1: FastifyInstance;
      let app2: FastifyInstance;
      let admin: pg.Client | undefined;

      before(async () => {
        db = await createTestDatabase(engine);
        // A reconnection that waits long enough for the test to see the instance without its listener.
        const options = { changeFeed: { backoffMs: { first: 1500, max: 1500 } } };
        one = openStore(db.url, options);
        two = openStore(db.url, options);
        await migrateToLatest(one);
        await newAccount(one); // the first account is the administrator; the tests disable others
        app1 = testServer(one);
        app2 = testServer(two);
        if (engine === 'postgres') {
          admin = new pg.Client({ connectionString: db.url });
          await admin.connect();
        }
      });
      after(async () => {
        await app1.close();
        await app2.close();
        await admin?.end();
        await one.close();
        await two.close();
        await db.drop();
      });

      const get = (app: FastifyInstance, key: string) =>
        app.inject({ method: 'GET', url: `${A}?apiKey=${key}` });
      const urls = async (app: FastifyInstance, key: string): Promise<string[]> => {
        const res = await get(app, key);
        assert.equal(res.statusCode, 200, res.body);
        return res.json<{ url: string }[]>().map((i) => i.url);
      };
      const save = async (app: FastifyInstance, key: string, url: string): Promise<void> => {
        const res = await app.inject({ method: 'POST', url: `${A}?apiKey=${key}`, payload: { url } });
        assert.equal(res.statusCode, 200, res.body);
      };
      const secondKey = async (accountId: AccountId, name: string) => {
        const issued = await issueKey(one, accountId, name);
        assert.ok(issued !== null);
        return { key: issued.apiKey, info: issued.keyInfo };
      };
      /** Every change committed so far is known to the instance (PostgreSQL), which now trusts its cache. */
      const synced = async (store: Store): Promise<void> => {
        await store.changes?.whenSynced();
      };
      /**
       * The second instance has read this key and its queue since it began listening, and knows every
       * change since: both are cached and trusted.
       */
      const warm = async (key: string, expected: string[]): Promise<void> => {
        await synced(two);
        assert.deepEqual(await urls(app2, key), expected);
        await synced(two); // and past its own write (the key's last use)
      };
      const post = (app: FastifyInstance, key: string, url: string) =>
        app.inject({ method: 'POST', url: `${A}?apiKey=${key}`, payload: { url } });
      /** Polls until the instance refuses the key (to a GET, or to a save); how long that took after `since`. */
      const refusedAfter = async (
        app: FastifyInstance,
        key: string,
        since: number,
        method: 'GET' | 'POST' = 'GET',
      ): Promise<number> => {
        for (let n = 0; ; n++) {
          const res =
            method === 'GET' ? await get(app, key) : await post(app, key, `https://example.com/try-${n}`);
          if (res.statusCode === 401) {
            assertError(res, 401, codes.key_invalid);
            return Date.now() - since;
          }
          assert.equal(res.statusCode, 200, res.body);
          assert.ok(Date.now() - since < 3000, 'still accepted after 3 s');
          await new Promise((r) => setTimeout(r, 10));
        }
      };

      const pgAdmin = (): pg.Client => {
        assert.ok(admin !== undefined, 'PostgreSQL only');
        return admin;
      };
      /**
       * Answers a GET while another connection holds every table authentication and the queue read touch
       * (PostgreSQL): the answer can only come from the instance's memory.
       */
      const answersWithoutDatabase = async (app: FastifyInstance, key: string, expected: string[]) => {
        const admin = pgAdmin();
        await admin.query('begin');
        try {
          await admin.query('lock table api_keys, accounts, queue_items in access exclusive mode');
          const res = await Promise.race([
            get(app, key),
            new Promise<never>((_, reject) =>
              setTimeout(() => reject(new Error('the GET waited for the database')), 2000),
            ),
          ]);
          assert.equal(res.statusCode, 200, res.body);
          assert.deepEqual(
            res.json<{ url: string }[]>().map((i) => i.url),
            expected,
          );
        } finally {
          await admin.query('rollback');
        }
      };

      test('a GET in the steady state is answered from memory on PostgreSQL; SQLite caches nothing', async () => {
        const { apiKey } = await newAccount(one);
        await save(app1, apiKey, 'https://example.com/steady');
        await warm(apiKey, ['https://example.com/steady']);
        if (engine === 'sqlite') {
          assert.equal(two.changes, null);
          return;
        }
        await answersWithoutDatabase(app2, apiKey, ['https://example.com/steady']);
      });

      test('a save checks its key from memory while saves, here or elsewhere, move the queue (PostgreSQL)', async () => {
        const { apiKey } = await newAccount(one);
        await warm(apiKey, []);
        await save(app2, apiKey, 'https://example.com/moves-1'); // from memory, then its own write
        await save(app1, apiKey, 'https://example.com/moves-2'); // another instance's: a notice
        await synced(two);
        if (engine === 'sqlite') return;
        const admin = pgAdmin();
        await admin.query('begin');
        try {
          // The key's table is held: a look-up of the key would wait. The save itself does not touch it.
          await admin.query('lock table api_keys in access exclusive mode');
          const res = await Promise.race([
            post(app2, apiKey, 'https://example.com/moves-3'),
            new Promise<never>((_, reject) =>
              setTimeout(() => reject(new Error('the save waited to read its key')), 2000),
            ),
          ]);
          assert.equal(res.statusCode, 200, res.body);
        } finally {
          await admin.query('rollback');
        }
        assert.deepEqual(await urls(app1, apiKey), [
          'https://example.com/moves-1',
          'https://example.com/moves-2',
          'https://example.com/moves-3',
        ]);
      });

      test('a key revoked through one instance is refused by the other within 1 s, to a save too', async () => {
        const account = await newAccount(one);
        const other = await secondKey(account.id, 'second');
        await warm(other.key, []);
        await save(app2, other.key, 'https://example.com/kept'); // the key cached for saves
        await synced(two);
        const start = Date.now();
        assert.ok((await revokeAnyKey(one, other.info.id))?.revoked);
        const tookSave = await refusedAfter(app2, other.key, start, 'POST');
        assert.ok(tookSave < 1000, `a save refused after ${tookSave} ms`);
        const took = await refusedAfter(app2, other.key, start);
        assert.ok(took < 1000, `refused after ${took} ms`);
        if (engine === 'sqlite') assert.ok(took < 100, `SQLite reads every time; took ${took} ms`);
        await synced(two);
        assertError(await get(app2, other.key), 401, codes.key_invalid);
        // Its other key still works (saves the revoked key made before its notice came were accepted: within 1 s).
        assert.ok((await urls(app2, account.apiKey)).includes('https://example.com/kept'));
      });

      test('a queue changed on one instance is served fresh by the other once notified, and at once by itself', async () => {
        const { apiKey, id } = await newAccount(one);
        await save(app1, apiKey, 'https://example.com/first');
        await warm(apiKey, ['https://example.com/first']);
        await save(app1, apiKey, 'https://example.com/second');
        await synced(two); // the save's answer has come and its notice reached the other instance
        assert.deepEqual(await urls(app2, apiKey), [
          'https://example.com/first',
          'https://example.com/second',
        ]);

        // The instance that saved serves its own change right after its answer, without waiting for a notice.
        for (let i = 0; i < 20; i++) {
          await save(app2, apiKey, `https://example.com/own-${i}`);
          assert.equal((await urls(app2, apiKey)).at(-1), `https://example.com/own-${i}`);
        }

        // A change from elsewhere than the API (the web app's remove) is notified the same way.
        const [item] = (await queuedItemsPage(one, id, { offset: 0, limit: 1 })).items.map((i) => i.id);
        assert.ok(item !== undefined);
        assert.ok(await removeQueuedItem(one, id, item));
        await synced(two);
        assert.equal((await urls(app2, apiKey))[0], 'https://example.com/second');
      });

      test('an account disabled through one instance is refused by the other within 1 s, to a save too', async () => {
        const { apiKey, id } = await newAccount(one);
        await warm(apiKey, []);
        await save(app2, apiKey, 'https://example.com/before-disabled');
        await synced(two);
        const start = Date.now();
        await disableAccount(one, id);
        const tookSave = await refusedAfter(app2, apiKey, start, 'POST');
        assert.ok(tookSave < 1000, `a save refused after ${tookSave} ms`);
        const took = await refusedAfter(app2, apiKey, start);
        assert.ok(took < 1000, `refused after ${took} ms`);
      });

      // PostgreSQL only: SQLite has no listening connection.
      if (engine === 'postgres')
        test('without its listening connection an instance makes the round trips, then reconnects and resynchronises', async () => {
          const feed = two.changes;
          assert.ok(feed !== null);
          const { apiKey, id } = await newAccount(one);
          const spare = await secondKey(id, 'spare');
          const third = await secondKey(id, 'third');
          await save(app1, apiKey, 'https://example.com/before');
          await warm(spare.key, ['https://example.com/before']);
          await answersWithoutDatabase(app2, spare.key, ['https://example.com/before']);
          assert.ok(feed.listening);

          const killed = await pgAdmin().query(
            `select pg_terminate_backend(pid) from pg_stat_activity
         where application_name = 'tidings-changes' and datname = current_database()`,
          );
          assert.equal(killed.rowCount, 2); // both instances' listeners
          const start = Date.now();
          const listening = (): boolean => feed.listening;
          while (listening()) {
            assert.ok(Date.now() - start < 1000, 'the lost connection went unnoticed');
            await new Promise((r) => setTimeout(r, 5));
          }
          // Down (it retries in 1.5 s here): changes are not notified, yet every answer is fresh.
          assert.ok((await revokeAnyKey(one, spare.info.id))?.revoked);
          assertError(await get(app2, spare.key), 401, codes.key_invalid);
          await save(app1, apiKey, 'https://example.com/during');
          assert.deepEqual(await urls(app2, apiKey), [
            'https://example.com/before',
            'https://example.com/during',
          ]);
          assert.ok(!feed.listening, 'reconnected before the test could see the fallback');

          await synced(two); // reconnected, everything cached dropped, then a barrier came back
          assert.ok(feed.listening);
          assert.deepEqual(await urls(app2, apiKey), [
            'https://example.com/before',
            'https://example.com/during',
          ]);
          await synced(two);
          await answersWithoutDatabase(app2, apiKey, [
            'https://example.com/before',
            'https://example.com/during',
          ]);
          // And notices arrive again.
          assert.ok((await revokeAnyKey(one, third.info.id))?.revoked);
          await synced(two);
          assertError(await get(app2, third.key), 401, codes.key_invalid);
        });
    },
  );
}
