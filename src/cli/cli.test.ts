import assert from 'node:assert/strict';
import { test } from 'node:test';
import { authenticate } from '../accounts/authorize.js';
import { cliOn } from '../test/cliRun.js';
import { describeEachEngine } from '../test/harness.js';
import { runCli } from './run.js';

await describeEachEngine('cli', (ctx) => {
  const cli = cliOn(() => ctx.url(), { TIDINGS_BASE_URL: 'https://tidings.example' });

  test('migrate brings the schema up to date and says so', async () => {
    const r = await cli('migrate');
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.match(r.out.join('\n'), /schema is up to date/);
  });

  test('account create --json prints exactly one line {"id", "apiKey"} with a working key', async () => {
    const r = await cli(
      'account',
      'create',
      '--name',
      'Ada',
      '--email',
      'ada@example.com',
      '--timezone',
      'Europe/Berlin',
      '--json',
    );
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.equal(r.out.length, 1);
    const parsed = JSON.parse(r.out[0] ?? '') as { id: number; apiKey: string };
    assert.deepEqual(Object.keys(parsed), ['id', 'apiKey']);
    assert.equal(typeof parsed.id, 'number');
    const auth = await authenticate(ctx.store(), parsed.apiKey);
    assert.equal(auth?.accountId, parsed.id);
  });

  test('account create without --json shows the key once with both curl lines', async () => {
    const r = await cli('account', 'create', '--name', 'Grace');
    assert.equal(r.code, 0);
    const text = r.out.join('\n');
    const key = /tdg_[0-9a-f]{76}/.exec(text)?.[0];
    assert.ok(key !== undefined, text);
    assert.ok(text.includes(`https://tidings.example/api/v1/articles?apiKey=${key}`));
    assert.ok(text.includes(`https://tidings.example/api?api_key=${key}`));
  });

  test('account create refuses bad input with exit code 2', async () => {
    const tz = await cli('account', 'create', '--name', 'X', '--timezone', 'Mars/Olympus');
    assert.equal(tz.code, 2);
    assert.match(tz.err.join('\n'), /unknown time zone "Mars\/Olympus": type a city such as Berlin/);
    const city = await cli('account', 'create', '--name', 'City', '--timezone', 'new york', '--json');
    assert.equal(city.code, 0, city.err.join('\n'));
    const made = JSON.parse(city.out[0] ?? '') as { id: number };
    const shown = await cli('account', 'show', '--account', String(made.id), '--json');
    assert.match(shown.out.join(''), /"timezone":"America\/New_York"/);
    const set = await cli('account', 'set', '--account', String(made.id), '--timezone', 'Berlin', '--json');
    assert.equal(set.code, 0, set.err.join('\n'));
    assert.match(set.out.join(''), /"timezone":"Europe\/Berlin"/);
    assert.equal((await cli('account', 'create', '--name', 'X', '--email', 'nope')).code, 2);
    const angled = await cli('account', 'create', '--name', 'X', '--email', 'x<a@evil.test>');
    assert.equal(angled.code, 2);
    assert.match(angled.err.join('\n'), /not an email address: x<a@evil\.test>/);
    assert.equal((await cli('account', 'create')).code, 2);
  });

  test('account list shows accounts, as a table or JSON lines', async () => {
    const table = await cli('account', 'list');
    assert.equal(table.code, 0);
    assert.match(table.out.join('\n'), /Ada\tada@example.com\tEurope\/Berlin/);
    const json = await cli('account', 'list', '--json');
    const names = json.out.map((l) => (JSON.parse(l) as { name: string }).name);
    assert.ok(names.includes('Ada') && names.includes('Grace'));
  });

  test('key create, list and revoke; keys never appear in listings', async () => {
    const account = JSON.parse((await cli('account', 'create', '--name', 'Keys', '--json')).out[0] ?? '') as {
      id: number;
      apiKey: string;
    };
    const created = await cli('key', 'create', '--account', String(account.id), '--name', 'phone', '--json');
    assert.equal(created.code, 0, created.err.join('\n'));
    const second = JSON.parse(created.out[0] ?? '') as { id: number; apiKey: string };
    assert.notEqual(second.apiKey, account.apiKey);
    assert.equal((await authenticate(ctx.store(), second.apiKey))?.accountId, account.id);

    const list = await cli('key', 'list', '--account', String(account.id));
    const text = list.out.join('\n');
    assert.match(text, /default/);
    assert.match(text, /phone/);
    assert.ok(!text.includes(second.apiKey) && !text.includes(account.apiKey));
    assert.ok(!text.includes(second.apiKey.slice(16, 40)));

    const revoked = await cli('key', 'revoke', String(second.id));
    assert.equal(revoked.code, 0);
    // The CLI wrote through a store of its own: on PostgreSQL this one hears of it by its notice (within 1 s).
    await ctx.store().changes?.whenSynced();
    assert.equal(await authenticate(ctx.store(), second.apiKey), null);
    assert.notEqual(await authenticate(ctx.store(), account.apiKey), null);
    assert.match((await cli('key', 'list', '--account', String(account.id))).out.join('\n'), /revoked/);
    assert.match((await cli('key', 'revoke', String(second.id))).out.join('\n'), /already revoked/);
    const listJson = await cli('key', 'list', '--account', String(account.id), '--json');
    for (const line of listJson.out) assert.ok(!('key_hash' in (JSON.parse(line) as object)));
  });

  test('unknown accounts and keys, and malformed IDs, are clear errors', async () => {
    const noAccount = await cli('key', 'create', '--account', '999999');
    assert.equal(noAccount.code, 1);
    assert.match(noAccount.err.join('\n'), /no account 999999/);
    assert.equal((await cli('key', 'revoke', '999999')).code, 1);
    assert.equal((await cli('key', 'list', '--account', 'abc')).code, 2);
    assert.equal((await cli('no-such-command')).code, 2);
  });
});

test('a bad configuration is reported with exit code 2, naming the variable', async () => {
  const err: string[] = [];
  const code = await runCli(['migrate'], {
    out: () => undefined,
    err: (l) => err.push(l),
    env: { PORT: 'x' },
  });
  assert.equal(code, 2);
  assert.match(err.join('\n'), /PORT/);
});
