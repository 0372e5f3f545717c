import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { mintActionTokens } from '../../digest/actionTokens.js';
import { buildDueDigests } from '../../digest/build.js';
import { LINK_LIFETIME_DAYS } from '../../digest/linkLifetimes.js';
import { ensureDigestToken } from '../../digest/token.js';
import { mintUnsubscribeToken } from '../../digest/unsubscribe.js';
import { startDigestWorker } from '../../digest/worker.js';
import {
  TestClock,
  digestsOf,
  itemsOf,
  queueFeedItem,
  setDueAt,
  testDigestDeps,
} from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { webServer } from '../../test/webClient.js';

/**
 * Signed links that age (issue 33, point F), on the injected clock: an email's action links work for 30
 * days after it was sent, its unsubscribe link for a year; past that each gets the answer of an unknown
 * link and changes nothing, wherever the token comes from (tokens dated 2024 included), and the digest's
 * page opened with an expired action token shows no actions. The digest worker's pass forgets expired
 * tokens of an account that gets no other email.
 */

const DAY = 24 * 60 * 60_000;
const BASE = 'https://tidings.example';
const UNKNOWN = 'x'.repeat(43);
const SENT = '2026-11-23T07:00:00.000Z';

await describeEachEngine('signed links that age', (ctx) => {
  let app: FastifyInstance;
  const clock = new TestClock(SENT);
  before(async () => {
    app = webServer(ctx.store(), { baseUrl: BASE, now: clock.now });
    await app.ready();
  });
  after(() => app.close());
  const store = () => ctx.store();
  const at = (ms: number) => clock.set(new Date(Date.parse(SENT) + ms).toISOString());

  const send = (method: 'GET' | 'POST', url: string) =>
    app.inject({
      method,
      url,
      headers: {
        accept: 'text/html',
        ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(method === 'POST' ? { payload: '' } : {}),
    });

  /** An account with a digest built just before SENT, and the links of its email as sent at `sentAt`. */
  async function emailed(sentAt: Date) {
    clock.set(SENT);
    const { id } = await newAccount(store());
    const feedId = await queueFeedItem(store(), id, {
      feedUrl: `https://news${id}.example/feed.xml`,
      feedTitle: 'Daily News',
      url: `https://news${id}.example/1`,
      title: 'A story',
    });
    await setDueAt(store(), id, clock.now().toISOString());
    await buildDueDigests(testDigestDeps(store(), { now: clock.now }), { accountId: id });
    await setDueAt(store(), id, null); // no other digest, no other email
    const [digest] = await digestsOf(store(), id);
    assert.ok(digest !== undefined);
    const [story] = await itemsOf(store(), digest.id);
    assert.ok(story !== undefined);
    const [action] = await mintActionTokens(store().db, [{ accountId: id, digestId: digest.id }], sentAt);
    const unsubscribe = await mintUnsubscribeToken(store().db, id, sentAt);
    assert.ok(typeof action === 'string' && typeof unsubscribe === 'string');
    const digestToken = (await ensureDigestToken(store().db, id)) ?? '';
    const keep = (token: string) => `/digest-actions/${token}?do=keep&item=${story.id}`;
    const mute = (token: string) => `/digest-actions/${token}?do=mute&feed=${feedId}`;
    const page = (token: string) => `/digests/${digest.id}?token=${digestToken}&action_token=${token}`;
    const state = async () => {
      const queued = await store()
        .db.selectFrom('queue_items')
        .select('url')
        .where('account_id', '=', id)
        .execute();
      const account = await store()
        .db.selectFrom('accounts')
        .select('email_enabled')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return { queued: queued.length, emailEnabled: account.email_enabled !== 0 };
    };
    return { id, action, unsubscribe, keep, mute, page, state };
  }

  /** The link is refused exactly as the same link with an unknown token, GET and POST, and acts on nothing. */
  async function refused(link: (token: string) => string, token: string, what: string) {
    for (const method of ['GET', 'POST'] as const) {
      const res = await send(method, link(token));
      assert.equal(res.statusCode, 404, `${method} ${what}`);
      assert.equal(res.body, (await send(method, link(UNKNOWN))).body, `${method} ${what}: as unknown`);
    }
  }

  test('action links work 30 days after the email, unsubscribe links a year; then they are unknown', async () => {
    assert.deepEqual(LINK_LIFETIME_DAYS, { unsubscribe_tokens: 365, digest_action_tokens: 30 });
    const mail = await emailed(new Date(SENT));
    const unsubscribe = (token: string) => `/unsubscribe/${token}`;
    const actions = /\/digest-actions\//;

    at(30 * DAY);
    assert.equal((await send('GET', mail.keep(mail.action))).statusCode, 200, 'day 30: keep');
    assert.equal((await send('GET', mail.mute(mail.action))).statusCode, 200, 'day 30: mute');
    assert.match((await send('GET', mail.page(mail.action))).body, actions, 'day 30: the page has actions');

    at(30 * DAY + 1);
    const before = await mail.state();
    await refused(mail.keep, mail.action, 'keep after 30 days');
    await refused(mail.mute, mail.action, 'mute after 30 days');
    const page = await send('GET', mail.page(mail.action));
    assert.equal(page.statusCode, 200, 'the digest’s page itself stays');
    assert.doesNotMatch(page.body, actions, 'without the expired actions');
    assert.equal((await send('GET', unsubscribe(mail.unsubscribe))).statusCode, 200, 'unsubscribe still');

    at(365 * DAY);
    assert.equal((await send('GET', unsubscribe(mail.unsubscribe))).statusCode, 200, 'a year: unsubscribe');
    at(365 * DAY + 1);
    await refused(unsubscribe, mail.unsubscribe, 'unsubscribe after a year');
    assert.deepEqual(await mail.state(), before, 'nothing was kept, nothing turned off');
  });

  test('tokens dated 2024 are refused in 2026', async () => {
    const mail = await emailed(new Date('2024-06-01T07:00:00.000Z'));
    clock.set(SENT);
    await refused(mail.keep, mail.action, 'a 2024 action link');
    await refused((t) => `/unsubscribe/${t}`, mail.unsubscribe, 'a 2024 unsubscribe link');
    assert.deepEqual(await mail.state(), { queued: 0, emailEnabled: true });
  });

  test('the digest worker forgets expired tokens of an account that gets no other email', async () => {
    const mail = await emailed(new Date(SENT));
    const rows = async () => {
      const count = async (table: 'unsubscribe_tokens' | 'digest_action_tokens') =>
        (await store().db.selectFrom(table).select('token_hash').where('account_id', '=', mail.id).execute())
          .length;
      return { unsubscribe: await count('unsubscribe_tokens'), actions: await count('digest_action_tokens') };
    };
    /** One pass of the worker as serve and worker run it (stop() lets the pass under way finish). */
    const workerPass = () => startDigestWorker(testDigestDeps(store(), { now: clock.now })).stop();

    at(30 * DAY);
    await workerPass();
    assert.deepEqual(await rows(), { unsubscribe: 1, actions: 1 }, 'day 30: both still work');
    at(30 * DAY + 1);
    await workerPass();
    assert.deepEqual(await rows(), { unsubscribe: 1, actions: 0 }, 'the action token is forgotten');
    at(365 * DAY + 1);
    await workerPass();
    assert.deepEqual(await rows(), { unsubscribe: 0, actions: 0 }, 'and the unsubscribe token after a year');
  });
});
