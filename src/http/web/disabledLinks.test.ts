import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { disableAccount, enableAccount } from '../../accounts/admin.js';
import { inviteAccount } from '../../accounts/invitations.js';
import { createAccountWithKey } from '../../accounts/service.js';
import { mintActionTokens } from '../../digest/actionTokens.js';
import { buildDueDigests } from '../../digest/build.js';
import { ensureDigestToken } from '../../digest/token.js';
import { mintUnsubscribeToken } from '../../digest/unsubscribe.js';
import {
  TestClock,
  digestsOf,
  itemsOf,
  queueFeedItem,
  saveUrl,
  setDueAt,
  testDigestDeps,
} from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { ARTICLE, insertPage, linkQueuedPage } from '../../test/pages.js';
import { addReadingItems } from '../../test/readingFixtures.js';
import { webServer } from '../../test/webClient.js';

/**
 * A disabled account's signed links (issue 33, point E). After `account disable` every private link of its
 * emails and feeds — the digest's web page, its EPUB, the Atom feed, an item's reading view, Keep for
 * tomorrow, Mute, the reading list's Archive, unsubscribe — gets the very answer of an unknown link (404),
 * as its keys get the answer of an unknown key, and changes nothing; an invitation made by an administrator
 * who is disabled stops working too. Enabled again, every link works as before.
 */

const DAY = 24 * 60 * 60_000;
const BASE = 'https://tidings.example';
const UNKNOWN = 'x'.repeat(43);

await describeEachEngine('a disabled account’s signed links', (ctx) => {
  let app: FastifyInstance;
  const clock = new TestClock('2026-11-23T06:00:00Z');
  before(async () => {
    app = webServer(ctx.store(), { baseUrl: BASE, now: clock.now });
    await app.ready();
  });
  after(() => app.close());
  const store = () => ctx.store();

  const send = (method: 'GET' | 'POST', url: string, html: boolean) =>
    app.inject({
      method,
      url,
      headers: {
        ...(html ? { accept: 'text/html' } : {}),
        ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(method === 'POST' ? { payload: '' } : {}),
    });

  /** What the account's links may change: its queue, the feed's mute, the reading item, its email switch. */
  async function stateOf(accountId: number, feedId: number, readingId: number) {
    const db = store().db;
    const queued = await db
      .selectFrom('queue_items')
      .select('url')
      .where('account_id', '=', accountId)
      .execute();
    const sub = await db
      .selectFrom('subscriptions')
      .select('muted_until')
      .where('account_id', '=', accountId)
      .where('feed_id', '=', feedId)
      .executeTakeFirstOrThrow();
    const reading = await db
      .selectFrom('reading_list')
      .select('state')
      .where('id', '=', readingId)
      .executeTakeFirstOrThrow();
    const account = await db
      .selectFrom('accounts')
      .select('email_enabled')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    return {
      queued: queued.map((q) => q.url).sort(),
      mutedUntil: sub.muted_until,
      reading: reading.state,
      emailEnabled: account.email_enabled !== 0,
    };
  }

  test('every link of a disabled account answers as an unknown one and changes nothing; enabled, they work', async () => {
    // The first account is the administrator who disables; a second administrator makes an invitation.
    await createAccountWithKey(store(), { name: 'Operator', admin: true });
    const maker = await createAccountWithKey(store(), { name: 'Inviter', admin: true });
    const { token: invitation } = await inviteAccount(store(), maker.account.id, { days: 7 }, clock.now());

    const { id } = await newAccount(store());
    const feedId = await queueFeedItem(store(), id, {
      feedUrl: `https://news${id}.example/feed.xml`,
      feedTitle: 'Daily News',
      url: `https://news${id}.example/1`,
      title: 'A story',
    });
    const saved = `https://saved${id}.example/tides`;
    await saveUrl(store(), id, saved, 'Saved by hand');
    const pageId = await insertPage(store(), { url: saved, ...ARTICLE });
    await linkQueuedPage(store(), id, saved, pageId);
    const [readingId = 0] = await addReadingItems(store(), id, [
      { url: `https://read${id}.example/`, title: 'Saved long ago', savedAt: '2023-01-01T00:00:00.000Z' },
    ]);
    clock.advance(DAY);
    await setDueAt(store(), id, clock.now().toISOString());
    await buildDueDigests(testDigestDeps(store(), { now: clock.now }), { accountId: id });
    const [digest] = await digestsOf(store(), id);
    assert.ok(digest !== undefined, 'the digest was built');
    const story = (await itemsOf(store(), digest.id)).find((i) => i.url === `https://news${id}.example/1`);
    assert.ok(story !== undefined);

    const digestToken = (await ensureDigestToken(store().db, id)) ?? '';
    const [action] = await mintActionTokens(
      store().db,
      [{ accountId: id, digestId: digest.id }],
      clock.now(),
    );
    const unsubscribe = (await mintUnsubscribeToken(store().db, id, clock.now())) ?? '';
    assert.ok(typeof action === 'string' && unsubscribe !== '');

    /** Each link, and the same link with an unknown token: the answer a refused link must equal. */
    const links = (token: { digest: string; action: string; unsubscribe: string; invitation: string }) => ({
      page: `/digests/${digest.id}?token=${token.digest}`,
      epub: `/digests/${digest.id}/epub?token=${token.digest}`,
      atom: `/digests.atom?token=${token.digest}`,
      item: `/items/${pageId}?token=${token.digest}`,
      keep: `/digest-actions/${token.action}?do=keep&item=${story.id}`,
      mute: `/digest-actions/${token.action}?do=mute&feed=${feedId}`,
      archive: `/digest-actions/${token.action}?do=archive&reading=${readingId}`,
      unsubscribe: `/unsubscribe/${token.unsubscribe}`,
      invitation: `/invite/${token.invitation}`,
    });
    const live = links({ digest: digestToken, action, unsubscribe, invitation });
    const unknown = links({ digest: UNKNOWN, action: UNKNOWN, unsubscribe: UNKNOWN, invitation: UNKNOWN });
    const posted = ['keep', 'mute', 'archive', 'unsubscribe'] as const;

    for (const [name, url] of Object.entries(live)) {
      assert.equal((await send('GET', url, name !== 'atom')).statusCode, 200, `${name} works while enabled`);
    }
    const before = await stateOf(id, feedId, readingId);

    await disableAccount(store(), id);
    await disableAccount(store(), maker.account.id);
    for (const html of [true, false]) {
      for (const [name, url] of Object.entries(live)) {
        const res = await send('GET', url, html);
        const expected = await send('GET', unknown[name as keyof typeof unknown], html);
        assert.equal(res.statusCode, 404, `${name} (html: ${html}) is refused`);
        assert.equal(res.body, expected.body, `${name} (html: ${html}): the answer of an unknown link`);
      }
    }
    for (const name of posted) {
      const res = await send('POST', live[name], true);
      assert.equal(res.statusCode, 404, `POST ${name} is refused`);
      assert.equal(res.body, (await send('POST', unknown[name], true)).body, `POST ${name}`);
    }
    assert.deepEqual(await stateOf(id, feedId, readingId), before, 'nothing changed');

    await enableAccount(store(), id, clock.now());
    await enableAccount(store(), maker.account.id, clock.now());
    for (const [name, url] of Object.entries(live)) {
      assert.equal((await send('GET', url, name !== 'atom')).statusCode, 200, `${name} works again`);
    }
    for (const name of posted) {
      assert.equal((await send('POST', live[name], true)).statusCode, 200, `POST ${name} works again`);
    }
    const after = await stateOf(id, feedId, readingId);
    assert.ok(after.queued.includes(`https://news${id}.example/1`), 'kept for tomorrow');
    assert.notEqual(after.mutedUntil, null, 'muted');
    assert.equal(after.reading, 'archived');
    assert.equal(after.emailEnabled, false, 'unsubscribed');
  });
});
