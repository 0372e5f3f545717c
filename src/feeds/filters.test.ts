import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { FILTER_SUMMARY_CHARS, FILTER_TITLE_CHARS, compileFilter, passesFilters } from './filters.js';
import { isTidingsError } from '../errors.js';

const item = (title: string, summary = '') => ({ title, summary });
const invalidInput = (err: unknown): boolean => isTidingsError(err, 'invalid_input');

test('empty filters pass everything', () => {
  assert.equal(compileFilter(null), null);
  assert.equal(compileFilter('  '), null);
  assert.equal(passesFilters(item('anything'), null, null), true);
});

test('words match whole words, case-insensitively, in title or summary', () => {
  const include = compileFilter('Rust, go');
  assert.equal(passesFilters(item('Why RUST is fast'), include, null), true);
  assert.equal(passesFilters(item('Go 1.30 released'), include, null), true);
  assert.equal(passesFilters(item('A good day'), include, null), false);
  assert.equal(passesFilters(item('News', 'now in rust'), include, null), true);
  assert.equal(passesFilters(item('Über Käse'), compileFilter('käse'), null), true);
});

test('exclude wins over include; phrases and regular expressions work', () => {
  const include = compileFilter('release');
  const exclude = compileFilter('/beta|rc\\d+/, sponsored post');
  assert.equal(passesFilters(item('Stable release'), include, exclude), true);
  assert.equal(passesFilters(item('Beta release'), include, exclude), false);
  assert.equal(passesFilters(item('release rc2'), include, exclude), false);
  assert.equal(passesFilters(item('release', 'This is a Sponsored Post'), include, exclude), false);
  assert.equal(passesFilters(item('x'), compileFilter('/a,b/'), null), false);
  assert.equal(passesFilters(item('a,b'), compileFilter('/a,b/'), null), true);
});

test('a bad regular expression is invalid input', () => {
  assert.throws(() => compileFilter('/(unclosed/'), invalidInput);
  assert.throws(() => compileFilter('x'.repeat(2001)), invalidInput);
});

/** What JavaScript's backtracking engine takes seconds or minutes on (measured: /(a|aa)+b/, 32 s on 41 characters). */
const CATASTROPHIC = [
  '/(a|aa)+b/',
  '/(a+)+$/',
  '/(x+x+)+y/',
  '/(\\w|\\d)+x/',
  '/a*a*a*a*b/',
  '/(.*a){12}/',
  '/(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)b/',
  '/\\s*\\s*\\s*\\s*x/',
];

/** Texts that make a backtracking engine try every way, as long as a hostile feed likes. */
const hostile = (unit: string): { title: string; summary: string } => ({
  title: unit.repeat(100_000),
  summary: unit.repeat(100_000),
});

/** The slowest of a few runs of one filter (compiled afresh, as each refresh does) over a text, in ms. */
function slowest(source: string, item: { title: string; summary: string }): number {
  let worst = 0;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    passesFilters(item, compileFilter(source), null);
    worst = Math.max(worst, performance.now() - started);
  }
  return worst;
}

test('patterns that hang a backtracking engine run in linear time over a bounded text', () => {
  const times: string[] = [];
  for (const source of CATASTROPHIC) {
    for (const unit of ['a', 'x', '1', ' ', 'ab']) {
      const ms = slowest(source, hostile(unit));
      times.push(`${source} on "${unit}"…: ${ms.toFixed(1)} ms`);
      assert.ok(ms < 250, times.at(-1));
    }
  }
});

test('look-arounds and back-references are refused when the filter is set, in words that say why', () => {
  for (const source of ['/(?=x)y/', '/(a)\\1/', '/(?<=a)b/', '/\\u00e9/']) {
    assert.throws(
      () => compileFilter(`rust, ${source}`),
      (err: unknown) =>
        isTidingsError(err, 'invalid_input') &&
        err.message.startsWith(`not a valid regular expression ${source}: `) &&
        err.message.includes('no look-arounds such as (?=…) or (?<=…), no back-references such as \\1'),
      source,
    );
  }
  // RE2's parser calls a look-behind an "invalid named capture": the message says what it is.
  assert.throws(
    () => compileFilter('/(?<=foo)bar/'),
    (err: unknown) =>
      isTidingsError(err, 'invalid_input') &&
      err.message.startsWith(
        'not a valid regular expression /(?<=foo)bar/: look-behind such as (?<=…) or (?<!…) is not supported (',
      ) &&
      !err.message.includes('named capture'),
  );
  // What RE2 does run: classes, anchors, word boundaries, \p{…}, counted repeats, named groups.
  const ok = compileFilter('/^(?<tag>beta|rc)\\d{1,3}\\b/, /\\p{Greek}{2,}/, /go(lang)?\\b/');
  assert.equal(passesFilters(item('RC12 is out'), ok, null), true);
  assert.equal(passesFilters(item('Νέα: Καλημέρα'), ok, null), true);
  assert.equal(passesFilters(item('golang 1.0'), ok, null), true);
  assert.equal(passesFilters(item('rc1234 going'), ok, null), false);
});

test('filters read the title and the start of the summary only', () => {
  const include = compileFilter('needle, /haystack$/');
  const late = (n: number) => item('Title', `${'x '.repeat(n / 2)}needle`);
  assert.equal(passesFilters(late(FILTER_SUMMARY_CHARS - 10), include, null), true);
  assert.equal(passesFilters(late(FILTER_SUMMARY_CHARS), include, null), false);
  assert.equal(passesFilters(item(`${'t'.repeat(FILTER_TITLE_CHARS)} needle`), include, null), false);
  // The title's end is where it is cut: $ matches there, before the newline that joins the summary.
  assert.equal(passesFilters(item('a haystack', 'more'), include, null), false);
});

test('any filter a person may write runs quickly on any item a feed may send', () => {
  const piece = fc.constantFrom(
    ...['a', 'b', 'x', '.', '\\w', '\\d', '\\s', '\\b', '[ab]', '[^a]', '|', '(', ')', '(?:', ')'],
    ...['*', '+', '?', '{2,}', '{0,40}', '^', '$', ',', ' ', '\\1', '(?=', '\\p{L}'],
  );
  const source = fc
    .array(piece, { minLength: 1, maxLength: 30 })
    .map((p) => `/${p.join('')}/, words ${p.length}`);
  const text = fc.constantFrom('a', 'ab', 'x', ' ', '1', 'a1 ', 'é').map(hostile);
  let worst = 0;
  fc.assert(
    fc.property(source, text, (filter, it) => {
      let compiled: ReturnType<typeof compileFilter>;
      try {
        compiled = compileFilter(filter);
      } catch (err) {
        assert.ok(isTidingsError(err, 'invalid_input'));
        return;
      }
      const started = performance.now();
      passesFilters(it, compiled, compiled);
      worst = Math.max(worst, performance.now() - started);
      assert.ok(
        performance.now() - started < 250,
        `${filter}: ${Math.round(performance.now() - started)} ms`,
      );
    }),
    { numRuns: 300 },
  );
  assert.ok(worst < 250, `slowest: ${worst.toFixed(1)} ms`);
});
