import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutBidiControls } from './bidi.js';
import { codePoints, foldWhitespace, htmlToText, truncate } from './text.js';

test('htmlToText removes markup, decodes entities and folds whitespace', () => {
  const cases: [string, string][] = [
    ['<p>One</p><p>Two</p>', 'One Two'],
    ['a<b>b</b>c', 'abc'],
    ['line<br/>break', 'line break'],
    ['Fish &amp; chips &eacute;t&#233; &#x2014; &nbsp;end', 'Fish & chips été — end'],
    ['&lt;b&gt;shown&lt;/b&gt;', '<b>shown</b>'],
    ['a < b and c > d', 'a < b and c > d'],
    ['<!-- hidden -->seen<script>alert(1)</script><STYLE>p{}</STYLE>!', 'seen!'],
    ['<script>never closed', ''],
    ['text then <a href="x" cut off', 'text then'],
    ['text <!-- comment never closed', 'text'],
    ['  spaced \n\t out  ', 'spaced out'],
    // Entities that are whitespace or controls fold like the characters they stand for.
    ['a &nbsp; b&#10;c&#x1;d &emsp;&#32; e', 'a b cd e'],
    ['<p>x</p> &nbsp; <p>y &amp;</p>', 'x y &'],
    // A reference split by a tag is decoded as in the text without tags, as HTML reads it.
    ['Caf&eac<b>ute;</b> &am<!-- -->p; &#x4<i>1;</i>', 'Café & A'],
    ['x &amp<3 &copy 2024 &unknown; &#;', 'x &<3 © 2024 &unknown; &#;'],
    // A ">" or a tag inside a quoted attribute value is the value's, as a browser reads it.
    ['A <img alt="cat<br />dog" src="c.png"> sat', 'A sat'],
    ['<p title=\'a > b\'>Hi</p><a href = "?x>1">link</a>', 'Hi link'],
    ['<p data-x=a>b">c</p>', 'b">c'],
    ['<span class"=x">y</span>', 'y'],
    ['<img alt="never closed> text', ''],
  ];
  for (const [html, text] of cases) assert.equal(htmlToText(html), text, html);
});

test('foldWhitespace drops control characters and folds whitespace', () => {
  assert.equal(foldWhitespace('ab\u0008cd\u0000 \r\n e\u0085f'), 'abcd ef');
});

test('folding and withoutBidiControls drop every bidi control, and nothing else', () => {
  const controls = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069';
  for (const c of controls) {
    assert.equal(foldWhitespace(`a${c}b ${c} c`), 'ab c', `U+${c.codePointAt(0)?.toString(16)}`);
    assert.equal(htmlToText(`<b>a</b>${c}b`), 'ab');
    assert.equal(withoutBidiControls(`a${c}b  c`), 'ab  c');
  }
  // Their neighbours are kept: U+200D (a joiner inside emoji), U+202F (a narrow space, folded), Arabic letters.
  assert.equal(
    foldWhitespace('\u{1F469}\u200d\u{1F4BB}\u202fx \u0627\u0644'),
    '\u{1F469}\u200d\u{1F4BB} x \u0627\u0644',
  );
  assert.equal(withoutBidiControls('exe.\u202egnp'), 'exe.gnp');
});

test('the bidi marks (LRM, RLM, ALM) are kept: right-to-left titles use them (issue 33)', () => {
  // A Hebrew headline whose "!" the RLM keeps on the left of the last word, as the writer placed it.
  const hebrew = '\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd!\u200f';
  for (const mark of ['\u200e', '\u200f', '\u061c']) {
    assert.equal(
      foldWhitespace(`a${mark}b ${mark} c`),
      `a${mark}b ${mark} c`,
      `U+${mark.codePointAt(0)?.toString(16)}`,
    );
    assert.equal(htmlToText(`<b>a</b>${mark}b`), `a${mark}b`);
    assert.equal(withoutBidiControls(`a${mark}b  c`), `a${mark}b  c`);
  }
  assert.equal(foldWhitespace(`  ${hebrew}\n`), hebrew);
  assert.equal(htmlToText('testing &lrm; entity &rlm;&#x61C;'), 'testing \u200e entity \u200f\u061c');
  // Beside an override, the override goes and the mark stays.
  assert.equal(withoutBidiControls('\u202eabc\u202c\u200f'), 'abc\u200f');
});

test('truncate cuts at a word near the limit, never inside a surrogate pair', () => {
  assert.equal(truncate('short', 10), 'short');
  assert.equal(truncate('aaaa bbbb cccc dddd', 17), 'aaaa bbbb cccc…');
  assert.equal(truncate('abcdefghijklmnop', 8), 'abcdefg…');
  const emoji = truncate('abcdef😀😀😀', 8);
  assert.equal(emoji, 'abcdef…');
  assert.ok(emoji.length <= 8);
});

test('htmlToText is linear on pathological markup', () => {
  for (const html of [
    '<a '.repeat(300_000),
    '<!--'.repeat(300_000),
    '<script>'.repeat(300_000),
    '< '.repeat(300_000) + '>',
    '&'.repeat(300_000),
    '&#x'.repeat(200_000),
    '&am<b>'.repeat(100_000),
    `${'  \u0001'.repeat(200_000)}x`,
    `${'<a "'.repeat(200_000)}>`,
    `${'<a x="'.repeat(200_000)}>`,
    '<a x="1">'.repeat(200_000),
  ]) {
    const started = performance.now();
    htmlToText(html);
    assert.ok(performance.now() - started < 1000, `${Math.round(performance.now() - started)} ms`);
  }
});

test('codePoints counts characters as a person does: a pair is one, and so is a lone surrogate', () => {
  assert.equal(codePoints(''), 0);
  assert.equal(codePoints('café'), 4);
  assert.equal(codePoints('a😀b'), 3);
  assert.equal(codePoints('😀😀'), 2);
  // Lone surrogates, high or low, anywhere: one each, as iterating the string counts them.
  for (const text of [
    '\ud800',
    '\udc00',
    'a\ud800',
    '\udc00a',
    '\ud800\ud800\udc00',
    '\ud83d\ude00\ude00',
    '\udc00\ud800',
  ]) {
    assert.equal(codePoints(text), Array.from(text).length, JSON.stringify(text));
  }
  assert.equal(codePoints('\udc00\ud800'), 2);
});
