import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { describeClearedEmail, sharedEmailsCleared } from '../accounts/service.js';
import { ENGINES, postgresSkipReason, storeMigratedTo } from '../test/databases.js';
import { migrateToLatest } from './migrate.js';

/**
 * 0026 on a database where accounts share e-mail addresses (in different cases): every account is kept,
 * the address stays with the oldest that has it and is cleared on the others, which is recorded for the
 * operator; then the unique index refuses another duplicate.
 */
const pgSkip = await postgresSkipReason();
for (const engine of ENGINES) {
  await test(
    `0026_unique_email_opml_imports resolves shared addresses without losing an account [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0024_notify_queue_moves');
      const at = '2026-11-01T00:00:00.000Z';
      const accounts: [string, string | null][] = [
        ['first', 'Shared@Example.org'],
        ['second', 'shared@example.org'],
        ['alone', 'alone@example.org'],
        ['third', 'SHARED@example.org'],
        ['none', null],
        ['blank', '  '],
        ['also none', null],
        ['pair a', 'pair@example.org'],
        ['pair b', 'pair@example.org'],
      ];
      for (const [name, email] of accounts) {
        await sql`insert into accounts (name, email, timezone, created_at) values (${name}, ${email}, 'UTC', ${at})`.execute(
          store.db,
        );
      }
      await sql`insert into queue_items (account_id, url, url_key, title, source, created_at, updated_at)
        values (2, 'https://kept.example/', 'k', 'Kept', 'api', ${at}, ${at})`.execute(store.db);

      await migrateToLatest(store);

      const rows = await store.db
        .selectFrom('accounts')
        .select(['id', 'name', 'email'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.name, r.email]),
        [
          ['first', 'Shared@Example.org'],
          ['second', null],
          ['alone', 'alone@example.org'],
          ['third', null],
          ['none', null],
          ['blank', null],
          ['also none', null],
          ['pair a', 'pair@example.org'],
          ['pair b', null],
        ],
      );
      const queued = await store.db.selectFrom('queue_items').select('account_id').execute();
      assert.deepEqual(
        queued.map((q) => q.account_id),
        [2],
        'a cleared account keeps its queue',
      );

      const cleared = await sharedEmailsCleared(store);
      assert.deepEqual(cleared, [
        { account: 2, name: 'second', email: 'shared@example.org', keptBy: 1 },
        { account: 4, name: 'third', email: 'SHARED@example.org', keptBy: 1 },
        { account: 9, name: 'pair b', email: 'pair@example.org', keptBy: 8 },
      ]);
      assert.equal(
        describeClearedEmail(cleared[0] ?? assert.fail()),
        'account 2 (second) no longer has the e-mail address shared@example.org: account 1 had it first (migration 0026)',
      );

      await assert.rejects(
        sql`update accounts set email = 'ALONE@example.org' where id = 2`.execute(store.db),
        'the unique index holds on lower(email)',
      );
      await sql`update accounts set email = null where id = 3`.execute(store.db);
      await sql`update accounts set email = 'ALONE@example.org' where id = 2`.execute(store.db);
    },
  );
}
