import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import iconv from 'iconv-lite';
import { type Feed, type FeedItem, FeedParseError, parseFeed } from './parse.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`testdata/${name}`, import.meta.url));
const NOW = new Date('2024-06-01T00:00:00Z');
const parse = (bytes: Buffer | string, opts: { url?: string; contentType?: string } = {}): Feed =>
  parseFeed(typeof bytes === 'string' ? Buffer.from(bytes) : bytes, { now: NOW, ...opts });
const item = (feed: Feed, index: number): FeedItem => {
  const found = feed.items[index];
  assert.ok(found, `item ${index} of ${feed.items.length}`);
  return found;
};
const rss = (items: string, channel = '<title>T</title>'): string =>
  `<rss version="2.0"><channel>${channel}${items}</channel></rss>`;
const rejects = (bytes: Buffer | string, message: RegExp): void => {
  assert.throws(
    () => parse(bytes),
    (err: unknown) => err instanceof FeedParseError && message.test(err.message),
  );
};

test('RSS 2.0: channel and items in the normalised model', () => {
  const feed = parse(fixture('rss2.xml'));
  assert.equal(feed.format, 'rss');
  assert.equal(feed.title, 'Tea & Biscuits'); // "&amp;amp;" is an escaped "&amp;", as RSS publishers write it
  assert.equal(feed.siteUrl, 'https://tea.example/');
  assert.equal(feed.feedUrl, 'https://tea.example/feed.xml');
  assert.equal(feed.ttlMinutes, 90);
  assert.deepEqual(item(feed, 0), {
    id: 'tea-0001',
    url: 'https://tea.example/posts/earl-grey',
    title: 'Earl Grey & the perfect brew — part 1',
    published: new Date('2024-03-05T08:30:00Z'),
    updated: null,
    summary: 'Steep for three minutes.\nThen wait.', // paragraphs kept (issue 25)
    contentHtml: '<p>Steep for <b>three</b> minutes.</p><p>Then wait, &amp; sip.</p>',
    author: 'Ada Lovelace',
    enclosure: { url: 'https://tea.example/audio/earl-grey.mp3', type: 'audio/mpeg', length: 123456 },
    image: null, // an audio enclosure is no picture
  });
});

test('RSS: a guid that is a URL is the url when there is no link; dc:creator and dc:date fill in', () => {
  const guidLink = item(parse(fixture('rss2.xml')), 1);
  assert.equal(guidLink.id, 'https://tea.example/posts/guid-link');
  assert.equal(guidLink.url, 'https://tea.example/posts/guid-link');
  assert.equal(guidLink.author, 'Grace Hopper');
  assert.deepEqual(guidLink.published, new Date('2024-03-04T08:00:00Z'));
  const notALink = item(parse(rss('<item><guid isPermaLink="false">https://x.example/1</guid></item>')), 0);
  assert.equal(notALink.url, null, 'isPermaLink="false" says the guid is not a link');
});

test('RSS: a relative link resolves against the site; an unreadable date is null', () => {
  const relative = item(parse(fixture('rss2.xml')), 2);
  assert.equal(relative.url, 'https://tea.example/posts/relative');
  assert.equal(relative.id, relative.url, 'without a guid the link is the id');
  assert.equal(relative.published, null);
});

test('an item with neither link nor guid has a null url and a content hash for id', () => {
  const bare = item(parse(fixture('rss2.xml')), 3);
  assert.equal(bare.url, null);
  assert.match(bare.id, /^hash:[0-9a-f]{64}$/);
  assert.equal(bare.title, '');
  assert.equal(bare.summary, 'An item with neither link nor guid.');
  const again = item(parse(fixture('rss2.xml')), 3);
  assert.equal(again.id, bare.id, 'the hash is stable');
  const other = item(parse(rss('<item><description>Another text.</description></item>')), 0);
  assert.notEqual(other.id, bare.id);
});

test('RSS 0.91 with its Netscape DOCTYPE', () => {
  const feed = parse(fixture('rss091.xml'));
  assert.equal(feed.format, 'rss');
  assert.equal(feed.title, 'Old School');
  assert.equal(item(feed, 0).url, 'http://old.example/1.html');
});

test('RSS 0.90 and RSS 1.0 are RDF: rdf:about is the id, dc:date the date, sy: the interval', () => {
  const old = parse(fixture('rss090.rdf'));
  assert.equal(old.format, 'rdf');
  assert.equal(old.title, 'Mozilla Dot Org');
  assert.deepEqual(
    old.items.map((i) => i.title),
    ['New Status Updates', 'Bugzilla Reorganized'],
  );
  const feed = parse(fixture('rss10.rdf'));
  assert.equal(feed.format, 'rdf');
  assert.equal(feed.ttlMinutes, 15, 'hourly, four times');
  const entry = item(feed, 0);
  assert.equal(entry.id, 'https://news.example/a/1');
  assert.equal(entry.url, 'https://news.example/a/1?from=rdf');
  assert.equal(entry.title, 'Übernahme: Große Überraschung');
  assert.deepEqual(entry.published, new Date('2024-02-29T22:15:00Z'));
  assert.equal(entry.author, 'Jörg');
});

test('Atom 1.0: xml:base on feed and entry, text constructs, enclosure, inherited author', () => {
  const feed = parse(fixture('atom10.xml'));
  assert.equal(feed.format, 'atom');
  assert.equal(feed.title, 'Field Notes');
  assert.equal(feed.siteUrl, 'https://blog.example/journal/');
  assert.equal(feed.feedUrl, 'https://blog.example/journal/feed.atom');
  const first = item(feed, 0);
  assert.equal(first.id, 'tag:blog.example,2024:1');
  assert.equal(first.url, 'https://blog.example/journal/2024/crystals.html');
  assert.equal(first.title, 'Crystals & X-rays');
  assert.equal(first.summary, 'Plain text, where <b> stays literal.');
  assert.equal(first.contentHtml, '<p>An <a href="photo51.html">image</a> of DNA.</p>');
  assert.deepEqual(first.published, new Date('2024-03-09T08:00:00Z'));
  assert.deepEqual(first.updated, new Date('2024-03-10T11:00:00Z'));
  assert.equal(first.author, 'Rosalind Franklin', "an entry without authors has the feed's");
  assert.deepEqual(first.enclosure, {
    url: 'https://blog.example/media/photo51.png',
    type: 'image/png',
    length: 2048,
  });
  const second = item(feed, 1);
  assert.equal(second.url, 'https://blog.example/journal/only-updated', 'an http id stands in for a link');
  assert.deepEqual(second.published, second.updated, 'published falls back to updated');
  assert.equal(second.author, 'Maurice Wilkins');
  assert.equal(second.contentHtml, 'Short &amp; plain.', 'text content is escaped into HTML');
});

test('Atom 0.3: issued and modified, escaped HTML content', () => {
  const feed = parse(fixture('atom03.xml'));
  assert.equal(feed.format, 'atom');
  assert.equal(feed.siteUrl, 'http://zero.example/');
  const entry = item(feed, 0);
  assert.deepEqual(entry.published, new Date('2004-01-01T17:00:00Z'));
  assert.deepEqual(entry.updated, new Date('2004-01-01T19:48:21Z'));
  assert.equal(entry.summary, 'Escaped HTML');
  assert.equal(entry.contentHtml, '<p>Escaped <em>HTML</em></p>');
});

test('JSON Feed 1.1: text fields stay text, content_html is the body, attachments are enclosures', () => {
  const feed = parse(fixture('feed11.json'));
  assert.equal(feed.format, 'json');
  assert.equal(feed.title, "Jason's Feed");
  assert.equal(feed.siteUrl, 'https://json.example/');
  assert.equal(feed.feedUrl, 'https://json.example/feed.json');
  const first = item(feed, 0);
  assert.equal(first.title, 'Ampersands & <angles> stay text');
  assert.equal(first.summary, 'A greeting.');
  assert.equal(first.contentHtml, '<p>Hello, <strong>world</strong>.</p>');
  assert.deepEqual(first.published, new Date('2024-01-02T11:04:05Z'));
  assert.deepEqual(first.updated, new Date('2024-01-03T00:00:00Z'));
  assert.equal(first.author, 'Jason');
  assert.deepEqual(first.enclosure, { url: 'https://json.example/1.mp3', type: 'audio/mpeg', length: 99 });
  const second = item(feed, 1);
  assert.equal(second.url, 'https://elsewhere.example/story', 'external_url when there is no url');
  assert.equal(second.contentHtml, 'Text with &lt;no&gt; markup.');
  assert.equal(second.summary, 'Text with <no> markup.');
  assert.equal(second.author, 'Guest');
});

test('JSON Feed 1.0 with a bare version number and a relative url', () => {
  const feed = parse(fixture('feed10.json'), { url: 'https://solo.example/feed.json' });
  assert.equal(feed.title, 'Bare version');
  assert.equal(item(feed, 0).url, 'https://solo.example/a');
  assert.equal(item(feed, 0).author, 'Solo');
});

test('the feed URL is the base when there is no xml:base; without one a relative link has no url', () => {
  const doc = rss('<item><link>p/1</link></item>');
  assert.equal(
    item(parse(doc, { url: 'https://host.example/blog/feed' }), 0).url,
    'https://host.example/blog/p/1',
  );
  assert.equal(item(parse(doc), 0).url, null);
  const withBase = `<rss version="2.0" xml:base="https://base.example/x/"><channel><item><link>y</link></item></channel></rss>`;
  assert.equal(item(parse(withBase, { url: 'https://ignored.example/' }), 0).url, 'https://base.example/x/y');
});

test('only http(s) links become urls', () => {
  const feed = parse(rss('<item><link>javascript:alert(1)</link><guid>javascript:alert(2)</guid></item>'));
  assert.equal(item(feed, 0).url, null);
  assert.equal(item(feed, 0).id, 'javascript:alert(2)', 'the guid is still the identity');
});

test('entities and markup in titles; summaries are capped plain text', () => {
  const feed = parse(
    rss(
      `<item><title>Caf&amp;eacute; &amp;quot;Zur&amp;quot; &lt;b&gt;Post&lt;/b&gt; &#x1F600;</title>` +
        `<description>${'word '.repeat(400)}</description></item>`,
    ),
  );
  assert.equal(item(feed, 0).title, 'Café "Zur" Post 😀');
  const summary = item(feed, 0).summary;
  assert.ok(summary.length <= 1000 && summary.endsWith('…'), `${summary.length} characters`);
});

test('dates more than a day after parse time are treated as unknown', () => {
  const feed = parse(
    rss(
      '<item><title>a</title><pubDate>Sat, 01 Jun 2024 20:00:00 GMT</pubDate></item>' +
        '<item><title>b</title><pubDate>Wed, 01 Jan 2031 00:00:00 GMT</pubDate></item>',
    ),
  );
  assert.deepEqual(item(feed, 0).published, new Date('2024-06-01T20:00:00Z'));
  assert.equal(item(feed, 1).published, null);
});

test('legacy encodings are decoded from the prolog or the Content-Type', () => {
  const cyrillic = (encoding: string) =>
    iconv.encode(
      `<?xml version="1.0" encoding="${encoding}"?>${rss('<item><title>Привет, мир</title></item>')}`,
      encoding,
    );
  for (const encoding of ['windows-1251', 'koi8-r']) {
    assert.equal(item(parse(cyrillic(encoding)), 0).title, 'Привет, мир', encoding);
  }
  const sjis = iconv.encode(rss('<item><title>日本語のタイトル</title></item>'), 'shift_jis');
  assert.equal(
    item(parse(sjis, { contentType: 'application/rss+xml; charset=Shift_JIS' }), 0).title,
    '日本語のタイトル',
  );
  const latin1 = iconv.encode(rss('<item><title>Crème brûlée à la façon</title></item>'), 'iso-8859-1');
  assert.equal(item(parse(latin1), 0).title, 'Crème brûlée à la façon', 'undeclared ISO-8859-1');
  const cp1252 = iconv.encode(rss('<item><title>“Quoted” – dashed</title></item>'), 'windows-1252');
  assert.equal(item(parse(cp1252), 0).title, '“Quoted” – dashed', 'undeclared windows-1252');
});

test('warnings a broken site prints before the XML declaration are skipped', () => {
  const feed = parse(
    `<br />\n<b>Warning</b>: Undefined variable in feed.php<br />\n${fixture('rss091.xml').toString()}`,
  );
  assert.equal(feed.title, 'Old School');
});

test('a UTF-8 byte order mark before the prolog', () => {
  const feed = parse(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), fixture('rss091.xml')]));
  assert.equal(feed.title, 'Old School');
});

const BILLION_LAUGHS =
  /^refused: the feed declares XML entities that expand other entities \(billion laughs\)$/;
const XXE = /^refused: the feed declares an external XML entity \(XXE\)$/;
const withSubset = (subset: string, title = 'T'): string =>
  `<?xml version="1.0"?>\n<!DOCTYPE rss [${subset}]>\n${rss('<item><title>i</title></item>', `<title>${title}</title>`)}`;

test('billion laughs: refused before parsing, quickly', () => {
  const started = performance.now();
  rejects(fixture('billion-laughs.xml'), BILLION_LAUGHS);
  assert.ok(performance.now() - started < 1000);
});

test('XXE: an external entity is refused and no file is read', () => {
  rejects(fixture('xxe.xml'), XXE);
  let message = '';
  try {
    parse(fixture('xxe.xml'));
  } catch (err) {
    message = String(err);
  }
  assert.doesNotMatch(message, /root:/);
});

test('every way of declaring an external or expanding entity is refused', () => {
  const external = [
    '<!ENTITY x PUBLIC "-//A//B" "http://evil.example/x.dtd">',
    '<!ENTITY % remote SYSTEM "http://evil.example/x.dtd"> %remote;',
    '<!ENTITY\n  x\tSYSTEM\n"file:///etc/passwd"  >',
    '<!ENTITY a "]>"><!ENTITY x SYSTEM "file:///etc/passwd">', // a "]>" in a value does not end the subset
    '<!-- ]> --><!ENTITY x SYSTEM "file:///etc/passwd">',
    // A parameter entity that declares one when expanded, as out-of-band XXE payloads do.
    `<!ENTITY % p "<!ENTITY x SYSTEM 'file:///etc/passwd'>"> %p;`,
    '<!ENTITY % p "&#60;!ENTITY x SYSTEM &#39;file:///etc/passwd&#39;>"> %p;',
    '<!ELEMENT rss ANY><!ATTLIST rss v CDATA "]>"><?pi ]> ?><!ENTITY x SYSTEM "file:///x">',
  ];
  for (const subset of external) rejects(withSubset(subset), XXE);
  const expanding = [
    '<!ENTITY a "ha"><!ENTITY b "&a;&a;">',
    "<!ENTITY a 'ha'><!ENTITY b '&a;&a;'>",
    '<!ENTITY a "ha"><!ENTITY b "&#38;a;&#x26;a;">', // character references that spell a reference
    '<!ENTITY % p "ha"><!ENTITY b "%p;">',
    '<!ENTITY % p "&#37;q;">',
    `<!ENTITY % p "<!ENTITY a 'ha'><!ENTITY b '&#38;a;'>"> %p;`,
  ];
  for (const subset of expanding) rejects(withSubset(subset), BILLION_LAUGHS);
});

test('a DOCTYPE without entities, or with plain-text ones, is read as before', () => {
  const feeds = [
    withSubset(''),
    withSubset('<!ENTITY brand "Tea &amp; Biscuits &#169; 2024">', 'T &brand;'),
    withSubset('<!ENTITY x \'one\'><!ENTITY y "two &#x2014; 50% off"><!-- &a; -->'),
    withSubset('<!ELEMENT rss ANY><!ATTLIST rss version CDATA #IMPLIED>'),
    withSubset('<!ENTITY sig "<b>Me</b> &amp; co">'),
  ];
  for (const doc of feeds) {
    const feed = parse(doc);
    assert.equal(feed.format, 'rss');
    assert.equal(item(feed, 0).title, 'i');
  }
  assert.equal(
    parse(feeds[1] ?? '').title,
    'T Tea & Biscuits © 2024',
    'internal entities whose values are text are expanded (doctype.ts)',
  );
  assert.equal(parse(fixture('rss091.xml')).title, 'Old School', 'the Netscape RSS 0.91 DOCTYPE');
});

test('a declared charset Tidings does not know is an error, wherever it is declared', () => {
  const doc = rss('<item><title>Café</title></item>');
  assert.throws(
    () => parse(doc, { contentType: 'application/rss+xml; charset=x-no-such-charset' }),
    (err: unknown) =>
      err instanceof FeedParseError && err.message === 'unsupported charset "x-no-such-charset"',
  );
  rejects(`<?xml version="1.0" encoding="klingon"?>${doc}`, /^unsupported charset "klingon"$/);
  // What is not consulted is not judged: a byte order mark wins over the header, the header over the prolog.
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(doc)]);
  assert.equal(item(parse(bom, { contentType: 'text/xml; charset=klingon' }), 0).title, 'Café');
  const prolog = `<?xml version="1.0" encoding="klingon"?>${doc}`;
  assert.equal(item(parse(prolog, { contentType: 'text/xml; charset=utf-8' }), 0).title, 'Café');
});

test('a declared multi-byte charset the bytes do not fit ends in the error decoding it gives', () => {
  const doc = Buffer.from(rss('<item><title>Café</title></item>'));
  for (const charset of ['utf-16', 'utf-16be', 'utf-32']) {
    assert.throws(
      () => parse(doc, { contentType: `application/rss+xml; charset=${charset}` }),
      (err: unknown) => err instanceof FeedParseError && err.message === 'not a feed: no XML element found',
      charset,
    );
  }
});

test('what is not a feed fails with a typed error and a clear message', () => {
  rejects(fixture('page.html'), /^not a feed: HTML page$/);
  rejects(Buffer.alloc(0), /^empty document$/);
  rejects(' \n\t', /^empty document$/);
  rejects('just some text', /^not a feed: no XML element found$/);
  rejects('<opml version="2.0"><body/></opml>', /^not a feed: the document is <opml>/);
  rejects('{"items": [', /^malformed JSON: /);
  rejects('{"title": "no items"}', /^not a feed: JSON without an "items" list$/);
  rejects('[1, 2]', /^not a feed: JSON without an "items" list$/);
});

test('a feed with nothing in it yet is an empty feed, not an error', () => {
  for (const doc of [
    '<rss version="2.0"><channel></channel></rss>',
    '<feed xmlns="http://www.w3.org/2005/Atom"/>',
  ]) {
    const feed = parse(doc);
    assert.equal(feed.title, '');
    assert.deepEqual(feed.items, []);
  }
});

test('parsing stays linear on hostile input', () => {
  const unclosed = rss(`<item><title>x</title><description>${'&lt;a '.repeat(200_000)}</description></item>`);
  const brackets = `<!DOCTYPE x [${'['.repeat(200_000)}<rss/>`;
  const subsets = ['<!ENTITY a "', '<!ENTITY a "x">', '<!', ']', '<!x "', '<!ENTITY ', '<!--'].map(
    (piece) => `<!DOCTYPE x [${piece.repeat(100_000)}]><rss/>`,
  );
  for (const doc of [unclosed, brackets, ...subsets]) {
    const started = performance.now();
    try {
      parse(doc);
    } catch (err) {
      assert.ok(err instanceof FeedParseError);
    }
    assert.ok(performance.now() - started < 2000, `${Math.round(performance.now() - started)} ms`);
  }
});
