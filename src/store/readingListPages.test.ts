import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { sql } from 'kysely';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { insertReadingItems } from './readingList.js';
import { claimPacedPage, forgetHostLeases, linkReadingItems, restHost } from './readingListPages.js';

/** Host leases: one worker per host at a time, a rest after each read, a crashed worker's host freed late. */

const T0 = Date.parse('2026-11-23T08:00:00.000Z');
const at = (ms: number): string => new Date(T0 + ms).toISOString();
const lease = (owner: string, ms: number) => ({ owner, now: at(ms), leaseUntil: at(ms + 300_000) });

await describeEachEngine('reading-list page claims', (ctx) => {
  beforeEach(async () => {
    for (const table of ['reading_list', 'pages', 'page_host_leases'])
      await sql`delete from ${sql.table(table)}`.execute(ctx.store().db);
  });

  const importLinks = async (urls: readonly string[]): Promise<void> => {
    const { id } = await newAccount(ctx.store());
    await insertReadingItems(
      ctx.store().db,
      id,
      urls.map((url) => ({
        url,
        urlKey: url,
        title: url,
        state: 'unread' as const,
        tags: '',
        savedAt: at(0),
        source: 'pocket' as const,
        description: null,
        author: null,
        publishedAt: null,
        html: null,
        text: null,
      })),
      at(0),
    );
    assert.equal(await linkReadingItems(ctx.store().db, { now: at(0), limit: 500 }), urls.length);
  };

  test('one worker per host; another host is free; the host rests, then is taken again', async () => {
    await importLinks(['https://a.example/1', 'https://a.example/2', 'https://b.example:8443/1']);
    const db = ctx.store().db;
    const first = await claimPacedPage(db, lease('w1', 0));
    const second = await claimPacedPage(db, lease('w2', 0));
    assert.deepEqual([first?.host, second?.host], ['a.example', 'b.example:8443']);
    assert.equal(await claimPacedPage(db, lease('w3', 0)), null, 'a.example is read by w1, b by w2');

    await restHost(db, 'a.example', 'w1', at(10_000));
    await restHost(db, 'a.example', 'w2', at(99_000)); // not w2's: nothing changes
    assert.equal(await claimPacedPage(db, lease('w3', 9_999)), null, 'resting');
    const next = await claimPacedPage(db, lease('w3', 10_000));
    assert.deepEqual([next?.url, next?.attempts, next?.lease_owner], ['https://a.example/2', 1, 'w3']);
  });

  test("a crashed worker's host and page are taken over once their lease ran out", async () => {
    await importLinks(['https://c.example/1']);
    const db = ctx.store().db;
    const crashed = await claimPacedPage(db, lease('gone', 0));
    assert.ok(crashed !== null);
    assert.equal(await claimPacedPage(db, lease('w', 299_999)), null);
    const again = await claimPacedPage(db, lease('w', 300_001));
    assert.deepEqual([again?.id, again?.attempts], [crashed.id, 2]);
    assert.equal(await forgetHostLeases(db, at(300_001)), 0, "w's lease lives");
    await restHost(db, 'c.example', 'w', at(310_000));
    assert.equal(await forgetHostLeases(db, at(310_000)), 1);
  });

  test('a page the queue comes to want, or read meanwhile, is not claimed here', async () => {
    await importLinks(['https://d.example/1', 'https://e.example/1']);
    const db = ctx.store().db;
    await db.updateTable('pages').set({ paced: 0 }).where('host', '=', 'd.example').execute();
    await db.updateTable('pages').set({ state: 'read' }).where('host', '=', 'e.example').execute();
    assert.equal(await claimPacedPage(db, lease('w', 0)), null);
  });
});
