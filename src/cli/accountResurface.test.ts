import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountById } from '../store/accounts.js';
import { cliOn } from '../test/cliRun.js';
import { describeEachEngine, newAccount } from '../test/harness.js';

/** `tidings account set --resurface N --resurface-order oldest|random`: set, shown (text and JSON), refused. */
await describeEachEngine('cli account set --resurface', (ctx) => {
  const cli = cliOn(() => ctx.url(), { TIDINGS_BASE_URL: 'https://tidings.example' });
  const stored = async (id: number) => {
    const a = await accountById(ctx.store().db, id);
    return [a?.resurface_count, a?.resurface_order];
  };

  test('the defaults are shown; both flags set; 0 turns it off', async () => {
    const { id } = await newAccount(ctx.store());
    const show = await cli('account', 'show', '--account', String(id));
    assert.match(show.out.join('\n'), /resurface\s+3 a digest, oldest saved first/);
    const set = await cli(
      'account',
      'set',
      '--account',
      String(id),
      '--resurface',
      '5',
      '--resurface-order',
      'random',
    );
    assert.equal(set.code, 0, set.err.join('\n'));
    assert.deepEqual(await stored(id), [5, 'random']);
    assert.match(set.out.join('\n'), /resurface\s+5 a digest, in random order/);
    const json = await cli('account', 'show', '--account', String(id), '--json');
    const shown = JSON.parse(json.out[0] ?? '{}') as Record<string, unknown>;
    assert.deepEqual([shown.resurface_count, shown.resurface_order], [5, 'random']);
    const off = await cli('account', 'set', '--account', String(id), '--resurface', '0');
    assert.equal(off.code, 0, off.err.join('\n'));
    assert.deepEqual(await stored(id), [0, 'random']);
    assert.match(off.out.join('\n'), /resurface\s+off/);
  });

  test('past 10, not a number, or another order: refused with the reason, nothing changes', async () => {
    const { id } = await newAccount(ctx.store());
    for (const [flag, value, reason] of [
      ['--resurface', '11', /--resurface: must be at most 10/],
      ['--resurface', '-1', /--resurface: must be a whole number from 0 to 10/],
      ['--resurface', 'three', /--resurface: must be a whole number from 0 to 10/],
      ['--resurface-order', 'newest', /--resurface-order: must be oldest or random, not "newest"/],
    ] as const) {
      const bad = await cli('account', 'set', '--account', String(id), flag, value);
      assert.equal(bad.code, 2, `${flag} ${value}: ${bad.err.join('\n')}`);
      assert.match(bad.err.join('\n'), reason);
    }
    assert.deepEqual(await stored(id), [3, 'oldest']);
  });
});
