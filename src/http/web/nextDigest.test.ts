import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildDueDigests } from '../../digest/build.js';
import { accountById } from '../../store/accounts.js';
import { testDigestDeps, saveUrl } from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * Issue 13, bug 1: the "next digest" line of the Queue and Settings pages names the slot that will run.
 * Pacific/Kiritimati is UTC+14: at 15:00 UTC on Monday 23 November it is already 05:00 on Tuesday 24.
 */
await describeEachEngine('web app: the next digest after “send me a digest now”', (ctx) => {
  let clock = new Date('2026-11-23T15:00:00Z');
  const now = (): Date => clock;
  let app: FastifyInstance;
  let account: { id: number; apiKey: string };
  let client: WebClient;

  before(async () => {
    app = webServer(ctx.store(), { now });
    await app.ready();
    account = await newAccount(ctx.store());
    client = new WebClient(app);
    await client.signIn(account.apiKey);
    await client.get('/settings');
    const days = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
    const form = new URLSearchParams({
      _csrf: client.csrf,
      timezone: 'Pacific/Kiritimati',
      time: '07:00',
      max_items: '50',
      email: '',
    });
    for (const d of days) form.append('days', d);
    const saved = await app.inject({
      method: 'POST',
      url: '/settings',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `tidings_session=${client.cookies.get('tidings_session') ?? ''}`,
      },
      payload: form.toString(),
    });
    assert.equal(saved.statusCode, 303, saved.body);
  });
  after(() => app.close());

  test('before sending now, the pages name today’s slot', async () => {
    const queue = await client.get('/queue');
    assert.match(queue.body, /next digest is due\s+<time datetime="2026-11-23T17:00:00.000Z"/);
  });

  test('after sending now, Queue and Settings name tomorrow’s slot, the one the worker then builds', async () => {
    await saveUrl(ctx.store(), account.id, 'https://example.com/one', 'One');
    await client.get('/settings');
    const sent = await client.post('/settings/digest-now');
    assert.match(String(sent.headers.location), /notice=built/);
    await saveUrl(ctx.store(), account.id, 'https://example.com/two', 'Two');

    const wednesday =
      /next digest is due\s+<time datetime="2026-11-24T17:00:00.000Z"[^>]*>Wednesday 25 November 2026, 07:00/;
    const queue = await client.get('/queue');
    assert.match(queue.body, wednesday);
    assert.doesNotMatch(/next digest is due[\s\S]*?\(Pacific/.exec(queue.body)?.[0] ?? '', /Tuesday/);
    const settings = await client.get('/settings');
    assert.match(settings.body, /Your next digest is due\s+<time datetime="2026-11-24T17:00:00.000Z"/);

    // Issue 13, bug 8: no button that would only answer "today already has its digest"; when the next one
    // comes instead, and how to change that.
    assert.doesNotMatch(settings.body, /action="\/settings\/digest-now"/);
    assert.match(
      settings.body,
      /Today has its digest already \(<a href="[^"]+\/digests\/\d+\?token=[^"]+">read it<\/a>\)/,
    );
    assert.match(
      settings.body,
      /What you queue from now on comes in your next digest,\s+<time datetime="2026-11-24T17:00:00.000Z"[^>]*>Wednesday 25 November 2026, 07:00<\/time>/,
    );
    assert.match(
      settings.body,
      /To\s+have it sooner, change the <a href="#time">send time<\/a> or the\s+days above\./,
    );
    const stale = await client.post('/settings/digest-now');
    const notice = (await client.get(String(stale.headers.location))).body;
    assert.match(
      notice,
      /Today already has its digest, and Tidings builds one digest a day: nothing was built now\.\s+<a [^>]+>Read it<\/a>\.\s+What you queue now comes in your next digest,\s+<time datetime="2026-11-24T17:00:00.000Z"/,
    );

    // At Tuesday's send time the worker finds the day taken and builds nothing: the page was right.
    clock = new Date('2026-11-23T17:00:30Z');
    const outcomes = await buildDueDigests(testDigestDeps(ctx.store(), { now }), { accountId: account.id });
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['exists'],
    );
    assert.equal((await accountById(ctx.store().db, account.id))?.digest_due_at, '2026-11-24T17:00:00.000Z');
    assert.match((await client.get('/queue')).body, wednesday);

    // On Wednesday it runs, and takes what waited.
    clock = new Date('2026-11-24T17:00:30Z');
    const [built] = await buildDueDigests(testDigestDeps(ctx.store(), { now }), { accountId: account.id });
    assert.ok(built?.status === 'built', JSON.stringify(built));
    assert.equal(built.localDate, '2026-11-25');
  });
});
