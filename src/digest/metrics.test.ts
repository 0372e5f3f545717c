import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PrometheusMetrics } from '../lib/metricsRegistry.js';
import {
  RecordingMailer,
  TestClock,
  saveUrl,
  setDueAt,
  setEmail,
  temporaryFailure,
  testDigestDeps,
} from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { parseSamples, total } from '../test/metricsText.js';
import { buildDigestNow } from './build.js';
import { runDigestPass } from './worker.js';

/** Each digest build and each attempt to email one is counted once, by outcome. */

await describeEachEngine('digest metrics', (ctx) => {
  test('builds and emails by outcome', async () => {
    const metrics = new PrometheusMetrics();
    const mailer = new RecordingMailer();
    const clock = new TestClock('2026-11-23T08:00:00Z');
    const deps = { ...testDigestDeps(ctx.store(), { mailer, now: clock.now }), metrics };
    const past = '2026-11-23T07:00:00.000Z';
    const mailed = await newAccount(ctx.store());
    await setEmail(ctx.store(), mailed.id, 'mailed@example.org');
    await saveUrl(ctx.store(), mailed.id, 'https://digest-metrics.example/1');
    await setDueAt(ctx.store(), mailed.id, past);
    const empty = await newAccount(ctx.store());
    await setDueAt(ctx.store(), empty.id, past);

    mailer.failures = [temporaryFailure()];
    const first = await runDigestPass(deps, { accountId: mailed.id });
    assert.deepEqual(
      [first.builds.map((b) => b.status), first.deliveries.map((o) => o.status)],
      [['built'], ['retrying']],
    );
    await runDigestPass(deps, { accountId: empty.id });
    assert.equal((await buildDigestNow(deps, mailed.id)).status, 'exists');

    const s = parseSamples(await metrics.render());
    const builds = (outcome: string): number =>
      total(s, 'tidings_digest_build_duration_seconds_count', { outcome });
    assert.deepEqual([builds('built'), builds('empty'), builds('exists')], [1, 1, 1]);
    assert.equal(total(s, 'tidings_digest_email_duration_seconds_count', { outcome: 'retrying' }), 1);
    assert.equal(total(s, 'tidings_digest_email_duration_seconds_count'), 1);
  });
});
