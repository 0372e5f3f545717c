import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildDigestNow } from '../digest/build.js';
import { loadDigest } from '../digest/load.js';
import type { Store } from '../store/db.js';
import { TestClock, saveUrl, testDigestDeps } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { changeAccountSettings } from './changeSettings.js';
import { changeEmailDelivery } from './unsubscribe.js';

const queueVersion = async (store: Store, id: number): Promise<number> =>
  (
    await store.db
      .selectFrom('accounts')
      .select('queue_version')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).queue_version;

const tokenRows = async (store: Store, id: number): Promise<number> =>
  (await store.db.selectFrom('digest_tokens').select('account_id').where('account_id', '=', id).execute())
    .length;

await describeEachEngine('account services', (ctx) => {
  test('changing settings locks the account without moving its queue version (the API cache stays)', async () => {
    const { id } = await newAccount(ctx.store());
    const before = await queueVersion(ctx.store(), id);
    const changed = await changeAccountSettings(ctx.store(), id, { time: '09:15', maxItems: 5 });
    assert.deepEqual([changed?.digest_time, changed?.digest_max_items], ['09:15', 5]);
    assert.equal(await queueVersion(ctx.store(), id), before);
  });

  test('a build moves the queue version once; reading the digest writes nothing', async () => {
    const { id } = await newAccount(ctx.store());
    assert.equal(await tokenRows(ctx.store(), id), 1, 'the token comes with the account');
    await saveUrl(ctx.store(), id, 'https://example.org/one');
    const before = await queueVersion(ctx.store(), id);
    const clock = new TestClock('2026-11-23T10:00:00Z');
    const built = await buildDigestNow(testDigestDeps(ctx.store(), { now: clock.now }), id);
    assert.ok(built.status === 'built');
    assert.equal(await queueVersion(ctx.store(), id), before + 1);
    // Without a token (as if it were lost), a read leaves it so: no write on the way.
    await ctx.store().db.deleteFrom('digest_tokens').where('account_id', '=', id).execute();
    const { digestId } = built;
    const loaded = await loadDigest(ctx.store().db, id, digestId, 'https://tidings.example', { page: 1 });
    assert.equal(loaded?.view.links.web, `https://tidings.example/digests/${digestId}`);
    assert.equal(await tokenRows(ctx.store(), id), 0);
  });

  test('turning emails off and on again by hand ends a pause; saving other settings keeps it', async () => {
    const { id } = await newAccount(ctx.store());
    const now = new Date('2026-11-23T10:00:00Z');
    assert.equal((await changeEmailDelivery(ctx.store(), id, 'pause', now))?.status, 'paused');
    const kept = await changeAccountSettings(ctx.store(), id, { time: '08:00', emailEnabled: true }, now);
    assert.ok(kept?.email_paused_until !== null, 'the pause stays when emails stay on');
    const off = await changeAccountSettings(ctx.store(), id, { emailEnabled: false }, now);
    assert.equal(off?.email_paused_until, null);
    const on = await changeAccountSettings(ctx.store(), id, { emailEnabled: true }, now);
    assert.deepEqual([on?.email_enabled, on?.email_paused_until], [true, null]);
  });
});
