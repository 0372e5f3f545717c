import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '../test/feedFixtures.js';
import {
  RecordingMailer,
  TestClock,
  digestsOf,
  dueAt,
  saveUrl,
  setDueAt,
  setEmail,
  testDigestDeps,
} from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { startDigestWorker } from './worker.js';

await describeEachEngine('digest worker', (ctx) => {
  test('builds and emails what becomes due on its clock, and stops cleanly', async () => {
    const { id } = await newAccount(ctx.store());
    await setEmail(ctx.store(), id, 'worker@example.org');
    await setDueAt(ctx.store(), id, '2026-11-23T07:00:00.000Z');
    await saveUrl(ctx.store(), id, 'https://worker.example/');
    const clock = new TestClock('2026-11-23T06:59:00Z');
    const mailer = new RecordingMailer();
    const worker = startDigestWorker(testDigestDeps(ctx.store(), { now: clock.now, mailer }), {
      intervalMs: 10,
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(await digestsOf(ctx.store(), id), [], 'not due yet');
      clock.set('2026-11-23T07:00:00Z');
      await waitFor(
        'the digest to be sent',
        async () => (await digestsOf(ctx.store(), id))[0]?.delivery === 'sent',
      );
      assert.equal(mailer.sent.length, 1);
      assert.equal(mailer.sent[0]?.to, 'worker@example.org');
      assert.equal(await dueAt(ctx.store(), id), '2026-11-24T07:00:00.000Z');
    } finally {
      const started = Date.now();
      await worker.stop();
      assert.ok(Date.now() - started < 1000, 'stops without waiting out its interval');
    }
    assert.equal(worker.name, 'digest scheduler');
  });
});
