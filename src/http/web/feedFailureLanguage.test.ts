import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { pollOnce } from '../../feeds/poller.js';
import { subscribe } from '../../feeds/subscribe/subscribe.js';
import { subscriptionsByAccount } from '../../store/subscriptions.js';
import { feedPipelineSuite, hoursAgo, serveFeed } from '../../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * Issue 36 point 1: why a feed's last fetch failed is kept as a code beside the fetcher's English words
 * (migration 0076), so the Feeds page says it in the reader's language; English keeps the words, which
 * name the host and the status line. A fetch that succeeds clears both.
 */
await describeEachEngine('web app: a failed fetch on the Feeds page, in the reader’s language', (ctx) => {
  const { server, deps } = feedPipelineSuite(ctx);
  const apps: FastifyInstance[] = [];
  after(async () => {
    for (const app of apps) await app.close();
  });

  test('a 404: its code and status stored, worded in German, English keeps the fetcher’s words', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const url = server().url('/moved-away.xml');
    await subscribe(deps(), account.id, { url, trusted: true });
    await pollOnce(deps(), { all: true });
    const [failed] = await subscriptionsByAccount(store.db, account.id);
    assert.equal(failed?.lastErrorReason, 'http_status');
    assert.equal(failed.lastErrorStatus, 404);
    assert.match(failed.lastError ?? '', /404/);

    const app = webServer(store);
    apps.push(app);
    await app.ready();
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    const page = async (language: string): Promise<string> => {
      await store.db.updateTable('accounts').set({ language }).where('id', '=', account.id).execute();
      return (await client.get('/feeds')).body;
    };
    assert.ok(
      (await page('de')).includes(
        'Letzter Abruf fehlgeschlagen: Die Website hat mit Status 404 geantwortet.',
      ),
    );
    assert.ok(
      (await page('ja')).includes('前回の取得に失敗しました：サイトがステータス 404 で応答しました。'),
    );
    const english = await page('en');
    assert.match(english, /Last fetch failed: [^<]*404 Not Found/);

    serveFeed(server(), '/moved-away.xml', {
      title: 'Back again',
      items: [{ link: 'https://back.example/1', title: 'One', published: hoursAgo(1) }],
    });
    await pollOnce(deps(), { all: true });
    const [mended] = await subscriptionsByAccount(store.db, account.id);
    assert.deepEqual(
      [mended?.lastError, mended?.lastErrorReason, mended?.lastErrorStatus],
      [null, null, null],
    );
    assert.doesNotMatch(await page('de'), /Letzter Abruf fehlgeschlagen/);
  });
});
