import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { localeOf } from '../../i18n/locale.js';
import { escapeHtml } from '../../lib/escape.js';
import { updateAccountSettings } from '../../store/accounts.js';
import { createDigest } from '../../store/digests.js';
import { queueFeedItem, saveUrl } from '../../test/digestPipeline.js';
import { grantAccount } from '../../accounts/authorize.js';
import { setDigestShare } from '../../accounts/digestShare.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * Issue 36 points 4 and 6 for the reader's own pages (queue, search, digests…): rendered in the
 * pseudo-locale en-XA with data on them, no English word is left but the fixture's own text; in Arabic
 * they are right to left.
 */
await describeEachEngine('web app: the reader’s pages in the account’s language', (ctx) => {
  let app: FastifyInstance;
  let client: WebClient;
  let accountId: number;
  // The fixture's own text (a title, its domain, the search's word, the account's name and zone, a mail
  // server's error), not the catalogue's.
  const content = [
    'Kestrel hovering notes',
    'kestrel.example',
    '550 mailbox unavailable',
    'test',
    'UTC',
    'Kestrel',
    'kestrel',
    'hovering notes',
    'Osprey Weekly',
    'Osprey dives',
    'osprey.example',
  ];

  before(async () => {
    app = webServer(ctx.store(), {});
    await app.ready();
    const account = await newAccount(ctx.store());
    accountId = account.id;
    await saveUrl(ctx.store(), account.id, 'https://kestrel.example/notes', 'Kestrel hovering notes');
    // A feed with a queued item, its share, priority and a mute set: every line of its row renders.
    const feedId = await queueFeedItem(ctx.store(), account.id, {
      feedUrl: 'https://osprey.example/feed.xml',
      feedTitle: 'Osprey Weekly',
      url: 'https://osprey.example/1',
      title: 'Osprey dives',
    });
    const sub = await ctx
      .store()
      .db.selectFrom('subscriptions')
      .select('id')
      .where('account_id', '=', account.id)
      .where('feed_id', '=', feedId)
      .executeTakeFirstOrThrow();
    await setDigestShare(ctx.store(), grantAccount(account.id), sub.id, {
      perDigest: 4,
      priority: 'high',
      mutedUntil: new Date(Date.UTC(2099, 0, 1)).toISOString(),
    });
    for (const [n, delivery] of [
      [1, 'sent'],
      [2, 'failed'],
      [3, 'pending'],
      [4, 'not_emailed'],
      [5, 'no_smtp'],
      [6, 'sending'],
    ] as const) {
      await createDigest(ctx.store().db, account.id, {
        localDate: `2026-01-0${n}`,
        createdAt: new Date(Date.UTC(2026, 0, n, 7)).toISOString(),
        itemCount: n,
        savedCount: n,
        feedCount: 0,
        remaining: n % 2,
        delivery,
        nextAttemptAt: delivery === 'pending' ? new Date(Date.UTC(2030, 0, 1)).toISOString() : null,
        messageId: `m-${account.id}-${n}`,
      });
    }
    await sql`update digests set last_error = ${'550 mailbox unavailable'}, sent_at = created_at where account_id = ${account.id}`.execute(
      ctx.store().db,
    );
    client = new WebClient(app);
    await client.signIn(account.apiKey);
  });
  after(() => app.close());

  const PAGES = [
    '/queue',
    '/queue?notice=added',
    '/queue?notice=title_updated',
    '/queue?notice=removed&removed=https%3A%2F%2Fkestrel.example%2Fgone&removed_title=Kestrel%20hovering%20notes',
    '/search',
    '/search?q=kestrel',
    '/search?q=%D8%B7%D8%A7%D8%A6%D8%B1',
    '/digests',
    '/feeds',
    '/feeds?notice=filtered',
    '/feeds?notice=imported-2-0-1-3',
  ];

  test('en-XA: no English word is left on any of the pages, lists and notices included', async () => {
    await updateAccountSettings(ctx.store().db, accountId, { language: 'en-XA' });
    for (const path of PAGES) {
      const res = await client.get(path);
      assert.equal(res.statusCode, 200, path);
      assert.match(res.body, /<html lang="en-XA" dir="ltr">/, path);
      assert.deepEqual(englishWordsOf(res.body, content), [], path);
    }
    const missing = await client.post('/queue/999999/remove');
    assert.equal(missing.statusCode, 404);
    // The error page's heading is the layout's (converted with it); the message is the queue's.
    assert.ok(missing.body.includes(escapeHtml(localeOf('en-XA').t('web.queue.notInQueue'))));
  });

  test('ar: the pages are right to left and in Arabic', async () => {
    await updateAccountSettings(ctx.store().db, accountId, { language: 'ar' });
    for (const path of PAGES) {
      const res = await client.get(path);
      assert.match(res.body, /<html lang="ar" dir="rtl">/, path);
    }
    const queue = await client.get('/queue');
    assert.match(queue.body, /أضف رابطًا/);
    assert.match(queue.body, /حفظته <time/, 'when it was saved, in Arabic');
  });
});
