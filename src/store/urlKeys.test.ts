import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { sql } from 'kysely';
import { addSavedUrl } from '../queue/add.js';
import { normaliseUrl, urlKey } from '../queue/url.js';
import { ENGINES, postgresSkipReason, storeMigratedTo } from '../test/databases.js';
import { migrateToLatest } from './migrate.js';
import { urlKeyAt0005 } from './migrations/0005_url_keys.js';

/** What 0001–0004 stored as url_key: the SHA-256 of the normalised URL. */
const oldKey = (url: string): string => createHash('sha256').update(normaliseUrl(url)).digest('hex');

const pgSkip = await postgresSkipReason();
for (const engine of ENGINES) {
  await test(
    `0005_url_keys re-keys waiting items so that deduplication goes on [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0004_subscription_backfill');

      const at = '2026-11-01T00:00:00.000Z';
      for (const name of ['one', 'two']) {
        await sql`insert into accounts (name, email, timezone, created_at) values (${name}, null, 'UTC', ${at})`.execute(
          store.db,
        );
      }
      const long = `https://example.com/${'é'.repeat(300)}`;
      const items: [number, string][] = [
        [1, 'https://Example.com/a?utm_source=x'],
        [1, long],
        [2, 'https://example.com/a'],
      ];
      for (const [account, url] of items) {
        await sql`insert into queue_items (account_id, url, url_key, title, source, created_at, updated_at)
          values (${account}, ${url}, ${oldKey(url)}, 'Old', 'api', ${at}, ${at})`.execute(store.db);
      }

      await migrateToLatest(store);
      const rows = await store.db
        .selectFrom('queue_items')
        .select(['account_id', 'url', 'url_key'])
        .orderBy('id')
        .execute();
      assert.equal(rows.length, 3);
      assert.equal(rows[0]?.url_key, 'https://example.com/a');
      assert.match(rows[1]?.url_key ?? '', /^sha256:[0-9a-f]{64}$/);
      assert.equal(rows[2]?.url_key, 'https://example.com/a');

      // The same links saved again, written differently, are still recognised.
      const again = (accountId: number, url: string): Promise<string> =>
        addSavedUrl(store, accountId, { url, title: undefined, source: 'api' }, { limit: 100 });
      assert.equal(await again(1, 'https://example.com/a#top'), 'already_queued');
      assert.equal(await again(1, `${long}#top`), 'already_queued');
      assert.equal(await again(2, 'HTTPS://EXAMPLE.COM:443/a'), 'already_queued');
      assert.equal(await again(2, long), 'added');
    },
  );
}

test("0005's frozen copy of the URL rules keys URLs as the queue's rules do today", () => {
  // When the queue's rules change, this test changes with them to list where they part: 0005 never does.
  const urls = [
    'https://example.com/a',
    'https://Example.com/a?utm_source=x',
    'HTTPS://EXAMPLE.COM:443/a#top',
    'http://example.com:80/?',
    'https://example.com/?b=1&fbclid=x&a=2&UTM_Medium=y&FBCLID=z',
    'https://example.com/?gclid=1&gclid=2&keep=3#frag',
    'https://user:pass@example.com:8443/p?q=1',
    'https://bücher.example/straße?q=é',
    'https://[::1]/x',
    `https://example.com/${'é'.repeat(300)}`,
    `https://example.com/${'a'.repeat(480)}`,
    `https://example.com/${'a'.repeat(481)}`,
  ];
  for (const url of urls) assert.equal(urlKeyAt0005(url), urlKey(normaliseUrl(url)), url);
});
