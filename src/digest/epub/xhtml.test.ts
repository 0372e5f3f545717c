import assert from 'node:assert/strict';
import { test } from 'node:test';
import { XMLValidator } from 'fast-xml-parser';
import { epubcheck, epubcheckSkipReason } from '../../test/epubcheck.js';
import type { Book } from './book.js';
import { epubBytes } from './package.js';
import { MAX_ATTRIBUTE, MAX_DEPTH, safeHref, toXhtml } from './xhtml.js';

/*
 * The XHTML writer of EPUB chapters on hostile reader HTML: whatever it is given, the output parses as
 * XML, keeps the text, and holds only what EPUB 3 content documents allow (EPUBCheck reads a book of it).
 */

/** Well-formed as XML, in a root element (the writer's output is a fragment). */
function assertWellFormed(xhtml: string): void {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- its successor is not a dependency; this one still checks well-formedness
  const result = XMLValidator.validate(`<div>${xhtml}</div>`);
  assert.equal(result, true, `${JSON.stringify(result)}\n${xhtml.slice(0, 2000)}`);
}

const HOSTILE = {
  unclosed: '<p>one <b>bold <i>italic <a href="https://example.org/x">link',
  entities: '<p>&amp; &lt;tag&gt; &nbsp;&eacute;&#x1F600;&#0; &bogus; &#xD800; &quot;q&quot;</p>',
  cdataEnd: '<p>a ]]> b <![CDATA[ c ]]> d</p>',
  controls: '<p>bell\u0007 nul\u0000 esc\u001b c1\u0085 lone\ud800 fffe\ufffe ok</p>',
  hugeAttribute: `<p title="${'t'.repeat(MAX_ATTRIBUTE + 1)}"><a href="https://example.org/${'x'.repeat(3000)}">long</a></p>`,
  nestedTables:
    '<table><tr><td>a<table><tr><td>inner</td></tr>loose</table></td><td colspan="99999">b</td></tr><caption>c</caption></table>',
  svgMath:
    '<p>before<svg><script>alert(1)</script><text>svg text</text></svg><math><mi>x</mi></math>after</p>',
  scriptsForms:
    '<script>evil()</script><form><input value="x"><textarea>t</textarea></form><iframe src="https://x"></iframe><p onclick="x()" style="color:red">kept</p>',
  blocksInPhrasing: '<p>para <div>div</div> <ul><li>li</li></ul> <h2>heading</h2> end</p>',
  strayStructure: '<li>stray item</li><td>stray cell</td><tr><td>stray row</td></tr><dd>stray dd</dd>',
  listsMixed: '<ul>text<li>a<li>b<ul><li>c</ul><p>para in list</p></ul><dl><dt>t<dd>d</dl>',
  links:
    '<a href="javascript:alert(1)">js</a><a href="//proto.rel/x">rel</a><a href="/x">path</a><a href="https://a.example/1"><a href="https://b.example/2">nested</a></a>',
  images:
    '<p><img src="https://example.org/i.png" alt="A chart &amp; more"><img src="data:image/png;base64,AAAA"></p>',
  deep: `${'<div><span>'.repeat(MAX_DEPTH * 2)}deep text${'</span></div>'.repeat(MAX_DEPTH * 2)}`,
  namespaced: '<p xml:lang="fr" xmlns:foo="x" foo:bar="y" lang="not a language!" dir="sideways">ns</p>',
  voids: '<p>a<br>b<br/>c<hr>d<wbr>e</p><hr><br>',
} as const;

for (const [name, html] of Object.entries(HOSTILE)) {
  test(`hostile HTML (${name}) becomes well-formed XHTML`, () => {
    assertWellFormed(toXhtml(html));
  });
}

test('text and entities survive, escaped for XML; nothing XML forbids is left', () => {
  const out = toXhtml(HOSTILE.entities + HOSTILE.cdataEnd + HOSTILE.controls);
  assert.ok(out.includes('&amp; &lt;tag&gt; \u00a0é😀'), out);
  assert.ok(!out.includes(']]>'), 'a "]]>" in text is escaped');
  assert.ok(out.includes(']]&gt;'));
  assert.ok(out.includes('bell nul esc c1 lone fffe ok'), out);
  // eslint-disable-next-line no-control-regex -- the characters that must be gone
  assert.doesNotMatch(out, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u0080-\u009f\ud800-\udfff\ufffe\uffff]/u);
  assert.ok(!/&(?!amp;|lt;|gt;|quot;)/.test(out), 'no entity XML does not define');
});

test('scripts, forms, frames, SVG and MathML go with their content; style and handlers go', () => {
  const out = toXhtml(HOSTILE.svgMath + HOSTILE.scriptsForms);
  assert.equal(out, '<p>beforeafter</p><p>kept</p>');
});

test('only absolute http(s) links, never one inside another; images leave their alt text, never a src', () => {
  const out = toXhtml(HOSTILE.links + HOSTILE.images);
  assert.equal(
    out,
    '<a>js</a><a>rel</a><a>path</a><a href="https://a.example/1">nested</a><p> [A chart &amp; more] </p>',
  );
  assert.ok(!out.includes('src='));
});

test('over-long attributes and bad values are dropped, the element kept', () => {
  const out = toXhtml(HOSTILE.hugeAttribute + HOSTILE.namespaced + '<ol start="3" reversed>x</ol>');
  assert.equal(out, '<p><a>long</a></p><p>ns</p><ol start="3" reversed="reversed"><li>x</li></ol>');
  assert.equal(
    toXhtml('<p lang="pt-BR" dir="RTL" title=" a\tb ">x</p>'),
    '<p lang="pt-BR" xml:lang="pt-BR" dir="rtl" title="a b">x</p>',
  );
});

test('the content model is kept: blocks in a paragraph are unwrapped, lists and tables hold only their parts', () => {
  // The parser closes a paragraph where a block opens, as browsers do; a block inside phrasing is unwrapped.
  assert.equal(
    toXhtml(HOSTILE.blocksInPhrasing),
    '<p>para </p><div>div</div> <ul><li>li</li></ul> <h2>heading</h2> end<p></p>',
  );
  assert.equal(
    toXhtml('<h2>a <div>b</div> c</h2><a href="https://x.example/"><p>d</p></a>'),
    '<h2>a  b c</h2><a href="https://x.example/"> d</a>',
  );
  assert.equal(
    toXhtml(HOSTILE.nestedTables),
    '<table><tbody><tr><td>a<table><tbody><tr><td>inner</td></tr><tr><td>loose</td></tr></tbody></table></td><td>b</td></tr><tr><td>c</td></tr></tbody></table>',
  );
  assert.equal(
    toXhtml(HOSTILE.listsMixed),
    '<ul><li>text</li><li>a</li><li>b<ul><li>c</li></ul><p>para in list</p></li></ul><dl><dt>t</dt><dd>d</dd></dl>',
  );
  assert.equal(
    toXhtml(HOSTILE.strayStructure),
    '<div>stray item</div><div>stray cell</div><div><div>stray row</div></div><div>stray dd</div>',
  );
});

test('nesting past MAX_DEPTH is flattened into text', () => {
  const out = toXhtml(HOSTILE.deep);
  assert.ok(out.includes('deep text'));
  assert.ok((out.match(/<div>/g) ?? []).length + (out.match(/<span>/g) ?? []).length <= MAX_DEPTH);
});

test(
  'a book of every hostile fragment passes EPUBCheck without an error or a warning',
  { skip: epubcheckSkipReason() },
  async () => {
    const entries = Object.entries(HOSTILE).map(([name, html]) => ({
      title: `Hostile: ${name} <&>`,
      href: 'https://example.org/a?x=1&y=2',
      site: 'Example & Co',
      readingTime: '3 min read',
      excerpt: 'A summary with <markup> & ]]> in it',
      article: {
        html,
        author: 'Jane "J" Doe',
        siteName: null,
        language: name === 'deep' ? 'ar' : null,
        direction: name === 'deep' ? 'rtl' : null,
      },
    }));
    const book: Book = {
      identifier: 'urn:uuid:12345678-1234-5234-8234-123456789abc',
      title: 'Tidings — Sunday 22 November 2026',
      dateLabel: 'Sunday 22 November 2026',
      localDate: '2026-11-22',
      modified: '2026-11-22T06:00:00Z',
      language: 'en',
      counts: { items: entries.length + 2, entries: entries.length + 1, articles: entries.length },
      sections: [
        { title: 'Saved', more: 0, entries },
        {
          title: '',
          more: 3,
          entries: [{ title: '', href: null, site: '', readingTime: null, excerpt: '', article: null }],
        },
      ],
    };
    const report = await epubcheck(epubBytes(book));
    assert.deepEqual([report.fatals, report.errors, report.warnings], [0, 0, 0], report.output);
  },
);

/**
 * Links as pages write them (issue 33, H): characters the WHATWG URL parser leaves as they are (`|`, `^`,
 * `{}`, `[]`, a lone `%`, a second `#`) are not allowed in a URL by RFC 3986, and EPUBCheck refuses them
 * (RSC-020). Each is a link that parses: it stays a link, encoded as URLs must be.
 */
const ODD_LINKS = [
  'https://x.example/wiki/A|B',
  'https://x.example/a^b',
  'https://x.example/q?x={1}&y=[2]|3^4`5\\6',
  'https://x.example/p#frag|with^odd{}[]#hash',
  'https://x.example/100%/lone%zz%4',
  'https://x.example/sp ace/"quoted"/<angle>',
  'https://x.example/ünïcode/日本?q=ü#ü',
  'https://us|er:p^a@x.example/',
  'https://[::1]:8080/v6|path',
  'https://x.example/a\\b{c}',
  "https://x.example/a'b(c)*d!e$f;g=h,i~j@k:l",
  'https://bücher.example/',
  'HTTPS://X.EXAMPLE/Upper',
  'mailto:someone@x.example?subject=a|b^c{d}',
  'mailto:lone\ud800@x.example?subject=ü%',
];

/** RFC 3986's URI: scheme, then only its allowed characters and whole %XX escapes (one "?" part, one "#"). */
const RFC3986 =
  /^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/[\]]|%[0-9A-Fa-f]{2})*(?:\?(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?(?:#(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?$/;

const attributeOf = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

test('a link with characters RFC 3986 forbids is kept, percent-encoded, as the WHATWG parser reads it', () => {
  for (const raw of ODD_LINKS) {
    const href = safeHref(raw);
    assert.ok(href !== null, raw);
    assert.match(href, RFC3986, `${raw} → ${href}`);
    if (!raw.startsWith('mailto:')) {
      // The same address: the WHATWG parser reads the encoded link as the link it was given.
      assert.equal(new URL(href).host, new URL(raw).host, raw);
      assert.equal(
        decodeURIComponent(new URL(href).pathname),
        decodeURIComponent(new URL(raw).pathname.replace(/%(?![0-9A-Fa-f]{2})/g, '%25')),
        raw,
      );
    }
  }
  assert.equal(safeHref('https://x.example/wiki/A|B'), 'https://x.example/wiki/A%7CB');
  assert.equal(safeHref('https://x.example/a^b?c=d^e#f^g'), 'https://x.example/a%5Eb?c=d%5Ee#f%5Eg');
  assert.equal(safeHref('https://x.example/ok/path?a=1&b=2#top'), 'https://x.example/ok/path?a=1&b=2#top');
  assert.equal(safeHref('https://x.example/50%25off'), 'https://x.example/50%25off', 'an escape stays one');
  assert.equal(safeHref('https://x.example/50%off'), 'https://x.example/50%25off', 'a lone % is escaped');
  assert.equal(safeHref('https://[::1]:8080/x'), 'https://[::1]:8080/x', 'an IPv6 host keeps its brackets');
});

test(
  'a book of a page full of odd links passes EPUBCheck (no RSC-020), each link kept',
  { skip: epubcheckSkipReason() },
  async () => {
    const html = `<p>${ODD_LINKS.map((u, i) => `<a href="${attributeOf(u)}">link ${i}</a>`).join(' · ')}</p>`;
    const out = toXhtml(html);
    assert.equal((out.match(/<a href=/g) ?? []).length, ODD_LINKS.length, out);
    const entries = ODD_LINKS.map((href, i) => ({
      title: `Odd link ${i}`,
      href,
      site: 'x.example',
      readingTime: null,
      excerpt: '',
      article: i === 0 ? { html, author: null, siteName: null, language: null, direction: null } : null,
    }));
    const book: Book = {
      identifier: 'urn:uuid:12345678-1234-5234-8234-123456789abd',
      title: 'Tidings — Sunday 22 November 2026',
      dateLabel: 'Sunday 22 November 2026',
      localDate: '2026-11-22',
      modified: '2026-11-22T06:00:00Z',
      language: 'en',
      counts: { items: entries.length, entries: entries.length, articles: 1 },
      sections: [{ title: 'Saved', more: 0, entries }],
    };
    const report = await epubcheck(epubBytes(book));
    assert.deepEqual([report.fatals, report.errors, report.warnings], [0, 0, 0], report.output);
  },
);
