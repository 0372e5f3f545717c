/**
 * Writes that fail for want of disk space (issue 25, F6), in process, on both engines: a save is answered
 * 503 with Retry-After and the disk-full message, /readyz is 503 while a probe write fails and 200 once it
 * goes through. On PostgreSQL the server's own 53100 (disk_full) is raised by a trigger, the way a full
 * disk fails an insert; on SQLite SQLITE_FULL comes from a page limit (max_page_count). A real full disk
 * under a real `tidings serve` is cli/diskFull.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';

const DISK_FULL_TRIGGER = sql`
  create or replace function tidings_test_disk_full() returns trigger language plpgsql as $$
  begin raise exception 'could not extend file: No space left on device' using errcode = '53100'; end $$;
  create trigger tidings_test_disk_full before insert or update on queue_items
    for each row execute function tidings_test_disk_full();
  create trigger tidings_test_disk_full before insert or update on meta
    for each row execute function tidings_test_disk_full();`;

await describeEachEngine('writes failing for want of disk space', (ctx) => {
  test('a save is 503 with Retry-After; /readyz is 503 until a write goes through again', async () => {
    const store = ctx.store();
    const app = testServer(store);
    const { apiKey } = await newAccount(store);
    const save = (n: number) =>
      app.inject({
        method: 'POST',
        url: `/api/v1/articles?apiKey=${apiKey}`,
        payload: { url: `https://full.example/${n}`, title: `${n} ${'x'.repeat(400)}` },
      });
    try {
      assert.equal((await save(0)).statusCode, 200);
      if (ctx.engine === 'postgres') await sql`${DISK_FULL_TRIGGER}`.execute(store.db);
      else {
        const { rows } = await sql<{ n: number }>`select page_count as n from pragma_page_count()`.execute(
          store.db,
        );
        await sql.raw(`pragma max_page_count = ${rows[0]?.n ?? 0}`).execute(store.db);
      }
      let refused = 0;
      for (let n = 1; n <= 40; n++) {
        const res = await save(n);
        if (res.statusCode === 200) continue;
        refused++;
        assert.equal(res.statusCode, 503, res.body);
        assert.equal(res.headers['retry-after'], '5');
        assert.deepEqual(res.json(), {
          code: 50301,
          message: 'the database cannot write: its disk is full; try again later',
        });
      }
      assert.ok(refused > 0, 'saves were refused');
      if (ctx.engine === 'postgres') {
        // The probe write fails as the saves do.
        const unready = await app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(unready.statusCode, 503, unready.body);
        assert.equal(unready.headers['retry-after'], '5');
        assert.match(unready.json<{ message: string }>().message, /disk is full/);
        await sql`drop trigger tidings_test_disk_full on queue_items;
          drop trigger tidings_test_disk_full on meta`.execute(store.db);
      } else {
        await sql.raw('pragma max_page_count = 1073741823').execute(store.db);
      }
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200, ready.body);
      assert.equal((await save(41)).statusCode, 200);
      const probe = await store.db
        .selectFrom('meta')
        .select('value')
        .where('key', '=', 'write_probe')
        .executeTakeFirst();
      assert.ok(probe !== undefined, '/readyz wrote its probe');
    } finally {
      await app.close();
    }
  });
});
