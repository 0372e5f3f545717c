import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setOperatorLanguage } from '../i18n/locale.js';
import { IMPORT_FORMATS } from '../imports/record.js';
import { englishWordsOf } from '../test/englishWords.js';
import { runCli } from './run.js';

/**
 * Issue 36 point 1: commander's own refusals of a command line (src/cli/commanderErrors.ts) are in the
 * operator's language, each of the kinds Tidings' commands can meet; in English they are commander's text,
 * byte for byte; in the pseudo-locale no English word is left once the typed names are taken out.
 */

after(() => setOperatorLanguage('en'));

async function refusal(language: string, args: readonly string[]): Promise<string> {
  const lines: string[] = [];
  const code = await runCli(args, {
    out: (l) => lines.push(`out: ${l}`),
    err: (l) => lines.push(l),
    env: { TIDINGS_LANGUAGE: language },
  });
  assert.equal(code, 2, `${args.join(' ')}: ${lines.join('\n')}`);
  // The first line or two: the refusal (and commander's suggestion); the help hint after it is help.ts's.
  return lines.join('\n').split('\n').slice(0, -1).join('\n');
}

const LINES: readonly { args: readonly string[]; en: string; de: string }[] = [
  {
    args: ['acount'],
    en: "error: unknown command 'acount'\n(Did you mean account?)",
    de: 'Fehler: unbekannter Befehl „acount“\n(Meintest du account?)',
  },
  {
    args: ['account', 'set', '--account', '1', '--tmie', '07:00'],
    en: "error: unknown option '--tmie'\n(Did you mean --time?)",
    de: 'Fehler: unbekannte Option „--tmie“\n(Meintest du --time?)',
  },
  {
    args: ['account', 'set', '--account'],
    en: "error: option '--account <id>' argument missing",
    de: 'Fehler: der Option „--account <id>“ fehlt ihr Wert',
  },
  {
    args: ['account', 'set', '--time', '07:00'],
    en: "error: required option '--account <id>' not specified",
    de: 'Fehler: die erforderliche Option „--account <id>“ wurde nicht angegeben',
  },
  {
    args: ['healthcheck', 'now'],
    en: "error: too many arguments for 'healthcheck'. Expected 0 arguments but got 1.",
    de: 'Fehler: zu viele Argumente für „healthcheck“. Erwartet 0 Argumente, erhalten 1.',
  },
  {
    args: ['backup'],
    en: "error: missing required argument 'file'",
    de: 'Fehler: das erforderliche Argument „file“ fehlt',
  },
  {
    args: ['import', 'x.csv', '--account', '1', '--format', 'docx'],
    en: "error: option '--format <format>' argument 'docx' is invalid. Allowed choices are auto, ",
    de: 'Fehler: der Wert „docx“ ist für die Option „--format <format>“ ungültig. Erlaubt sind: auto, ',
  },
];

test("commander's refusals: English as commander writes them, German in German", async () => {
  for (const { args, en, de } of LINES) {
    const english = await refusal('en', args);
    const german = await refusal('de', args);
    if (en.endsWith(', ')) {
      assert.ok(english.startsWith(en), english);
      assert.ok(german.startsWith(de), german);
      assert.equal(german.split(': ').at(-1), english.split('are ').at(-1), 'the same choices');
    } else {
      assert.equal(english, en);
      assert.equal(german, de);
    }
  }
});

/** What the operator typed and commander quotes back: command and argument names, values. */
const TYPED = ['acount', 'account', 'healthcheck', 'file', 'docx', 'auto'];

test('in Japanese and Arabic too, and no English word left in the pseudo-locale', async () => {
  assert.equal(
    await refusal('ja', ['healthcheck', 'now']),
    'エラー：引数が多すぎます（「healthcheck」）。0個のはずが、1個ありました。',
  );
  assert.match(await refusal('ar', ['acount']), /^خطأ: أمر غير معروف/);
  for (const { args } of LINES) {
    const pseudo = await refusal('en-XA', args);
    // What the operator typed and commander quotes back: the flags, names and values.
    const typed = [...TYPED, ...IMPORT_FORMATS].reduce(
      (text, name) => text.replaceAll(new RegExp(`(?<![\\p{L}\\w-])${name}(?![\\p{L}\\w-])`, 'gu'), ' '),
      pseudo.replace(/(?<![\p{L}\w])--?[a-z][a-z-]*( <[a-z]+>)?/gu, ' '),
    );
    assert.deepEqual(englishWordsOf(typed), [], `${args.join(' ')}: ${pseudo}`);
  }
});
