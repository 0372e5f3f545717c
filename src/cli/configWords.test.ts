import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setOperatorLanguage } from '../i18n/locale.js';
import { englishWordsOf } from '../test/englishWords.js';
import { runCli } from './run.js';

/**
 * Issue 36 point 1: a configuration Tidings refuses is explained in the operator's language, each
 * variable's problem worded from its facts (src/configProblems.ts); English is the message it always was.
 */

after(() => setOperatorLanguage('en'));

/** Every problem a variable's value can have that has facts, one variable each. */
const BROKEN = {
  PORT: 'abc',
  DATABASE_POOL_SIZE: '1.5',
  LOG_LEVEL: 'loud',
  TIDINGS_BASE_URL: 'nope',
  TIDINGS_QUEUE_LIMIT: '0',
  TIDINGS_READER_THREADS: '99',
  TIDINGS_METRICS_TOKEN: 'short',
  TIDINGS_WORKER: 'maybe',
  TIDINGS_PUBLISH: 'here',
  DATABASE_DIRECT_URL: 'mysql://x',
  TIDINGS_SMTP_URL: 'http://mail',
  TIDINGS_MAIL_FROM: 'nobody',
  TIDINGS_UNSUBSCRIBE_MAILTO: 'Tidings <u@example.com>',
  TIDINGS_INBOUND_DOMAIN: 'no domain',
  TIDINGS_INBOUND_SECRET: 'short',
};

async function refusal(env: Record<string, string>): Promise<string[]> {
  const lines: string[] = [];
  const code = await runCli(['serve'], {
    out: (l) => lines.push(`out: ${l}`),
    err: (l) => lines.push(l),
    env: { DATABASE_URL: ':memory:', ...env },
  });
  assert.equal(code, 2, lines.join('\n'));
  return lines.join('\n').split('\n');
}

test('every refused variable worded in German; English as it was', async () => {
  const english = await refusal(BROKEN);
  const german = await refusal({ ...BROKEN, TIDINGS_LANGUAGE: 'de' });
  assert.equal(english[0], 'tidings: invalid configuration:');
  assert.equal(german[0], 'tidings: ungültige Konfiguration:');
  assert.equal(german.length, english.length);
  assert.equal(german.length, Object.keys(BROKEN).length + 1, german.join('\n'));
  assert.ok(english.includes('  PORT: Invalid input: expected number, received NaN'), english.join('\n'));
  for (const line of [
    '  PORT: erwartet wird eine Zahl',
    '  DATABASE_POOL_SIZE: erwartet wird eine ganze Zahl',
    '  LOG_LEVEL: erwartet wird einer dieser Werte: fatal, error, warn, info, debug, trace, silent',
    '  TIDINGS_QUEUE_LIMIT: erwartet wird mindestens 1',
    '  TIDINGS_READER_THREADS: erwartet wird höchstens 16',
    '  TIDINGS_WORKER: erwartet wird true oder false',
  ]) {
    assert.ok(german.includes(line), `${line}\n${german.join('\n')}`);
  }
});

test('the pseudo-locale leaves no English word; the checks across variables and an unknown language', async () => {
  const names = [...Object.keys(BROKEN), 'TIDINGS_LANGUAGE', 'PORT'];
  const words = (lines: readonly string[]): string[] =>
    englishWordsOf(
      lines
        .join('\n')
        .replace(/^tidings: /gm, ' ')
        .replace(/\b[A-Z][A-Z0-9_]+\b/g, (name) => (names.includes(name) ? ' ' : name))
        // What an operator types: values, addresses, URL schemes and the docs' path.
        .replace(/\S*[@:/.[\]<>"]\S*/g, ' ')
        .replace(/\b(?:fatal|error|warn|info|debug|trace|silent|true|false|en|pt-BR|TOKEN|Tidings)\b/g, ' '),
    );
  const pseudo = await refusal({ ...BROKEN, TIDINGS_LANGUAGE: 'en-XA' });
  assert.deepEqual(words(pseudo), [], pseudo.join('\n'));
  const across = await refusal({ TIDINGS_LANGUAGE: 'en-XA', TIDINGS_SMTP_URL: 'smtp://mail.example' });
  assert.deepEqual(words(across), [], across.join('\n'));
  const port = await refusal({
    TIDINGS_LANGUAGE: 'fr',
    TIDINGS_METRICS: 'true',
    TIDINGS_METRICS_PORT: '8080',
  });
  assert.deepEqual(port, [
    'tidings: configuration invalide :',
    '  TIDINGS_METRICS_PORT: les métriques sont servies sur une écoute à part ; choisissez un autre port que PORT (8080)',
  ]);
  // A language Tidings does not speak cannot be the language of its own refusal: English.
  assert.deepEqual(await refusal({ TIDINGS_LANGUAGE: 'xx' }), [
    'tidings: invalid configuration:',
    '  TIDINGS_LANGUAGE: "xx" is not a language Tidings speaks: one of en, ar, de, es, fr, it, ja, zh-Hans, pt-BR, nl, pl',
  ]);
});

test('the problems checked outside the schema: proxies, IMAP, TLS files, the database URL; German and pseudo', async () => {
  const cases: Record<string, string>[] = [
    { TIDINGS_TRUST_PROXY: '99', TIDINGS_INBOUND_IMAP_URL: 'nope' },
    { TIDINGS_TRUST_PROXY: 'foo' },
    { TIDINGS_TRUST_PROXY: '10.0.0.0/99' },
    { TIDINGS_TRUST_PROXY: '10.0.0.1,' },
    { TIDINGS_INBOUND_IMAP_URL: 'imap://a%zz:b@mail.example/INBOX' },
    { TIDINGS_INBOUND_SMTP_CERT: '/etc/tidings/cert.pem' },
    { DATABASE_URL: 'mysql://u@h/db' },
    { DATABASE_URL: 'postgres://h/db?sslmode=prefer' },
    { DATABASE_URL: 'postgres://h/db', DATABASE_CA_FILE: '/nonexistent/ca.pem' },
  ];
  const seen = new Set<string>();
  for (const env of cases) {
    const english = await refusal(env);
    const german = await refusal({ ...env, TIDINGS_LANGUAGE: 'de' });
    // As many lines, or a line more for the database URL's scheme, a sentence in English.
    assert.ok(german.length === english.length || english.length === 1, german.join('\n'));
    assert.notEqual(german.join('\n'), english.join('\n'));
    assert.match(german[0] ?? '', /^tidings: ungültige Konfiguration:$/);
    const pseudo = await refusal({ ...env, TIDINGS_LANGUAGE: 'en-XA' });
    const left = englishWordsOf(
      pseudo
        .join('\n')
        .replace(/^tidings: /gm, ' ')
        .replace(/\b[A-Z][A-Z0-9_]+\b/g, ' ')
        .replace(/\S*[@:/.[\]<>"“”(),]\S*/g, ' ')
        .replace(/\b(?:true|false|disable|require|prefer|verify-ca|verify-full|foo|ENOENT)\b/g, ' '),
    );
    assert.deepEqual(left, [], pseudo.join('\n'));
    for (const line of german.slice(1)) seen.add(line.replace(/:.*/, ''));
  }
  assert.deepEqual([...seen].sort(), [
    '  DATABASE_CA_FILE',
    '  DATABASE_URL',
    '  TIDINGS_INBOUND_IMAP_URL',
    '  TIDINGS_INBOUND_SMTP_CERT, TIDINGS_INBOUND_SMTP_KEY',
    '  TIDINGS_TRUST_PROXY',
  ]);
});
