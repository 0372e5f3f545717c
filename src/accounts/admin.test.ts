import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { buildDueDigests } from '../digest/build.js';
import { isTidingsError } from '../errors.js';
import { accountById } from '../store/accounts.js';
import { migrateToLatest } from '../store/migrate.js';
import { subscriptionsByFeed } from '../store/subscriptions.js';
import { ENGINES, freshStore, postgresSkipReason, storeMigratedTo } from '../test/databases.js';
import { digestsOf, queueFeedItem, saveUrl, setDueAt, testDigestDeps } from '../test/digestPipeline.js';
import { disableAccount, enableAccount, setAdministrator } from './admin.js';
import { authenticate, operatorAccount } from './authorize.js';
import { createAccountWithKey, ensureFirstAccount } from './service.js';
import { findSession, openSession } from './sessions.js';

/** Administrators, disabling and enabling: the rules of src/accounts/admin.ts, on both engines. */

const pgSkip = await postgresSkipReason();
const refused = (err: unknown): boolean => isTidingsError(err, 'invalid_input');

for (const engine of ENGINES) {
  const opts = { skip: engine === 'postgres' ? pgSkip : undefined };

  await test(`0014 makes the lowest-id existing account the administrator [${engine}]`, opts, async (t) => {
    const store = await storeMigratedTo(t, engine, '0012_feed_skips');
    const at = '2026-11-01T00:00:00.000Z';
    for (const name of ['gone', 'first', 'second']) {
      await sql`insert into accounts (name, timezone, created_at) values (${name}, 'UTC', ${at})`.execute(
        store.db,
      );
    }
    await sql`delete from accounts where name = 'gone'`.execute(store.db);
    await migrateToLatest(store);
    const rows = await sql<{ name: string; is_admin: number; disabled_at: string | null }>`
      select name, is_admin, disabled_at from accounts order by id`.execute(store.db);
    assert.deepEqual(
      rows.rows.map((r) => [r.name, r.is_admin, r.disabled_at]),
      [
        ['first', 1, null],
        ['second', 0, null],
      ],
    );
  });

  await test(
    `the first account made is an administrator, later ones only when asked [${engine}]`,
    opts,
    async (t) => {
      const store = await freshStore(t, engine);
      const first = await ensureFirstAccount(store);
      assert.ok(first !== null);
      assert.equal(first.account.is_admin, true);
      const second = await createAccountWithKey(store, { name: 'Second' });
      assert.equal(second.account.is_admin, false);
      const third = await createAccountWithKey(store, { name: 'Third', admin: true });
      assert.equal(third.account.is_admin, true);

      const other = await freshStore(t, engine);
      assert.equal((await createAccountWithKey(other, { name: 'CLI first' })).account.is_admin, true);
    },
  );

  await test(
    `two accounts made at once on an empty database: exactly one is the administrator [${engine}]`,
    opts,
    async (t) => {
      for (let round = 0; round < 3; round++) {
        const store = await freshStore(t, engine);
        const made = await Promise.all(
          ['One', 'Two', 'Three', 'Four'].map((name) => createAccountWithKey(store, { name })),
        );
        assert.equal(made.filter((m) => m.account.is_admin).length, 1, `round ${round}`);
      }
    },
  );

  await test(
    `disabling: never yourself, never the last administrator; keys, sessions, digests stop [${engine}]`,
    opts,
    async (t) => {
      const store = await freshStore(t, engine);
      const admin = await createAccountWithKey(store, { name: 'Admin' });
      const reader = await createAccountWithKey(store, { name: 'Reader' });
      const now = new Date('2026-11-20T10:00:00.000Z');

      await assert.rejects(disableAccount(store, admin.account.id, { by: admin.account.id }), refused);
      await assert.rejects(disableAccount(store, admin.account.id), /last enabled administrator/);
      await assert.rejects(setAdministrator(store, admin.account.id, false), /last enabled administrator/);
      await assert.rejects(
        setAdministrator(store, admin.account.id, false, { by: admin.account.id }),
        refused,
      );
      await assert.rejects(disableAccount(store, 999_999), (err) => isTidingsError(err, 'not_found'));

      // The reader signs in, saves a link, follows a feed and is due a digest.
      const auth = await authenticate(store, reader.apiKey);
      assert.ok(auth !== null);
      const { token } = await openSession(store, auth, now);
      await saveUrl(store, reader.account.id, 'https://example.org/a');
      const feedId = await queueFeedItem(store, reader.account.id, {
        feedUrl: 'https://feeds.example/disabled.xml',
        feedTitle: 'Feed',
        url: 'https://example.org/b',
        title: 'B',
      });
      await setDueAt(store, reader.account.id, '2026-11-20T07:00:00.000Z');

      const disabled = await disableAccount(store, reader.account.id, { by: admin.account.id, now });
      assert.equal(disabled.disabled_at, now.toISOString());
      assert.equal(await authenticate(store, reader.apiKey), null, 'its keys are refused');
      assert.equal(await findSession(store, token, now), null, 'its session has ended');
      const sessions = await store.db
        .selectFrom('web_sessions')
        .select('id')
        .where('account_id', '=', reader.account.id)
        .execute();
      assert.deepEqual(sessions, []);
      assert.deepEqual(await subscriptionsByFeed(store.db, feedId), [], 'its subscriptions queue nothing');
      const deps = testDigestDeps(store, { now: () => now });
      await buildDueDigests(deps, { accountId: reader.account.id });
      assert.deepEqual(await digestsOf(store, reader.account.id), [], 'no digest is built');
      // The same pass builds an enabled account's digest.
      await saveUrl(store, admin.account.id, 'https://example.org/admin');
      await setDueAt(store, admin.account.id, '2026-11-20T07:00:00.000Z');
      await buildDueDigests(deps, { accountId: admin.account.id });
      assert.equal((await digestsOf(store, admin.account.id)).length, 1);
      // Disabling again changes nothing; the operator still sees the account.
      assert.equal((await disableAccount(store, reader.account.id)).disabled_at, now.toISOString());
      assert.equal(await operatorAccount(store, reader.account.id), reader.account.id);

      const later = new Date('2026-11-25T12:00:00.000Z');
      const enabled = await enableAccount(store, reader.account.id, later);
      assert.equal(enabled.disabled_at, null);
      assert.ok((enabled.digest_due_at ?? '') > later.toISOString(), 'the next digest is after now');
      assert.notEqual(await authenticate(store, reader.apiKey), null);
      assert.equal((await subscriptionsByFeed(store.db, feedId)).length, 1);

      // With a second administrator, the first may be disabled (by the other) and demoted.
      await setAdministrator(store, reader.account.id, true, { by: admin.account.id });
      await disableAccount(store, admin.account.id, { by: reader.account.id });
      await assert.rejects(setAdministrator(store, reader.account.id, false), /last enabled administrator/);
      await enableAccount(store, admin.account.id);
      assert.equal((await setAdministrator(store, admin.account.id, false)).is_admin, false);
      assert.equal((await accountById(store.db, reader.account.id))?.is_admin, true);
    },
  );
}
