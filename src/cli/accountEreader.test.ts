import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildDigestNow } from '../digest/build.js';
import { accountById } from '../store/accounts.js';
import { saveUrl, testDigestDeps } from '../test/digestPipeline.js';
import { cliOn } from '../test/cliRun.js';
import { describeEachEngine, newAccount } from '../test/harness.js';

/** `tidings account set --ereader-email`: set, shown, refused as the email is, cleared by "" or none. */
await describeEachEngine('cli account set --ereader-email', (ctx) => {
  const cli = cliOn(() => ctx.url(), { TIDINGS_BASE_URL: 'https://tidings.example' });
  const stored = async (id: number) => (await accountById(ctx.store().db, id))?.ereader_email;

  test('sets, shows, refuses a bad address and clears it', async () => {
    const { id } = await newAccount(ctx.store());
    const set = await cli('account', 'set', '--account', String(id), '--ereader-email', 'me@kindle.example');
    assert.equal(set.code, 0, set.err.join('\n'));
    assert.equal(await stored(id), 'me@kindle.example');
    assert.match(set.out.join('\n'), /e-reader\s+me@kindle\.example/);
    const json = await cli('account', 'show', '--account', String(id), '--json');
    assert.equal(
      (JSON.parse(json.out[0] ?? '{}') as { ereader_email?: unknown }).ereader_email,
      'me@kindle.example',
    );

    const bad = await cli('account', 'set', '--account', String(id), '--ereader-email', 'a@b@c');
    assert.notEqual(bad.code, 0);
    assert.match(bad.err.join('\n'), /--ereader-email: not an email address/);
    assert.equal(await stored(id), 'me@kindle.example');

    const none = await cli('account', 'set', '--account', String(id), '--ereader-email', 'none');
    assert.equal(none.code, 0, none.err.join('\n'));
    assert.equal(await stored(id), null);
    assert.equal(
      (await cli('account', 'set', '--account', String(id), '--ereader-email', 'me@kindle.example')).code,
      0,
    );
    const empty = await cli('account', 'set', '--account', String(id), '--ereader-email', '');
    assert.equal(empty.code, 0, empty.err.join('\n'));
    assert.equal(await stored(id), null);
  });

  test("digest list --json shows the e-reader copy's state", async () => {
    const { id } = await newAccount(ctx.store());
    assert.equal(
      (await cli('account', 'set', '--account', String(id), '--ereader-email', 'me@kindle.example')).code,
      0,
    );
    await saveUrl(ctx.store(), id, 'https://example.org/ereader-cli');
    assert.equal((await buildDigestNow(testDigestDeps(ctx.store()), id)).status, 'built');
    const list = await cli('digest', 'list', '--account', String(id), '--json');
    assert.equal(list.code, 0, list.err.join('\n'));
    const line = JSON.parse(list.out[0] ?? '{}') as Record<string, unknown>;
    // This instance has no SMTP: the copy is marked so, as the email is.
    assert.deepEqual([line.delivery, line.ereader, line.ereaderAttempts], ['not_emailed', 'no_smtp', 0]);
  });
});
