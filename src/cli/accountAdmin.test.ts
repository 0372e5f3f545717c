import assert from 'node:assert/strict';
import { test } from 'node:test';
import { authenticate } from '../accounts/authorize.js';
import { rowsNamingAccount } from '../test/accountRows.js';
import { cliOn } from '../test/cliRun.js';
import { describeEachEngine } from '../test/harness.js';

/** `tidings account disable|enable|delete`, `account create --admin`, and what `account list` adds. */
await describeEachEngine('cli: account administration', (ctx) => {
  const cli = cliOn(() => ctx.url(), { TIDINGS_BASE_URL: 'https://tidings.example' });
  const create = async (...args: string[]): Promise<{ id: number; apiKey: string }> => {
    const r = await cli('account', 'create', '--json', ...args);
    assert.equal(r.code, 0, r.err.join('\n'));
    return JSON.parse(r.out[0] ?? '') as { id: number; apiKey: string };
  };

  test('the first account is an administrator; --admin makes another; list shows both columns', async () => {
    const first = await create('--name', 'Root');
    const plain = await create('--name', 'Plain');
    const second = await cli('account', 'create', '--name', 'Deputy', '--admin');
    assert.match(second.out[0] ?? '', /^Created account \d+ \(Deputy\), an administrator\.$/);
    const table = await cli('account', 'list');
    assert.match(table.out[0] ?? '', /\tNEXT DIGEST\tADMIN\tDISABLED$/);
    assert.match(table.out.find((l) => l.startsWith(`${first.id}\t`)) ?? '', /\tyes\t-$/);
    assert.match(table.out.find((l) => l.startsWith(`${plain.id}\t`)) ?? '', /\tno\t-$/);
    const json = (await cli('account', 'list', '--json')).out.map(
      (l) => JSON.parse(l) as { id: number; is_admin: boolean; disabled_at: string | null },
    );
    assert.deepEqual(
      json.filter((a) => a.id === first.id || a.id === plain.id).map((a) => [a.is_admin, a.disabled_at]),
      [
        [true, null],
        [false, null],
      ],
    );
  });

  test('disable refuses the account’s keys until enable; the last administrator is kept; bad ids are refused', async () => {
    const reader = await create('--name', 'Reader');
    const off = await cli('account', 'disable', '--account', String(reader.id));
    assert.equal(off.code, 0, off.err.join('\n'));
    assert.match(off.out[0] ?? '', /Account \d+ \(Reader\) is disabled/);
    assert.equal(await authenticate(ctx.store(), reader.apiKey), null);
    const again = await cli('account', 'disable', '--account', String(reader.id), '--json');
    assert.equal(again.code, 0);
    assert.ok((JSON.parse(again.out[0] ?? '') as { disabled_at: string | null }).disabled_at !== null);
    assert.match(
      (await cli('account', 'show', '--account', String(reader.id))).out.join('\n'),
      /disabled\s+20\d\d-/,
    );

    const on = await cli('account', 'enable', '--account', String(reader.id), '--json');
    assert.equal(on.code, 0);
    assert.equal((JSON.parse(on.out[0] ?? '') as { disabled_at: string | null }).disabled_at, null);
    assert.equal((await authenticate(ctx.store(), reader.apiKey))?.accountId, reader.id);

    // Two administrators exist (Root, Deputy): one may go; then the other is the last one.
    const admins = (await cli('account', 'list', '--json')).out
      .map((l) => JSON.parse(l) as { id: number; is_admin: boolean })
      .filter((a) => a.is_admin);
    assert.equal(admins.length, 2);
    const [a, b] = admins;
    assert.ok(a !== undefined && b !== undefined);
    assert.equal((await cli('account', 'disable', '--account', String(a.id))).code, 0);
    const last = await cli('account', 'disable', '--account', String(b.id));
    assert.equal(last.code, 2);
    assert.match(last.err.join('\n'), /last enabled administrator/);
    assert.equal((await cli('account', 'enable', '--account', String(a.id))).code, 0);

    assert.equal((await cli('account', 'disable', '--account', '999999')).code, 1);
    assert.equal((await cli('account', 'enable', '--account', 'x')).code, 2);
    assert.equal((await cli('account', 'disable')).code, 2);
  });

  test('delete needs --yes, then removes the account with every row of it', async () => {
    const doomed = await create('--name', 'Doomed');
    const unsure = await cli('account', 'delete', '--account', String(doomed.id));
    assert.equal(unsure.code, 2);
    assert.match(unsure.err.join('\n'), /add --yes/);
    assert.notEqual(await authenticate(ctx.store(), doomed.apiKey), null);
    const done = await cli('account', 'delete', '--account', String(doomed.id), '--yes');
    assert.equal(done.code, 0, done.err.join('\n'));
    assert.equal(done.out[0], `Deleted account ${doomed.id} and everything in it.`);
    const left = await rowsNamingAccount(ctx.store(), doomed.id);
    assert.deepEqual(
      Object.entries(left).filter(([, n]) => n > 0),
      [],
    );
    assert.equal((await cli('account', 'delete', '--account', String(doomed.id), '--yes')).code, 1);
  });
});
