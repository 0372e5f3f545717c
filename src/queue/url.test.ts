import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TidingsError } from '../errors.js';
import { codePoints } from '../lib/text.js';
import { MAX_PLAIN_KEY_LENGTH, MAX_TITLE_LENGTH, checkTitle, checkUrl, normaliseUrl } from './url.js';

const kind = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof TidingsError) return err.kind;
    throw err;
  }
  return 'ok';
};

test('normalising lower-cases scheme and host, drops default ports, fragments and tracking parameters', () => {
  const cases: [string, string][] = [
    ['HTTPS://Example.COM/Path?Q=1', 'https://example.com/Path?Q=1'],
    ['http://example.com:80/a', 'http://example.com/a'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['https://example.com:8443/a', 'https://example.com:8443/a'],
    ['https://example.com/a#section-2', 'https://example.com/a'],
    ['https://example.com/a?utm_source=x&id=7&UTM_Medium=y&fbclid=z', 'https://example.com/a?id=7'],
    ['https://example.com/a?utm_campaign=only', 'https://example.com/a'],
    ['https://example.com', 'https://example.com/'],
    ['https://bücher.example/', 'https://xn--bcher-kva.example/'],
  ];
  for (const [input, expected] of cases) assert.equal(normaliseUrl(input), expected, input);
});

test('checkUrl keeps what the client sent (trimmed) and compares on the normal form', () => {
  const checked = checkUrl('  https://Example.com/a#b \n');
  assert.equal(checked.url, 'https://Example.com/a#b');
  assert.equal(checked.key, checkUrl('https://example.com:443/a?utm_source=x').key);
  assert.notEqual(checked.key, checkUrl('http://example.com/a').key);
  assert.equal(checked.key, 'https://example.com/a');
});

test('a URL is keyed by its normal form, or past 500 characters by the hash of it', () => {
  const long = `https://example.com/${'é'.repeat(300)}`; // 300 characters, 1,800 once percent-encoded
  const key = checkUrl(long).key;
  assert.match(key, /^sha256:[0-9a-f]{64}$/);
  assert.equal(key, checkUrl(`${long}#fragment`).key);
  assert.notEqual(key, checkUrl(`${long}x`).key);
  const edge = `https://example.com/${'a'.repeat(MAX_PLAIN_KEY_LENGTH - 20)}`;
  assert.equal(edge.length, MAX_PLAIN_KEY_LENGTH);
  assert.equal(checkUrl(edge).key, edge);
  assert.match(checkUrl(`${edge}b`).key, /^sha256:/);
});

test('checkUrl refuses what is not an absolute http(s) URL of at most 2,048 characters', () => {
  assert.equal(
    kind(() => checkUrl(undefined)),
    'url_missing',
  );
  assert.equal(
    kind(() => checkUrl('   ')),
    'url_missing',
  );
  assert.equal(
    kind(() => checkUrl('example.com')),
    'url_invalid',
  );
  assert.equal(
    kind(() => checkUrl('mailto:a@example.com')),
    'url_invalid',
  );
  assert.equal(
    kind(() => checkUrl('data:text/html,hi')),
    'url_invalid',
  );
  assert.equal(
    kind(() => checkUrl('http://')),
    'url_invalid',
  );
  const max = `https://e.com/${'a'.repeat(2048 - 14)}`;
  assert.equal(
    kind(() => checkUrl(max)),
    'ok',
  );
  assert.equal(
    kind(() => checkUrl(`${max}a`)),
    'url_too_long',
  );
});

test('titles default to the url, fold whitespace and control characters, and count code points', () => {
  assert.equal(checkTitle(undefined, 'https://e.com/'), 'https://e.com/');
  assert.equal(checkTitle(' \t\n', 'https://e.com/'), 'https://e.com/');
  assert.equal(checkTitle('  Hello\n\tworld\u0000!  ', 'u'), 'Hello world !');
  assert.equal(checkTitle('😀'.repeat(1000), 'u').length, 2000);
  assert.equal(
    kind(() => checkTitle('😀'.repeat(1001), 'u')),
    'title_invalid',
  );
});

test("a title over the limit is shortened on a word, with an ellipsis, when asked ('shorten': feeds)", () => {
  const words = Array.from({ length: 900 }, (_, i) => `word${i}`).join(' '); // 6,000+ characters
  const short = checkTitle(words, 'u', 'shorten');
  assert.ok(codePoints(short) <= MAX_TITLE_LENGTH, String(codePoints(short)));
  assert.ok(short.length > MAX_TITLE_LENGTH * 0.8, 'cut near the limit, not far before it');
  assert.match(short, / word\d+…$/, 'ends on a whole word');
  assert.ok(words.startsWith(short.slice(0, -1)));
  assert.equal(checkTitle('a'.repeat(MAX_TITLE_LENGTH), 'u', 'shorten'), 'a'.repeat(MAX_TITLE_LENGTH));
  assert.equal(
    checkTitle('a'.repeat(MAX_TITLE_LENGTH + 1), 'u', 'shorten'),
    `${'a'.repeat(MAX_TITLE_LENGTH - 1)}…`,
  );
  const emoji = checkTitle('😀'.repeat(1001), 'u', 'shorten');
  assert.ok(codePoints(emoji) <= MAX_TITLE_LENGTH);
  assert.match(emoji, /^(😀)+…$/u, 'never cut between the halves of a pair');
  assert.equal(
    kind(() => checkTitle(words, 'u')),
    'title_invalid',
    'refused by default: a person can shorten it',
  );
});

test('control characters and invalid Unicode are refused in URLs and folded or replaced in titles', () => {
  assert.equal(
    kind(() => checkUrl('http://a.example/x\u0000y')),
    'url_invalid',
  );
  assert.equal(
    kind(() => checkUrl('http://a.example/x\u007fy')),
    'url_invalid',
  );
  assert.equal(
    kind(() => checkUrl('http://a.example/\ud800')),
    'url_invalid',
  );
  assert.equal(
    kind(() => checkUrl('http://a.example/😀')),
    'ok',
  );
  assert.equal(checkTitle('a\ud800b', 'u'), 'a\ufffdb');
  assert.equal(checkTitle('😀', 'u'), '😀');
});
