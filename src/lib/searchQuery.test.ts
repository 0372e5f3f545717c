import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTidingsError } from '../errors.js';
import { highlight, snippet } from './highlight.js';
import { parseSearchQuery } from './searchQuery.js';

const w = (...words: string[]) => ({ words, substring: false });

test('parseSearchQuery: words, phrases, OR, exclusions; syntax characters are never syntax', () => {
  assert.deepEqual(parseSearchQuery('red "fox jumps" -barn heron OR egret').clauses, [
    { excluded: false, terms: [w('red')] },
    { excluded: false, terms: [w('fox', 'jumps')] },
    { excluded: true, terms: [w('barn')] },
    { excluded: false, terms: [w('heron'), w('egret')] },
  ]);
  // Punctuation splits words; AND, NOT and NEAR are words; OR only in capitals and between terms.
  assert.deepEqual(parseSearchQuery('NEAR(a* b) title:x^2 AND or').clauses, [
    { excluded: false, terms: [w('NEAR', 'a')] },
    { excluded: false, terms: [w('b')] },
    { excluded: false, terms: [w('title', 'x', '2')] },
    { excluded: false, terms: [w('AND')] },
    { excluded: false, terms: [w('or')] },
  ]);
  assert.deepEqual(parseSearchQuery('OR a OR -b OR').clauses, [
    { excluded: false, terms: [w('a')] },
    { excluded: true, terms: [w('b')] },
  ]);
  assert.deepEqual(parseSearchQuery('"unclosed phrase').clauses, [
    { excluded: false, terms: [w('unclosed', 'phrase')] },
  ]);
  assert.deepEqual(parseSearchQuery('東京タワー Привет').clauses, [
    { excluded: false, terms: [{ words: ['東京タワー'], substring: true }] },
    { excluded: false, terms: [w('Привет')] },
  ]);
  const refused = (q: string, message: RegExp) =>
    assert.throws(
      () => parseSearchQuery(q),
      (e: unknown) => isTidingsError(e, 'invalid_input') && message.test(e.message),
    );
  refused('', /Type a word/);
  refused('* " ( : ^', /Type a word/);
  refused('-a -"b c"', /cannot only leave words out/);
  refused('é'.repeat(201), /at most 200 characters/);
  refused(Array.from({ length: 17 }, (_, i) => `w${i}`).join(' '), /at most 16 words/);
  assert.equal(parseSearchQuery('é'.repeat(200)).clauses.length, 1);
});

test('highlight and snippet: folded words, phrases, substrings; excluded words unmarked; cut with ellipses', () => {
  const q = parseSearchQuery('cafe "red fox" -dog 東京');
  assert.deepEqual(highlight('Café au lait, a RED fox, a dog, 東京タワー', q), [
    { text: 'Café', mark: true },
    { text: ' au lait, a ', mark: false },
    { text: 'RED fox', mark: true },
    { text: ', a dog, ', mark: false },
    { text: '東京', mark: true },
    { text: 'タワー', mark: false },
  ]);
  assert.deepEqual(highlight('red, fox? a redfox', parseSearchQuery('"red fox"')), [
    { text: 'red, fox', mark: true },
    { text: '? a redfox', mark: false },
  ]);
  const long = `${'lorem '.repeat(40)}the heron waits ${'ipsum '.repeat(60)}`;
  const cut = snippet([null, 'no match here', long], parseSearchQuery('heron'));
  assert.equal(cut[0]?.text, '…');
  assert.equal(cut.at(-1)?.text, '…');
  assert.deepEqual(
    cut.filter((s) => s.mark),
    [{ text: 'heron', mark: true }],
  );
  assert.ok(cut.map((s) => s.text).join('').length < 300);
  const start = snippet(['', 'Nothing matches in this text.'], parseSearchQuery('heron'));
  assert.deepEqual(start, [{ text: 'Nothing matches in this text.', mark: false }]);
  assert.deepEqual(snippet([null, ''], parseSearchQuery('heron')), []);
});
