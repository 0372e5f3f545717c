import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldWhitespace } from './text.js';
import { paragraphsOfHtml, paragraphsOfText } from './paragraphs.js';

test('a summary keeps its paragraphs: the standfirst no longer runs into the body', () => {
  const html =
    '<p><strong>Doctors warn of delays to medical procedures</strong></p>\n<p>Police dropped the case on <a href="/x">Monday</a>, &amp; said…</p>';
  assert.equal(
    paragraphsOfHtml(html),
    'Doctors warn of delays to medical procedures\nPolice dropped the case on Monday, & said…',
  );
  assert.equal(paragraphsOfHtml('One<br>two<br/>three<div>four</div>'), 'One\ntwo\nthree\nfour');
  assert.equal(paragraphsOfHtml('<h2>Head</h2><ul><li>a</li><li>b</li></ul>'), 'Head\na\nb');
  assert.equal(paragraphsOfHtml('Plain <em>inline</em> text'), 'Plain inline text');
  assert.equal(
    paragraphsOfHtml('<p>Before</p><script>var p = "<p>x</p>";</script><p>After</p>'),
    'Before\nAfter',
  );
  assert.equal(paragraphsOfHtml('<p> </p><p>Only</p><p></p>'), 'Only');
  // Folding it again (an excerpt) leaves at least a space between paragraphs.
  assert.equal(foldWhitespace(paragraphsOfHtml('<p>procedures</p><p>Police</p>')), 'procedures Police');
});

test('a long content is read only as far as it is kept', () => {
  const html = '<p>word word word word</p>'.repeat(100_000);
  const text = paragraphsOfHtml(html, 1000);
  assert.ok(text.length > 1000 && text.length < 1100, String(text.length));
});

test('plain text: a blank line separates paragraphs, a single line break is a wrap', () => {
  assert.equal(
    paragraphsOfText('First line\nwrapped here.\n\n  Second\tparagraph.\n \n\n'),
    'First line wrapped here.\nSecond paragraph.',
  );
});
