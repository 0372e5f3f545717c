import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TestClock } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { addressOfAccount, inboundServer, postMessage } from '../test/inbound.js';
import {
  bigAttachment,
  brokenCharsets,
  deepNesting,
  hugeHeader,
  manyParts,
  scriptInHtml,
  substackLike,
} from '../test/newsletterFixtures.js';
import { parseInThread } from './parseThread.js';

/** What the API answered: status and code. */
const answer = (res: { statusCode: number; json: () => unknown }) => ({
  status: res.statusCode,
  code: res.statusCode === 202 ? 0 : (res.json() as { code: number }).code,
});

/** A message to `to` from the hostile fixtures, its To header replaced. */
const to = (raw: Buffer, address: string): Buffer =>
  Buffer.from(raw.toString('latin1').replace(/^To: .*$/m, `To: ${address}`), 'latin1');

await describeEachEngine('newsletters: limits and hostile messages', (ctx) => {
  test('the daily limit counts the last 24 hours on the injected clock; 429 past it', async () => {
    const clock = new TestClock('2026-11-05T12:00:00Z');
    const app = inboundServer(ctx.store(), { inbound: { dailyLimit: 2 }, now: clock.now });
    try {
      const account = await newAccount(ctx.store());
      const address = await addressOfAccount(ctx.store(), account.id);
      const message = (n: number) => substackLike({ to: address, messageId: `daily-${n}@x.example` });
      assert.equal((await postMessage(app, message(1))).statusCode, 202);
      clock.advance(60 * 60 * 1000);
      assert.equal((await postMessage(app, message(2))).statusCode, 202);
      const third = await postMessage(app, message(3));
      assert.deepEqual(answer(third), { status: 429, code: 42901 });
      assert.equal(third.headers['retry-after'], '3600');
      // The first leaves the window 24 hours after it came: one more is taken, then none again.
      clock.advance(23 * 60 * 60 * 1000 + 60_000);
      assert.equal((await postMessage(app, message(3))).statusCode, 202);
      assert.equal((await postMessage(app, message(4))).statusCode, 429);
    } finally {
      await app.close();
    }
  });

  test('too large (413), not for anyone (404), malformed (400), a full queue (409): nothing kept', async () => {
    const app = inboundServer(ctx.store(), { inbound: { maxBytes: 64 * 1024 }, queueLimit: 1 });
    try {
      const account = await newAccount(ctx.store());
      const address = await addressOfAccount(ctx.store(), account.id);
      assert.deepEqual(answer(await postMessage(app, to(bigAttachment(100_000), address))), {
        status: 413,
        code: 41301,
      });
      assert.deepEqual(answer(await postMessage(app, substackLike({ to: 'nobody@inbound.example' }))), {
        status: 404,
        code: 40402,
      });
      const malformed = [
        to(deepNesting(100), address),
        Buffer.from(`To: ${address}\r\nSubject: no sender\r\n\r\nhello`),
        Buffer.from('\u0000\u0001\u0002 not a message at all'),
      ];
      for (const raw of malformed)
        assert.deepEqual(answer(await postMessage(app, raw)), { status: 400, code: 40006 });
      assert.equal((await postMessage(app, Buffer.alloc(0))).statusCode, 400);
      const wrongType = await postMessage(app, substackLike({ to: address }), { contentType: 'text/plain' });
      assert.equal(wrongType.statusCode >= 400 && wrongType.statusCode < 500, true);

      assert.equal((await postMessage(app, substackLike({ to: address }))).statusCode, 202);
      const full = await postMessage(app, substackLike({ to: address, messageId: 'second@x.example' }));
      assert.deepEqual(answer(full), { status: 409, code: 40901 });
      const messages = await ctx
        .store()
        .db.selectFrom('newsletter_messages')
        .select('id')
        .where('account_id', '=', account.id)
        .execute();
      assert.equal(messages.length, 1, 'the refused one is not recorded: it is taken when sent again later');
    } finally {
      await app.close();
    }
  });

  test('script, broken charsets, many parts, attachments: contained, stored clean or refused', async () => {
    const app = inboundServer(ctx.store());
    try {
      const account = await newAccount(ctx.store());
      const address = await addressOfAccount(ctx.store(), account.id);
      assert.equal((await postMessage(app, to(scriptInHtml(), address))).statusCode, 202);
      assert.equal((await postMessage(app, to(brokenCharsets(), address))).statusCode, 202);
      assert.equal((await postMessage(app, to(bigAttachment(2000), address))).statusCode, 202);
      for (const raw of [manyParts(20_000), hugeHeader(1024 * 1024)]) {
        assert.deepEqual(answer(await postMessage(app, to(raw, address))), { status: 400, code: 40006 });
      }
      const pages = await ctx
        .store()
        .db.selectFrom('newsletter_messages as m')
        .innerJoin('pages as p', 'p.id', 'm.page_id')
        .select(['m.subject', 'p.html', 'm.attachments'])
        .where('m.account_id', '=', account.id)
        .orderBy('m.id')
        .execute();
      assert.equal(pages.length, 3);
      const [script, broken, attached] = pages;
      assert.doesNotMatch(script?.html ?? '', /<script|onclick|onerror|javascript:|<iframe|<form|<svg/i);
      assert.match(script?.html ?? '', /A paragraph long enough/);
      assert.match(broken?.html ?? '', /Valid start of a paragraph .* and the end\./);
      assert.match(broken?.subject ?? '', /broken/);
      assert.match(attached?.html ?? '', /Attachments \(not kept\).*annual-report\.pdf/);
      assert.equal(attached?.attachments, '["annual-report.pdf"]');
    } finally {
      await app.close();
    }
  });
});

test('a parse past its time in its thread is a malformed message, and the process goes on', async () => {
  assert.deepEqual(await parseInThread(substackLike(), { timeMs: 1, heapMb: 256 }), {
    malformed: 'reading the message took longer than 0 s',
  });
  const fine = await parseInThread(substackLike());
  assert.ok('message' in fine);
});
