import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildDigestNow } from '../digest/build.js';
import { isTidingsError } from '../errors.js';
import { segmentText } from '../lib/highlight.js';
import { removeQueuedItem } from '../queue/remove.js';
import { testDigestDeps, saveUrl, queueFeedItem } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { insertPage, linkQueuedPage } from '../test/pages.js';
import { parseSearchQuery } from '../lib/searchQuery.js';
import { indexNewQueueItems, searchDocumentCount, searchItems } from '../store/searchDocuments.js';
import { type SearchResults, searchAccount } from './search.js';

const titles = (r: SearchResults) => r.hits.map((h) => segmentText(h.title));
const marked = (r: SearchResults) =>
  r.hits.map((h) => [...h.title, ...h.snippet].filter((s) => s.mark).map((s) => s.text));

await describeEachEngine('search', (ctx) => {
  test('finds a saved link by a word of its title, URL, site, description or page text, scoped to the account', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const b = await newAccount(store);
    await saveUrl(store, a.id, 'https://tides.example/moon-pull', 'How tides are made');
    await saveUrl(store, b.id, 'https://other.example/tides', 'Tides of another account');
    const pageId = await insertPage(store, {
      url: 'https://tides.example/moon-pull',
      site_name: 'Sea Notes',
      description: 'The moon pulls the sea, twice a day.',
      html: '<p>Lighthouse keepers log every swell.</p>',
      text: 'Lighthouse keepers log every swell.',
    });
    await linkQueuedPage(store, a.id, 'https://tides.example/moon-pull', pageId);

    for (const word of ['tides', 'moon', 'sea', 'notes', 'lighthouse', 'SWELL', 'pull']) {
      const found = await searchAccount(store, a.id, word);
      assert.equal(found.total, 1, word);
      assert.deepEqual(titles(found), ['How tides are made'], word);
      assert.equal(found.hits[0]?.kind, 'queue');
      assert.equal(found.hits[0].site, 'Sea Notes');
    }
    const lighthouse = await searchAccount(store, a.id, 'lighthouse');
    assert.deepEqual(lighthouse.hits[0]?.snippet, [
      { text: 'Lighthouse', mark: true },
      { text: ' keepers log every swell.', mark: false },
    ]);
    assert.deepEqual(marked(await searchAccount(store, a.id, 'tides')), [['tides']]);
    // Another account's item is neither listed nor counted.
    assert.equal((await searchAccount(store, b.id, 'lighthouse')).total, 0);
    assert.equal((await searchAccount(store, b.id, 'tides')).total, 1);
    assert.equal((await searchAccount(store, a.id, 'account')).total, 0);
  });

  test('ranks a title match above a text match, then newer first; pages through every hit', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    await saveUrl(store, a.id, 'https://rank.example/body', 'Something else entirely');
    const pageId = await insertPage(store, {
      url: 'https://rank.example/body',
      text: 'a note on kelp forests',
    });
    await linkQueuedPage(store, a.id, 'https://rank.example/body', pageId);
    for (let i = 0; i < 24; i++) await saveUrl(store, a.id, `https://rank.example/${i}`, `Kelp number ${i}`);
    const first = await searchAccount(store, a.id, 'kelp');
    assert.equal(first.total, 25);
    assert.equal(first.hits.length, 20);
    assert.ok(titles(first).every((t) => t.startsWith('Kelp number')));
    assert.equal(titles(first)[0], 'Kelp number 23', 'equal ranks: newer first');
    const second = await searchAccount(store, a.id, 'kelp', { offset: 20 });
    assert.equal(second.total, 25);
    assert.equal(second.hits.length, 5);
    assert.equal(titles(second).at(-1), 'Something else entirely');
    const seen = new Set([...first.hits, ...second.hits].map((h) => h.itemId));
    assert.equal(seen.size, 25);
    assert.deepEqual((await searchAccount(store, a.id, 'kelp', { offset: 40 })).hits, []);
    await assert.rejects(searchAccount(store, a.id, 'kelp', { limit: 0 }), (e) =>
      isTidingsError(e, 'invalid_input'),
    );
    await assert.rejects(searchAccount(store, a.id, 'kelp', { offset: 10_001 }), (e) =>
      isTidingsError(e, 'invalid_input'),
    );
  });

  test('past the ranked maximum, the count stops and hits come newest first', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const b = await newAccount(store);
    for (let i = 0; i < 6; i++) await saveUrl(store, a.id, `https://cap.example/${i}`, `Gull ${i}`);
    await saveUrl(store, b.id, 'https://cap.example/b', 'Gull of b');
    // Saving does not index; the service does before each search (this test calls the store directly).
    assert.equal(await searchDocumentCount(store.db, a.id), 0);
    assert.equal(await indexNewQueueItems(store.db, a.id), 6);
    assert.equal(await indexNewQueueItems(store.db, a.id), 0);
    assert.equal(await searchDocumentCount(store.db, b.id), 0, 'only the searching account is indexed');
    const query = parseSearchQuery('gull');
    const page = (offset: number) =>
      searchItems(store.db, store.engine, a.id, query, { limit: 2, offset, rankedHits: 3 });
    const first = await page(0);
    assert.deepEqual([first.total, first.capped], [4, true]);
    assert.deepEqual(
      first.rows.map((r) => r.title),
      ['Gull 5', 'Gull 4'],
    );
    assert.deepEqual(
      (await page(2)).rows.map((r) => r.title),
      ['Gull 3', 'Gull 2'],
    );
    const all = await searchItems(store.db, store.engine, a.id, query, {
      limit: 20,
      offset: 0,
      rankedHits: 6,
    });
    assert.deepEqual([all.total, all.capped, all.rows.length], [6, false, 6]);
  });

  test('unranked terms (scripts without spaces) page newest first, counted once, capped, and past the end', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    for (let i = 0; i < 6; i++) await saveUrl(store, a.id, `https://kyo.example/${i}`, `京都 ${i}`);
    await saveUrl(store, a.id, 'https://kyo.example/other', '大阪');
    await indexNewQueueItems(store.db, a.id);
    const query = parseSearchQuery('京');
    const page = (offset: number, rankedHits?: number) =>
      searchItems(store.db, store.engine, a.id, query, { limit: 4, offset, rankedHits });
    const first = await page(0);
    assert.deepEqual([first.total, first.capped], [6, false]);
    assert.deepEqual(
      first.rows.map((r) => r.title),
      ['京都 5', '京都 4', '京都 3', '京都 2'],
    );
    const second = await page(4);
    assert.deepEqual([second.total, second.rows.map((r) => r.title)], [6, ['京都 1', '京都 0']]);
    const past = await page(10);
    assert.deepEqual([past.total, past.capped, past.rows], [6, false, []], 'counted when past the end');
    const capped = await page(1, 3);
    assert.deepEqual([capped.total, capped.capped], [4, true]);
    assert.deepEqual(
      capped.rows.map((r) => r.title),
      ['京都 4', '京都 3', '京都 2', '京都 1'],
    );
    const beyond = await page(3, 3);
    assert.deepEqual(
      [beyond.total, beyond.capped, beyond.rows.map((r) => r.title)],
      [4, true, ['京都 2', '京都 1', '京都 0']],
      'a capped page reaches past the hits counted',
    );
    const none = await searchItems(store.db, store.engine, a.id, parseSearchQuery('東'), {
      limit: 4,
      offset: 0,
    });
    assert.deepEqual([none.total, none.rows], [0, []]);
  });

  test('phrases, OR and excluded words', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    await saveUrl(store, a.id, 'https://ops.example/1', 'Red fox jumps');
    await saveUrl(store, a.id, 'https://ops.example/2', 'Fox red barn');
    await saveUrl(store, a.id, 'https://ops.example/3', 'Blue heron waits');
    const count = async (q: string) => (await searchAccount(store, a.id, q)).total;
    assert.equal(await count('red fox'), 2);
    assert.equal(await count('"red fox"'), 1);
    assert.equal(await count('"fox red"'), 1);
    assert.equal(await count('heron OR barn'), 2);
    assert.equal(await count('heron or barn'), 0, 'lower-case or is a word');
    assert.equal(await count('fox -barn'), 1);
    assert.equal(await count('fox -"red barn"'), 1);
    assert.equal(await count('fox -"barn red"'), 2, 'an excluded phrase, not its words');
    assert.equal(await count('"red fox'), 1, 'an unclosed quote runs to the end');
    assert.deepEqual(marked(await searchAccount(store, a.id, '"red fox"')), [['Red fox']]);
    await assert.rejects(searchAccount(store, a.id, '-fox'), (e) => isTidingsError(e, 'invalid_input'));
    await assert.rejects(searchAccount(store, a.id, '   '), (e) => isTidingsError(e, 'invalid_input'));
    await assert.rejects(searchAccount(store, a.id, 'x'.repeat(201)), (e) =>
      isTidingsError(e, 'invalid_input'),
    );
  });

  test('stray syntax characters are words or nothing, never an engine error', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    await saveUrl(store, a.id, 'https://stray.example/near', 'NEAR and AND: title^2 (draft) C++ say "hi"');
    for (const q of [
      '"',
      '*',
      '(',
      'NEAR(',
      'NEAR(a b)',
      'AND',
      ':',
      '^',
      'title:x',
      'a*',
      '"hi',
      'say" hi',
      '{x}',
      "'",
      '\\',
    ]) {
      try {
        await searchAccount(store, a.id, q);
      } catch (err) {
        assert.ok(isTidingsError(err, 'invalid_input'), `${q}: ${String(err)}`);
      }
    }
    const count = async (q: string) => (await searchAccount(store, a.id, q)).total;
    assert.equal(await count('NEAR('), 1);
    assert.equal(await count('AND'), 1);
    assert.equal(await count('title^2'), 1);
    assert.equal(await count('(draft)'), 1);
    assert.equal(await count('C++'), 1);
    assert.equal(await count('"hi'), 1);
    assert.equal(await count('draft*'), 1);
    assert.equal(await count('NOT draft'), 0, 'NOT is a word');
  });

  test('non-Latin text: Cyrillic, Greek, Arabic as words; Chinese and Japanese as substrings', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    await saveUrl(store, a.id, 'https://intl.example/ru', 'Привет мир и погода');
    await saveUrl(store, a.id, 'https://intl.example/el', 'Καλημέρα κόσμε');
    await saveUrl(store, a.id, 'https://intl.example/ar', 'مرحبا بالعالم الجميل');
    await saveUrl(store, a.id, 'https://intl.example/ja', '東京タワーの夜景');
    await saveUrl(store, a.id, 'https://intl.example/zh', '北京的天气很好');
    const count = async (q: string) => (await searchAccount(store, a.id, q)).total;
    assert.equal(await count('привет'), 1, 'case folded');
    assert.equal(await count('погода'), 1);
    assert.equal(await count('"мир и погода"'), 1);
    assert.equal(await count('Καλημέρα'), 1);
    assert.equal(await count('بالعالم'), 1);
    assert.equal(await count('タワー'), 1);
    assert.equal(await count('東京'), 1);
    assert.equal(await count('天气'), 1);
    assert.equal(await count('天气 OR 東京'), 2);
    assert.equal(await count('東京 -夜景'), 0);
    assert.equal(await count('東京 intl'), 1, 'a substring and a word together');
    assert.deepEqual(marked(await searchAccount(store, a.id, 'タワー')), [['タワー']]);
    assert.deepEqual(marked(await searchAccount(store, a.id, 'ПРИВЕТ')), [['Привет']]);
  });

  test('follows the item: the page read later, the digest it went into, its removal', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const url = 'https://later.example/article';
    await saveUrl(store, a.id, url);
    assert.equal((await searchAccount(store, a.id, 'albatross')).total, 0);
    const pageId = await insertPage(store, { url, state: 'pending', kind: null });
    await linkQueuedPage(store, a.id, url, pageId);
    await store.db
      .updateTable('pages')
      .set({ state: 'read', kind: 'html', title: 'The albatross glides', text: 'Wings of three metres.' })
      .where('id', '=', pageId)
      .execute();
    const found = await searchAccount(store, a.id, 'albatross');
    assert.equal(found.total, 1);
    assert.deepEqual(titles(found), ['The albatross glides'], "the page's title stands in for the URL");
    assert.equal((await searchAccount(store, a.id, 'metres')).total, 1);
    await store.db
      .updateTable('pages')
      .set({ text: 'Wings of four metres.' })
      .where('id', '=', pageId)
      .execute();
    assert.equal((await searchAccount(store, a.id, 'three')).total, 0);
    assert.equal((await searchAccount(store, a.id, 'four')).total, 1);

    await queueFeedItem(store, a.id, {
      feedUrl: 'https://birds.example/feed',
      feedTitle: 'Bird Journal',
      url: 'https://birds.example/petrel',
      title: 'Storm petrel',
      summary: 'A small seabird of the open ocean.',
    });
    const queued = await searchAccount(store, a.id, 'journal');
    assert.deepEqual(
      queued.hits.map((h) => [h.kind, h.site]),
      [['queue', 'Bird Journal']],
    );
    const outcome = await buildDigestNow(testDigestDeps(store), a.id);
    assert.equal(outcome.status, 'built');
    const digested = await searchAccount(store, a.id, 'seabird', { baseUrl: 'https://tidings.example' });
    assert.equal(digested.total, 1);
    const hit = digested.hits[0];
    assert.equal(hit?.kind, 'digest');
    assert.equal(hit.site, 'Bird Journal');
    assert.match(hit.digestDate ?? '', /^\d{4}-\d{2}-\d{2}$/);
    assert.match(hit.digestUrl ?? '', /^https:\/\/tidings\.example\/digests\/\d+\?token=/);
    assert.deepEqual(
      hit.snippet.filter((s) => s.mark),
      [{ text: 'seabird', mark: true }],
    );
    assert.equal((await searchAccount(store, a.id, 'albatross')).hits[0]?.kind, 'digest');

    await saveUrl(store, a.id, 'https://later.example/gone', 'Ephemeral cormorant');
    const cormorant = await searchAccount(store, a.id, 'cormorant');
    assert.equal(cormorant.total, 1);
    assert.ok(await removeQueuedItem(store, a.id, cormorant.hits[0]?.itemId ?? 0));
    assert.equal((await searchAccount(store, a.id, 'cormorant')).total, 0);
  });

  test('an account deleted takes its index with it', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    await saveUrl(store, a.id, 'https://bye.example/', 'Farewell gannet');
    await store.db.deleteFrom('accounts').where('id', '=', a.id).execute();
    const left = await store.db
      .selectFrom('search_documents')
      .select('id')
      .where('account_id', '=', a.id)
      .execute();
    assert.deepEqual(left, []);
  });
});
