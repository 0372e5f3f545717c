import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setOperatorLanguage } from '../i18n/locale.js';
import { cliOn } from '../test/cliRun.js';
import { englishWordsOf } from '../test/englishWords.js';
import { describeEachEngine } from '../test/harness.js';

/**
 * Issue 36 point 1: the CLI's human output is in the operator's language (TIDINGS_LANGUAGE). In the
 * pseudo-locale en-XA, the converted commands (account create, list, show, set; key create, list, revoke,
 * and their refusals) print no English word once what is not a word is taken out: command lines (curl, a
 * `tidings …` hint), ids, keys, dates, zones, the --days syntax and the fixture's names. --json stays as
 * it is, in any language.
 */

/** The words of CLI output, with what the operator types or copies taken out. */
function wordsOf(lines: readonly string[], content: readonly string[]): string[] {
  const text = lines
    .filter((l) => !/^\s*curl /.test(l))
    .join('\n')
    // The program's name before an error line.
    .replace(/^tidings: /gm, ' ')
    .replace(/tidings(?: [a-z-]+)+(?: --[a-z-]+(?: [A-Z]+)?)*/g, ' ')
    .replace(/tdg_[0-9a-f]+(?:…)?/g, ' ')
    .replace(/\d{4}-\d\d-\d\d[T ][\d:.]+Z?/g, ' ');
  return englishWordsOf(text, content);
}

await describeEachEngine('cli: the operator’s language', (ctx) => {
  const cli = cliOn(() => ctx.url(), {
    TIDINGS_BASE_URL: 'https://tidings.example',
    TIDINGS_LANGUAGE: 'en-XA',
  });
  // The language is the process's: back to English for whatever runs after.
  after(() => setOperatorLanguage('en'));
  // The fixture's data: names, zones, an address; 'default' is the first key's stored name.
  const CONTENT = [
    'default',
    'Ada Lovelace',
    'Europe/Berlin',
    'UTC',
    'daily',
    'ada@example.com',
    'laptop',
    'API',
  ];

  test('en-XA: account and key commands print no English word; --json is unchanged', async () => {
    const outputs: [string, string[]][] = [];
    const run = async (...args: string[]) => {
      const r = await cli(...args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.err.join('\n')}`);
      outputs.push([args.join(' '), r.out]);
      return r;
    };
    const created = await run('account', 'create', '--name', 'Ada Lovelace', '--timezone', 'Europe/Berlin');
    const id = /(\d+)/.exec(created.out[0] ?? '')?.[1] ?? '';
    assert.notEqual(id, '');
    await run('account', 'list');
    await run('account', 'show', '--account', id);
    await run('account', 'set', '--account', id, '--email', 'ada@example.com', '--resurface', '0');
    const key = await run('key', 'create', '--account', id, '--name', 'laptop');
    const keyId = /(\d+)/.exec(key.out[0] ?? '')?.[1] ?? '';
    await run('key', 'revoke', keyId);
    await run('key', 'revoke', keyId);
    await run('key', 'list', '--account', id);
    for (const [command, out] of outputs) {
      assert.ok(out.length > 0, command);
      assert.deepEqual(wordsOf(out, CONTENT), [], `${command}:\n${out.join('\n')}`);
    }
    const missing = await cli('key', 'revoke', '999999999');
    assert.notEqual(missing.code, 0);
    assert.deepEqual(wordsOf(missing.err, CONTENT), [], missing.err.join('\n'));

    const json = await cli('account', 'show', '--account', id, '--json');
    const parsed = JSON.parse(json.out[0] ?? '') as { name: string; timezone: string };
    assert.deepEqual([parsed.name, parsed.timezone], ['Ada Lovelace', 'Europe/Berlin']);
  });
});
