import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { addSavedUrl } from '../../queue/add.js';
import { createDigest } from '../../store/digests.js';
import type { DeliveryState } from '../../store/schema.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';
import { DIGESTS_PAGE_SIZE } from './pages/digests.js';

await describeEachEngine('web app: digests archive', (ctx) => {
  let app: FastifyInstance;

  before(async () => {
    app = webServer(ctx.store());
    await app.ready();
  });
  after(() => app.close());

  const day = (n: number): string => new Date(Date.UTC(2026, 0, 1 + n)).toISOString().slice(0, 10);
  const digest = (
    accountId: number,
    n: number,
    delivery: DeliveryState,
    extra: Record<string, string> = {},
  ) =>
    createDigest(ctx.store().db, accountId, {
      localDate: day(n),
      createdAt: new Date(Date.UTC(2026, 0, 1 + n, 7)).toISOString(),
      itemCount: n,
      savedCount: n,
      feedCount: 0,
      remaining: 0,
      delivery,
      nextAttemptAt: extra.next ?? null,
      messageId: `m-${accountId}-${n}`,
    });

  test('without digests the page says how the first one comes', async () => {
    const reader = await newAccount(ctx.store());
    const client = new WebClient(app);
    await client.signIn(reader.apiKey);
    const res = await client.get('/digests');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /No digest yet/);
  });

  test('a digest sent now is listed, opens as in the email, and says where its email stands', async () => {
    const reader = await newAccount(ctx.store());
    const client = new WebClient(app);
    await client.signIn(reader.apiKey);
    await addSavedUrl(
      ctx.store(),
      reader.id,
      { url: 'https://example.com/x', title: 'Listed item', source: 'api' },
      { limit: 10 },
    );
    await client.get('/settings');
    await client.post('/settings/digest-now');
    const res = await client.get('/digests');
    assert.match(res.body, /1 digest, newest first/);
    assert.match(res.body, /1\s+link\s*·\s*built/);
    assert.match(res.body, /Not emailed \(email was off, or there was no address\)/);
    const href = /<a class="title" href="http:\/\/127\.0\.0\.1:8080(\/digests\/\d+\?token=[^"]+)">/.exec(
      res.body,
    )?.[1];
    assert.ok(href !== undefined);
    const read = await app.inject({ method: 'GET', url: href.replace(/&amp;/g, '&') });
    assert.equal(read.statusCode, 200);
    assert.match(read.body, /Listed item/);
  });

  test('every delivery state in words; failures stand out', async () => {
    const reader = await newAccount(ctx.store());
    await digest(reader.id, 1, 'sent');
    await digest(reader.id, 2, 'pending');
    await digest(reader.id, 3, 'failed');
    await digest(reader.id, 4, 'no_smtp');
    await digest(reader.id, 5, 'sending');
    await sql`update digests set last_error = ${'550 no such user'} where account_id = ${reader.id} and delivery = 'failed'`.execute(
      ctx.store().db,
    );
    const client = new WebClient(app);
    await client.signIn(reader.apiKey);
    const body = (await client.get('/digests')).body;
    for (const words of [
      /Emailed/,
      /To be emailed shortly/,
      /could not be sent: 550 no such user/,
      /no mail server/,
      /Being emailed/,
    ]) {
      assert.match(body, words);
    }
    assert.match(body, /class="meta error-text"/);
    assert.ok(body.indexOf('Tuesday 6 January 2026') < body.indexOf('Friday 2 January 2026'), 'newest first');
  });

  test('a long archive is shown a page at a time', async () => {
    const reader = await newAccount(ctx.store());
    for (let n = 0; n < DIGESTS_PAGE_SIZE + 5; n++) await digest(reader.id, n, 'sent');
    const client = new WebClient(app);
    await client.signIn(reader.apiKey);
    const first = await client.get('/digests');
    assert.equal(first.body.match(/class="title"/g)?.length, DIGESTS_PAGE_SIZE);
    assert.match(first.body, /href="\/digests\?start=30">Older/);
    const second = await client.get('/digests?start=30');
    assert.equal(second.body.match(/class="title"/g)?.length, 5);
    assert.match(second.body, /Thursday 1 January 2026/);
  });

  test('another account’s digests are not listed', async () => {
    const alice = await newAccount(ctx.store());
    const bob = await newAccount(ctx.store());
    const secret = await digest(alice.id, 40, 'sent');
    assert.ok(secret !== null);
    const client = new WebClient(app);
    await client.signIn(bob.apiKey);
    const body = (await client.get('/digests')).body;
    assert.match(body, /No digest yet/);
    assert.ok(!body.includes(`/digests/${secret.id}?`));
  });
});
