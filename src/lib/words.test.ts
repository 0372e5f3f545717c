import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { countWords, readingMinutes } from './words.js';

/** The definition countWords counts by: the matches of this expression. */
const byExpression = (text: string): number => text.match(/[\p{L}\p{N}]\S*/gu)?.length ?? 0;

test('countWords counts runs of non-space characters that hold a letter or digit, in any script', () => {
  const cases: [string, number][] = [
    ['', 0],
    ['one two  three', 3],
    [' — … -- !! ', 0],
    ['--abc x-y 3.14 #1', 4],
    ['日本語の文 と 中文', 3],
    ['ａｂｃ\u3000ｄｅｆ', 2], // full-width letters, the ideographic space between them
    ['a\u00a0b\u2009c\ufeffd\u200be', 4], // the zero-width space is no space: "d\u200be" is one word
    ['𝐀𝐁 𝟏 😀 😀x', 3], // astral letters and digits count; an emoji alone does not
    ['\ud835 lone \udc00 halves', 2],
    ['tab\tnew\nline\rvt\u000bff\u000c', 5],
  ];
  for (const [text, words] of cases) {
    assert.equal(countWords(text), words, JSON.stringify(text));
    assert.equal(byExpression(text), words, `the definition, ${JSON.stringify(text)}`);
  }
  assert.equal(countWords(null), 0);
});

test('countWords agrees with its definition on any text', () => {
  const unit = fc.oneof(
    fc.constantFrom(
      ' ',
      '\t',
      '\n',
      '\u00a0',
      '\u2003',
      '\u3000',
      '\ufeff',
      '\u200b',
      '-',
      '…',
      '😀',
      '𝐀',
      '\ud835',
    ),
    fc.string({ unit: 'grapheme', maxLength: 3 }),
    fc.string({ unit: 'binary', maxLength: 3 }),
  );
  fc.assert(
    fc.property(fc.array(unit, { maxLength: 60 }), (parts) => {
      const text = parts.join('');
      assert.equal(countWords(text), byExpression(text));
    }),
    { numRuns: 2000 },
  );
});

test('readingMinutes rounds at 230 words a minute, at least 1 for any text', () => {
  assert.equal(readingMinutes(0), 0);
  assert.equal(readingMinutes(1), 1);
  assert.equal(readingMinutes(345), 2);
  assert.equal(readingMinutes(2300), 10);
});
