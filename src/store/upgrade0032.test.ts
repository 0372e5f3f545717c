import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { ENGINES, postgresSkipReason, storeMigratedTo } from '../test/databases.js';
import { accountById } from './accounts.js';
import { claimDueEreaderCopies } from './ereaderDeliveries.js';
import { migrateToLatest } from './migrate.js';

/** 0032: accounts have no e-reader address, digests built before have no e-reader copy (nothing is sent). */
const pgSkip = await postgresSkipReason();
for (const engine of ENGINES) {
  await test(
    `0032_ereader_email upgrades accounts and digests made before [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0031_reading_list');
      const at = '2026-11-01T00:00:00.000Z';
      await sql`insert into accounts (name, email, timezone, created_at) values ('old', 'old@example.org', 'UTC', ${at})`.execute(
        store.db,
      );
      await sql`insert into digests (id, account_id, local_date, created_at, item_count, remaining, delivery, message_id)
        values (1, 1, '2026-11-01', ${at}, 0, 0, 'sent', '<digest.1.x@tidings.example>')`.execute(store.db);
      await migrateToLatest(store);
      assert.equal((await accountById(store.db, 1))?.ereader_email, null);
      const digest = await store.db.selectFrom('digests').selectAll().executeTakeFirstOrThrow();
      assert.deepEqual(
        [digest.delivery, digest.ereader_state, digest.ereader_attempts, digest.ereader_next_attempt_at],
        ['sent', null, 0, null],
      );
      const claimed = await claimDueEreaderCopies(store.db, engine, {
        owner: 'w',
        now: '2026-12-01T00:00:00.000Z',
        leaseUntil: '2026-12-01T00:05:00.000Z',
        limit: 10,
      });
      assert.deepEqual(claimed, []);
    },
  );
}
