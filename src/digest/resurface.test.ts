import assert from 'node:assert/strict';
import { test } from 'node:test';
import { updateAccountSettings } from '../store/accounts.js';
import { transaction } from '../store/precompiled.js';
import { resurfaceCandidates, setKeptForTomorrow } from '../store/readingListOffers.js';
import {
  TestClock,
  digestsOf,
  itemsOf,
  queueFeedItem,
  saveUrl,
  setDueAt,
  testDigestDeps,
} from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { addReadingItems, offerMarks, offeredUrls } from '../test/readingFixtures.js';
import { buildBatch } from './batch.js';
import { buildDigestNow, buildDueDigests } from './build.js';

/**
 * "From your reading list" (issue 27, point 3) as the build makes it: how many, which, in which order, how
 * they rotate from one digest to the next, that the section never changes what the digest takes from the
 * queue, and that a digest is built, and its items marked, once.
 */

const DAY = 24 * 60 * 60_000;

/** Seven unread items saved a month apart, oldest first (r1 oldest), and an archived one older still. */
const seven = (n: number) => [
  {
    url: `https://old${n}.example/archived`,
    savedAt: '2015-01-01T00:00:00.000Z',
    state: 'archived' as const,
  },
  ...[1, 2, 3, 4, 5, 6, 7].map((i) => ({
    url: `https://r${i}.example/${n}`,
    title: `Read ${i}`,
    savedAt: `2019-0${i}-01T00:00:00.000Z`,
  })),
];

await describeEachEngine('resurfacing the reading list', (ctx) => {
  const store = () => ctx.store();

  /** Builds the account's digest for the clock's day (a saved link in the queue, so there is a digest). */
  async function digestOfDay(accountId: number, clock: TestClock, queueSomething = true) {
    if (queueSomething) await saveUrl(store(), accountId, `https://own.example/${clock.now().getTime()}`);
    await setDueAt(store(), accountId, clock.now().toISOString());
    const [outcome] = await buildDueDigests(testDigestDeps(store(), { now: clock.now }), { accountId });
    clock.advance(DAY);
    return outcome;
  }
  const urlsOf = (ids: readonly string[]) => ids.map((u) => new URL(u).hostname.split('.')[0] ?? '');

  test('by default a digest offers the 3 oldest unread items and marks them offered', async () => {
    const account = await newAccount(store());
    await addReadingItems(store(), account.id, seven(account.id));
    const clock = new TestClock('2026-11-23T07:00:00Z');
    const outcome = await digestOfDay(account.id, clock);
    assert.equal(outcome?.status, 'built');
    const [digest] = await digestsOf(store(), account.id);
    assert.ok(digest !== undefined);
    assert.deepEqual(urlsOf(await offeredUrls(store(), digest.id)), ['r1', 'r2', 'r3']);
    const marks = await offerMarks(store(), account.id);
    assert.deepEqual(marks.get(`https://r1.example/${account.id}`), [1, '2026-11-23T07:00:00.000Z', null]);
    assert.deepEqual(marks.get(`https://r4.example/${account.id}`), [0, null, null]);
    assert.deepEqual(
      marks.get(`https://old${account.id}.example/archived`),
      [0, null, null],
      'never archived',
    );
    // The digest's own items are what choose.ts took: the section takes no position among them.
    assert.deepEqual(
      (await itemsOf(store(), digest.id)).map((i) => i.source),
      ['api'],
    );
    assert.equal(digest.item_count, 1);
  });

  test('0 turns the section off: nothing offered, nothing marked', async () => {
    const account = await newAccount(store());
    await addReadingItems(store(), account.id, seven(account.id));
    await updateAccountSettings(store().db, account.id, { resurfaceCount: 0 });
    const clock = new TestClock('2026-11-23T07:00:00Z');
    assert.equal((await digestOfDay(account.id, clock))?.status, 'built');
    const [digest] = await digestsOf(store(), account.id);
    assert.ok(digest !== undefined);
    assert.deepEqual(await offeredUrls(store(), digest.id), []);
    assert.ok([...(await offerMarks(store(), account.id)).values()].every(([count]) => count === 0));
  });

  test('items rotate: never-offered first, then the least recently offered; kept ones come back first', async () => {
    const account = await newAccount(store());
    const ids = await addReadingItems(store(), account.id, seven(account.id));
    const clock = new TestClock('2026-11-23T07:00:00Z');
    const days: string[][] = [];
    for (let day = 0; day < 3; day++) {
      await digestOfDay(account.id, clock);
      const digests = await digestsOf(store(), account.id);
      days.push(urlsOf(await offeredUrls(store(), digests.at(-1)?.id ?? 0)));
    }
    assert.deepEqual(days, [
      ['r1', 'r2', 'r3'],
      ['r4', 'r5', 'r6'],
      ['r7', 'r1', 'r2'],
    ]);
    // "Keep for tomorrow" on r5 (offered on day 2): tomorrow's digest offers it before any other.
    const r5 = ids[5] ?? 0;
    assert.ok(await setKeptForTomorrow(store().db, account.id, r5, clock.now().toISOString()));
    await digestOfDay(account.id, clock);
    const fourth = await digestsOf(store(), account.id);
    assert.deepEqual(urlsOf(await offeredUrls(store(), fourth.at(-1)?.id ?? 0)), ['r5', 'r3', 'r4']);
    const marks = await offerMarks(store(), account.id);
    assert.deepEqual(marks.get(`https://r5.example/${account.id}`)?.[0], 2);
    assert.equal(
      marks.get(`https://r5.example/${account.id}`)?.[2],
      null,
      'the mark is cleared once offered',
    );
    assert.equal(marks.get(`https://r1.example/${account.id}`)?.[0], 2);
  });

  test("'random' shuffles by day, the same every time for a day; resurface_count is the size", async () => {
    const account = await newAccount(store());
    const items = Array.from({ length: 40 }, (_, i) => ({
      url: `https://rand${i}.example/${account.id}`,
      savedAt: new Date(Date.UTC(2018, 0, 1 + i)).toISOString(),
    }));
    await addReadingItems(store(), account.id, items);
    const pick = (seed: number) =>
      resurfaceCandidates(store().db, account.id, { count: 5, order: 'random', seed });
    const oldest = await resurfaceCandidates(store().db, account.id, { count: 5, order: 'oldest', seed: 1 });
    assert.deepEqual(await pick(12345), await pick(12345), 'the same seed, the same pick');
    assert.notDeepEqual(await pick(12345), oldest);
    assert.notDeepEqual(await pick(12345), await pick(777));
    assert.equal(new Set(await pick(12345)).size, 5);

    await updateAccountSettings(store().db, account.id, { resurfaceCount: 5, resurfaceOrder: 'random' });
    const clock = new TestClock('2026-11-23T07:00:00Z');
    await digestOfDay(account.id, clock);
    const [digest] = await digestsOf(store(), account.id);
    const offered = await offeredUrls(store(), digest?.id ?? 0);
    assert.equal(offered.length, 5);
    assert.notDeepEqual(
      offered,
      items.slice(0, 5).map((i) => i.url),
      'not the oldest five',
    );
  });

  test('the section changes nothing of what the digest takes: own links and feed shares are the same', async () => {
    const withList = await newAccount(store());
    const without = await newAccount(store());
    await addReadingItems(store(), withList.id, seven(withList.id));
    await updateAccountSettings(store().db, without.id, { resurfaceCount: 0 });
    await addReadingItems(store(), without.id, seven(without.id));
    const clock = new TestClock('2026-11-23T07:00:00Z');
    for (const account of [withList, without]) {
      await updateAccountSettings(store().db, account.id, { digestMaxItems: 2 });
      for (const i of [1, 2, 3]) await saveUrl(store(), account.id, `https://mine.example/${i}`, `Mine ${i}`);
      for (let i = 1; i <= 6; i++) {
        await queueFeedItem(store(), account.id, {
          feedUrl: `https://busy${account.id}.example/feed.xml`,
          feedTitle: 'Busy feed',
          url: `https://busy.example/${i}`,
          title: `Busy story number ${i} about ${['cats', 'dogs', 'owls', 'fish', 'bees', 'ants'][i - 1]}`,
          published: clock.now().toISOString(),
        });
      }
      await setDueAt(store(), account.id, clock.now().toISOString());
    }
    await buildDueDigests(testDigestDeps(store(), { now: clock.now }));
    const shape = async (accountId: number) => {
      const [digest] = await digestsOf(store(), accountId);
      assert.ok(digest !== undefined);
      const items = await itemsOf(store(), digest.id);
      return {
        counts: [digest.item_count, digest.saved_count, digest.remaining, digest.shown_count],
        items: items.map((i) => [i.position, i.url, i.section, i.shown, i.story_of]),
        offered: (await offeredUrls(store(), digest.id)).length,
      };
    };
    const a = await shape(withList.id);
    const b = await shape(without.id);
    assert.deepEqual([a.offered, b.offered], [3, 0]);
    assert.deepEqual(a.items, b.items);
    assert.deepEqual(a.counts, b.counts);
    assert.deepEqual(a.counts.slice(0, 3), [8, 2, 1], 'two own links taken, one waits; six feed items');
  });

  test('reading-list items alone make no digest for an account that skips empty ones', async () => {
    const account = await newAccount(store());
    await addReadingItems(store(), account.id, seven(account.id));
    const clock = new TestClock('2026-11-23T07:00:00Z');
    assert.equal((await digestOfDay(account.id, clock, false))?.status, 'empty');
    assert.deepEqual(await digestsOf(store(), account.id), []);
    assert.ok([...(await offerMarks(store(), account.id)).values()].every(([count]) => count === 0));
    // An account that wants a digest every day gets its (empty) digest with the section.
    await updateAccountSettings(store().db, account.id, { digestSkipEmpty: false });
    assert.equal((await digestOfDay(account.id, clock, false))?.status, 'built');
    const [digest] = await digestsOf(store(), account.id);
    assert.ok(digest !== undefined);
    assert.equal(digest.item_count, 0);
    assert.deepEqual(urlsOf(await offeredUrls(store(), digest.id)), ['r1', 'r2', 'r3']);
  });

  test('a digest is built once: building the same day again offers and marks nothing more', async () => {
    const account = await newAccount(store());
    await addReadingItems(store(), account.id, seven(account.id));
    const clock = new TestClock('2026-11-23T07:00:00Z');
    const deps = testDigestDeps(store(), { now: clock.now });
    await saveUrl(store(), account.id, 'https://own.example/once');
    const first = await buildDigestNow(deps, account.id);
    assert.equal(first.status, 'built');
    await saveUrl(store(), account.id, 'https://own.example/twice');
    const again = await buildDigestNow(deps, account.id);
    assert.equal(again.status, 'exists');
    const counts = [...(await offerMarks(store(), account.id)).values()].map(([count]) => count);
    assert.deepEqual(
      counts.sort((x, y) => x - y),
      [0, 0, 0, 0, 0, 1, 1, 1],
    );
    const rows = await store().db.selectFrom('digest_reading_items').selectAll().execute();
    assert.equal(rows.filter((r) => r.digest_id === first.digestId).length, 3);
  });

  test('a build rolled back marks nothing; built again, it picks the same items (random too)', async () => {
    const account = await newAccount(store());
    await addReadingItems(
      store(),
      account.id,
      Array.from({ length: 30 }, (_, i) => ({
        url: `https://again${i}.example/${account.id}`,
        savedAt: new Date(Date.UTC(2017, 0, 1 + i)).toISOString(),
      })),
    );
    await updateAccountSettings(store().db, account.id, { resurfaceOrder: 'random' });
    await saveUrl(store(), account.id, 'https://own.example/rolled-back');
    const now = new Date('2026-11-23T07:00:00Z');
    const deps = testDigestDeps(store(), { now: () => now });
    let pickedInside: string[] = [];
    await assert.rejects(
      transaction(store().db, async (trx) => {
        const [outcome] = await buildBatch(trx, deps, [account.id], { kind: 'now' }, now);
        assert.equal(outcome?.status, 'built');
        const rows = await trx
          .selectFrom('digest_reading_items as o')
          .innerJoin('reading_list as r', 'r.id', 'o.reading_id')
          .select('r.url')
          .where('r.account_id', '=', account.id)
          .orderBy('o.position')
          .execute();
        pickedInside = rows.map((r) => r.url);
        throw new Error('the database went away');
      }),
      /went away/,
    );
    assert.equal(pickedInside.length, 3);
    assert.deepEqual(await digestsOf(store(), account.id), []);
    assert.ok([...(await offerMarks(store(), account.id)).values()].every(([count]) => count === 0));
    const built = await buildDigestNow(deps, account.id);
    assert.equal(built.status, 'built');
    assert.deepEqual(await offeredUrls(store(), built.digestId), pickedInside);
  });

  test('an item deleted from the reading list leaves the digests that offered it', async () => {
    const account = await newAccount(store());
    const ids = await addReadingItems(store(), account.id, seven(account.id));
    const clock = new TestClock('2026-11-23T07:00:00Z');
    await digestOfDay(account.id, clock);
    const [digest] = await digestsOf(store(), account.id);
    await store()
      .db.deleteFrom('reading_list')
      .where('id', '=', ids[1] ?? 0)
      .execute();
    assert.deepEqual(urlsOf(await offeredUrls(store(), digest?.id ?? 0)), ['r2', 'r3']);
  });
});
