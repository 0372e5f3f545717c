import assert from 'node:assert/strict';
import { strToU8 } from 'fflate';
import { test } from 'node:test';
import { operatorAccount } from '../accounts/authorize.js';
import { searchAccount } from '../accounts/search.js';
import { isTidingsError } from '../errors.js';
import { readingListCounts, readingListPage, setReadingState } from '../store/readingList.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { importReadingList } from './importLinks.js';
import { fixture, omnivoreZip, pocketZip } from './testdata/fixtures.js';

await describeEachEngine('reading-list import', (ctx) => {
  const account = async () => operatorAccount(ctx.store(), (await newAccount(ctx.store())).id);
  const items = async (accountId: number, filter = {}) =>
    (await readingListPage(ctx.store().db, accountId, filter, { limit: 100, offset: 0 })).items;

  test('Pocket CSV: counts, duplicates merged, bad rows reported; run again changes nothing', async () => {
    const id = await account();
    const counts = await importReadingList(ctx.store(), id, fixture('pocket.csv'));
    assert.deepEqual(
      { ...counts, badExamples: counts.badExamples.map((b) => b.where) },
      {
        format: 'pocket',
        rows: 6,
        imported: 3,
        merged: 0,
        duplicates: 1,
        bad: 2,
        badExamples: ['line 5', 'line 6'],
      },
    );
    const list = await items(id);
    const petrels = list.find((i) => i.url.startsWith('https://birds.example/petrels'));
    // The two copies: tags joined, the earliest date (2020), archived (one copy was), the first title.
    assert.deepEqual(
      [petrels?.title, petrels?.tags, petrels?.saved_at, petrels?.state],
      ['Why petrels fly', '\nbirds\nsea\nocean\n', '2020-01-01T00:00:00.000Z', 'archived'],
    );
    assert.equal(list.find((i) => i.url === 'https://blank.example/')?.title, 'https://blank.example/');
    const before = JSON.stringify(await items(id));
    const again = await importReadingList(ctx.store(), id, fixture('pocket.csv'));
    assert.deepEqual([again.imported, again.merged, again.duplicates], [0, 3, 1]);
    assert.equal(JSON.stringify(await items(id)), before);
  });

  test('merging into what the account has: tags joined, earliest date, its state kept', async () => {
    const id = await account();
    await importReadingList(ctx.store(), id, fixture('ril_export.html'));
    const one = (await items(id)).find((i) => i.url === 'https://unread.example/one');
    assert.ok(one !== undefined);
    assert.equal(
      await setReadingState(ctx.store().db, id, one.id, 'archived', new Date().toISOString()),
      true,
    );
    const csv =
      'title,url,time_added,tags,status\nOther,https://unread.example/one,1500000000,extra,unread\n';
    const counts = await importReadingList(ctx.store(), id, strToU8(csv), 'pocket');
    assert.deepEqual([counts.imported, counts.merged], [0, 1]);
    const merged = (await items(id)).find((i) => i.id === one.id);
    assert.deepEqual(
      [merged?.title, merged?.tags, merged?.saved_at, merged?.state],
      ['First & unread', '\nrust\nweb\nextra\n', '2017-07-14T02:40:00.000Z', 'archived'],
    );
    assert.deepEqual(await readingListCounts(ctx.store().db, id), { unread: 1, archived: 2 });
    // Another account's list is its own.
    const other = await account();
    assert.deepEqual(await items(other), []);
    assert.equal(
      await setReadingState(ctx.store().db, other, one.id, 'unread', new Date().toISOString()),
      false,
    );
  });

  test('each format imports; content kept sanitised; filter by tag and state', async () => {
    const id = await account();
    const results = [];
    for (const [bytes] of [
      [pocketZip()],
      [fixture('instapaper-old.csv')],
      [fixture('instapaper-new.csv')],
      [omnivoreZip()],
      [fixture('wallabag.json')],
      [fixture('bookmarks.html')],
    ] as const) {
      const c = await importReadingList(ctx.store(), id, bytes);
      results.push([c.format, c.imported, c.bad]);
    }
    assert.deepEqual(results, [
      ['pocket', 2, 0],
      ['instapaper', 3, 0],
      ['instapaper', 3, 1],
      ['omnivore', 3, 1],
      ['wallabag', 2, 1],
      ['bookmarks', 4, 1],
    ]);
    const tagged = await items(id, { tag: 'cooking' });
    assert.deepEqual(tagged.map((i) => i.url).sort(), [
      'https://bread.example/sourdough',
      'https://cake.example/',
    ]);
    assert.deepEqual((await items(id, { tag: 'c%' })).length, 0);
    const archived = (await items(id, { state: 'archived' })).map((i) => i.url).sort();
    assert.ok(archived.includes('https://vents.example/deep') && archived.includes('https://zip.example/2'));
    const tides = (await items(id)).find((i) => i.url === 'https://tides.example/explained');
    assert.equal(tides?.readable, 1);
    const row = await ctx
      .store()
      .db.selectFrom('reading_list')
      .select(['html', 'text'])
      .where('url', '=', 'https://tides.example/explained')
      .executeTakeFirstOrThrow();
    assert.doesNotMatch(row.html ?? '', /script|onclick/);
    assert.match(row.text ?? '', /Twice a day the water rises/);
  });

  test('search finds an imported title and its kept text at once', async () => {
    const id = await account();
    await importReadingList(ctx.store(), id, fixture('wallabag.json'));
    const byTitle = await searchAccount(ctx.store(), id, 'tides');
    assert.deepEqual(
      byTitle.hits.map((h) => [h.kind, h.url]),
      [['reading', 'https://tides.example/explained']],
    );
    const byText = await searchAccount(ctx.store(), id, 'twice');
    assert.equal(byText.hits[0]?.url, 'https://tides.example/explained');
    // Not another account's.
    assert.equal((await searchAccount(ctx.store(), await account(), 'tides')).total, 0);
  });

  test('a file past a limit is refused whole: nothing imported', async () => {
    const id = await account();
    const rows = ['title,url,time_added,tags,status'];
    for (let i = 0; i <= 100_000; i++) rows.push(`t,https://many.example/${i},1609459200,,unread`);
    await assert.rejects(importReadingList(ctx.store(), id, strToU8(rows.join('\n'))), (e) =>
      isTidingsError(e, 'limit_reached'),
    );
    assert.deepEqual(await readingListCounts(ctx.store().db, id), { unread: 0, archived: 0 });
  });
});
