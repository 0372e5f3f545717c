import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capHtml } from '../lib/capHtml.js';
import { isoTime, languageTag, plain } from './clean.js';
import { decodeHtml, encodingFor, metaCharset } from './decode.js';
import { MAX_ELEMENTS, MAX_NESTING } from './limits.js';
import { scanMarkup } from './scanMarkup.js';
import { sanitizeArticle } from '../lib/sanitize.js';
import { stripSiteSuffix } from './title.js';
import { countWords, readingMinutes } from '../lib/words.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

test('charset: <meta http-equiv>, labels read as browsers read them, unknown labels passed over', () => {
  assert.equal(
    metaCharset(bytes('<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-15">')),
    'ISO-8859-15',
  );
  assert.equal(
    metaCharset(bytes('<!-- <meta charset="koi8-r"> --><meta charset=\'shift_jis\'>')),
    'shift_jis',
  );
  assert.equal(metaCharset(bytes('<meta data-charset="x"><p>')), null);
  assert.equal(encodingFor('latin1'), 'windows-1252');
  assert.equal(encodingFor('UTF-16'), 'utf-8');
  assert.equal(encodingFor('no-such-charset'), null);
  assert.equal(decodeHtml(new Uint8Array([0x80, 0x93, 0x94]), 'iso-8859-1').text, '€“”');
  assert.equal(decodeHtml(bytes('é'), 'no-such-charset').text, 'é'); // falls back to UTF-8
});

test('titles: the site suffix dropped only when it names the site', () => {
  assert.equal(stripSiteSuffix('Bread at home | Crumbs', null, 'crumbs.net'), 'Bread at home');
  assert.equal(stripSiteSuffix('Ship news — The Verge', null, 'theverge.com'), 'Ship news');
  assert.equal(
    stripSiteSuffix('Ship news - Section - Harbour Daily', 'Harbour Daily', 'hd.com'),
    'Ship news - Section',
  );
  assert.equal(stripSiteSuffix('Cats – a history', 'Pets Weekly', 'pets.com'), 'Cats – a history');
  assert.equal(stripSiteSuffix('Up | Crumbs', null, 'crumbs.net'), 'Up | Crumbs'); // too little left
});

test('clean values: plain text, languages, dates', () => {
  assert.equal(plain('  <b>Fish</b> &amp;\u0000 chips\n\t', 100), 'Fish & chips');
  assert.equal(plain(' \u0007 ', 100), null);
  assert.equal(languageTag('pt_br'), 'pt-BR');
  assert.equal(languageTag('zh-hant-tw'), 'zh-Hant-TW');
  assert.equal(languageTag('en"><script>'), null);
  assert.equal(isoTime('2026-11-20'), '2026-11-20T00:00:00.000Z');
  assert.equal(isoTime('Nov 20, 2026'), null);
  assert.equal(isoTime('0001-01-01'), null);
});

test('sanitising: data: only for small raster images, relative links made absolute', () => {
  const out = sanitizeArticle(
    '<p><a href="../x?a=1&amp;b=2">x</a> <a href="data:image/png;base64,AAAA">d</a>' +
      '<img src="data:image/gif;base64,R0lGOD=="><img src="data:text/html,<script>"><img src="//cdn.com/i.png">' +
      `<img src="data:image/png;base64,${'A'.repeat(70_000)}"></p>`,
    'https://ex.com/a/b/c',
  );
  assert.equal(
    out,
    '<p><a href="https://ex.com/a/x?a=1&amp;b=2" rel="noopener noreferrer nofollow">x</a> <span>d</span>' +
      '<img src="data:image/gif;base64,R0lGOD==" loading="lazy" /><img src="https://cdn.com/i.png" loading="lazy" /></p>',
  );
});

test('the HTML cap cuts after a whole block and closes what is open', () => {
  const html = `<div><ul><li>${'a'.repeat(40)}</li><li>${'b'.repeat(40)}</li></ul><p>${'c'.repeat(40)}</p></div>`;
  assert.deepEqual(capHtml(html, 1000), { html, cut: false });
  assert.deepEqual(capHtml(html, 70), { html: `<div><ul><li>${'a'.repeat(40)}</li></ul></div>`, cut: true });
  assert.deepEqual(capHtml(`<p>${'x'.repeat(100)}</p>`, 50), { html: '', cut: true });
});

test('the markup scan: depth and elements as the parser sees them, stopped at the first past a limit', () => {
  assert.deepEqual(scanMarkup('<div><div></div><span><a href="#">x</a></span></div><br>'), {
    depth: 3,
    elements: 5,
    past: null,
  });
  // Implied end tags, as htmlparser2 (under linkedom) applies them: list items and paragraphs do not nest.
  assert.equal(scanMarkup(`<ul>${'<li>item'.repeat(5000)}</ul>${'<p>text'.repeat(5000)}`).depth, 2);
  assert.equal(scanMarkup('<!-- <div><div><div> -->&lt;div&gt;<script>"<div><div>"</script>').depth, 1);
  const deep = scanMarkup('<div>'.repeat(1_000_000));
  assert.deepEqual(deep, {
    depth: MAX_NESTING + 1,
    elements: MAX_NESTING + 1,
    past: 'nesting',
  });
  const flat = scanMarkup('<br>'.repeat(MAX_ELEMENTS * 2));
  assert.deepEqual(flat, { depth: 1, elements: MAX_ELEMENTS + 1, past: 'elements' });
  assert.equal(scanMarkup('<br>'.repeat(MAX_ELEMENTS)).past, null);
  // Other limits (an import's file: imports/markup.ts).
  const other = { nesting: 10, elements: Number.POSITIVE_INFINITY };
  assert.deepEqual(scanMarkup('<dl>'.repeat(11), other), { depth: 11, elements: 11, past: 'nesting' });
  assert.equal(scanMarkup('<br>'.repeat(MAX_ELEMENTS * 2), other).past, null);
});

test('words and reading time', () => {
  assert.equal(countWords(' one two, — three 4 … '), 4);
  assert.deepEqual([readingMinutes(0), readingMinutes(10), readingMinutes(690)], [0, 1, 3]);
});
