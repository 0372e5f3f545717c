import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { extractPage, type PageExtract } from './extract.js';
import { MAX_TEXT_CHARS } from './html.js';

const fixture = (name: string): Uint8Array => readFileSync(new URL(`testdata/${name}`, import.meta.url));
const html = (name: string, url: string, contentType = 'text/html; charset=utf-8'): PageExtract =>
  extractPage({ body: fixture(name), contentType, url });

test('an Open Graph page: every field from its tags', () => {
  const page = html('og-rich.html', 'https://www.railweekly.com/2026/night-train?utm_source=x');
  assert.equal(page.kind, 'html');
  assert.equal(page.title, 'The quiet return of the night train');
  assert.equal(
    page.description,
    'Sleeper services are coming back across Europe, and travellers are booking them.',
  );
  assert.equal(page.siteName, 'Rail Weekly');
  assert.equal(page.author, 'Inès Duval'); // meta author; article:author is a URL
  assert.equal(page.publishedAt, '2026-11-20T06:30:00.000Z');
  assert.equal(page.language, 'en-US'); // <html lang> before og:locale
  assert.equal(page.canonicalUrl, 'https://railweekly.com/2026/night-train?ref=canonical'); // same site
  // secure_url preferred; the width is a positive integer, the height is not
  assert.deepEqual(page.image, {
    url: 'https://cdn.railweekly.com/images/night-train.jpg',
    width: 1200,
    height: null,
    alt: 'A sleeper train at dusk',
  });
  assert.equal(page.mediaType, 'text/html');
  assert.equal(page.byteLength, fixture('og-rich.html').byteLength);
});

test('the main text: article kept, boilerplate dropped, structure and links kept, words counted', () => {
  const page = html('og-rich.html', 'https://www.railweekly.com/2026/night-train');
  const out = page.html ?? '';
  assert.match(page.text ?? '', /For two decades the sleeper trains/);
  assert.match(page.text ?? '', /the platforms at ten in the evening are busy again\.$/);
  for (const boilerplate of ['Most read', 'All rights reserved', 'Subscribe', 'tracker', 'font-family']) {
    assert.doesNotMatch(out, new RegExp(boilerplate));
  }
  assert.match(out, /<h2>Who rides<\/h2>/);
  assert.match(out, /<ul>\s*<li>Families with children<\/li>/);
  assert.match(out, /<blockquote>/);
  assert.match(out, /<figure>\s*<img [^>]*src="https:\/\/www\.railweekly\.com\/images\/couchette\.jpg"/);
  assert.match(out, /<figcaption>A six-berth couchette compartment\.<\/figcaption>/);
  assert.match(
    out,
    /<a href="https:\/\/www\.railweekly\.com\/2026\/rolling-stock" rel="noopener noreferrer nofollow">New\s+rolling\s+stock<\/a>/,
  );
  assert.match(out, /<img [^>]*loading="lazy"/);
  assert.ok(page.text?.startsWith('By Inès Duval For two decades'));
  assert.ok(page.wordCount > 240 && page.wordCount < 270, String(page.wordCount));
  assert.equal(page.readingMinutes, 1);
});

test('a page with only <title>: the site suffix dropped, the domain as site, the first paragraph as description', () => {
  const page = html('title-only.html', 'https://www.crumbs.net/bread', 'text/html');
  assert.equal(page.title, 'Baking bread at home');
  assert.equal(page.siteName, 'crumbs.net');
  assert.ok(page.description?.startsWith('Good bread needs four things: flour, water, salt and time.'));
  assert.ok((page.description ?? '').length <= 300);
  assert.equal(page.author, null);
  assert.equal(page.publishedAt, null);
  assert.equal(page.language, null);
  assert.equal(page.image, null);
  assert.equal(page.canonicalUrl, null);
  assert.ok(page.text?.endsWith('the inside is still cooking as it cools.'));
});

test('JSON-LD only: the article node of a @graph, past malformed and unrelated scripts', () => {
  const page = html('jsonld.html', 'https://www.harbournews.org/2026/crane');
  assert.equal(page.title, 'Harbour crane lifts its last container');
  assert.equal(page.description, 'After forty years the old crane at the north quay is retired.');
  assert.equal(page.author, 'Tom Berg, Ana Lopes');
  assert.equal(page.publishedAt, '2026-10-02T09:15:00.000Z');
  assert.equal(page.siteName, 'harbournews.org');
  assert.match(page.text ?? '', /^The crane on the north quay/);
});

test('a windows-1252 page declared by <meta charset>, after another <meta>', () => {
  const page = html('windows-1252.html', 'http://cafe.example.fr/menu', 'text/html');
  assert.equal(page.title, 'Café – 5 € le “menu”');
  assert.equal(page.language, 'fr');
  assert.match(page.text ?? '', /propose un “menu” complet à 5 € : entrée, plat et dessert\. C’est/);
  assert.match(page.text ?? '', /« On sert trois cents couverts par jour »/);
  assert.doesNotMatch(page.text ?? '', /\uFFFD/);
});

test('the HTTP charset outranks <meta>, a byte order mark outranks both', () => {
  const body = fixture('windows-1252.html');
  const asLatin1 = extractPage({
    body,
    contentType: 'text/html; charset=ISO-8859-1',
    url: 'http://cafe.fr/',
  });
  assert.equal(asLatin1.title, 'Café – 5 € le “menu”'); // ISO-8859-1 is read as windows-1252
  const utf8 = new TextEncoder().encode('<meta charset="windows-1252"><title>Café €</title>');
  const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8]);
  const page = extractPage({
    body: withBom,
    contentType: 'text/html; charset=windows-1252',
    url: 'https://a.fr/',
  });
  assert.equal(page.title, 'Café €');
});

test('a canonical URL on another site is dropped; a relative og:image is made absolute', () => {
  const page = html('canonical-other.html', 'https://syndicator.net/news/2026/story');
  assert.equal(page.canonicalUrl, null);
  assert.deepEqual(page.image, {
    url: 'https://syndicator.net/news/media/photo.webp',
    width: 800,
    height: 600,
    alt: null,
  });
  assert.equal(page.language, 'de');
});

test('hostile markup: nothing executable survives, fields are plain text', () => {
  const page = html('hostile.html', 'https://hostile.net/p/1');
  const out = page.html ?? '';
  for (const bad of [
    /<script/i,
    /\son\w+=/i,
    /javascript:/i,
    /vbscript:/i,
    /data:text/i,
    /data:image\/svg/i,
    /<svg/i,
    /<math/i,
    /<iframe/i,
    /<form/i,
    /<input/i,
    /<button/i,
    /<object/i,
    /<embed/i,
    /<style/i,
    /style=/i,
    /srcset=/i,
    /target=/i,
    /alert/,
    /hunter2|svg text|frame fallback|injected by script|noscript text/,
  ]) {
    assert.doesNotMatch(out, bad);
  }
  assert.match(
    out,
    /<a href="https:\/\/hostile\.net\/safe" rel="noopener noreferrer nofollow">a safe page<\/a>/,
  );
  assert.match(
    out,
    /<a href="mailto:editor@example\.com" rel="noopener noreferrer nofollow">mail the editor<\/a>/,
  );
  assert.match(out, /<span>a data page<\/span>/); // the refused link's text is kept
  assert.match(out, /<img src="https:\/\/hostile\.net\/pic\.png" loading="lazy" \/>/);
  assert.match(out, /<img alt="dot" src="data:image\/png;base64,iVBORw0KGgo=" loading="lazy" \/>/);
  assert.equal(page.title, 'Breaking: news & more');
  assert.equal(page.description, 'Description with tags');
  assert.ok(page.author !== null && page.author.startsWith('Mallory'));
  assert.doesNotMatch(page.author, /\p{Cc}/u); // control characters stripped
  assert.equal(page.image, null); // javascript: and data: images refused
  assert.equal(page.canonicalUrl, null);
  assert.equal(page.publishedAt, null);
  assert.equal(page.language, null);
  for (const field of [page.title, page.description, page.text]) assert.doesNotMatch(field ?? '', /[<>]/);
});

test('tracking pixels are dropped on arrival; what cannot be proxied (srcset, sources, backgrounds) too', () => {
  const body = `<!doctype html><html><head><title>Pixels</title></head><body><article>
<h1>Pixels</h1>
${'<p>A paragraph of the article that is long enough to be kept by the reader as the main text.</p>\n'.repeat(8)}
<p><img src="https://pics.example/photo.jpg" alt="the photo" width="600" height="400"
  srcset="https://cdn.example/photo-2x.jpg 2x"></p>
<img src="https://pics.example/open.gif" width="1" height="1" alt="">
<img src="https://pics.example/hidden.gif" style="display:none">
<img src="https://pics.example/tiny.gif" style="width:1px;height:1px">
<img src="https://pixel.wp.com/g.gif?blog=1" alt="stats">
<picture><source srcset="https://cdn.example/photo.avif" type="image/avif"><img src="https://pics.example/pic.jpg" alt="pic"></picture>
<table background="https://cdn.example/bg.png"><tr><td style="background:url(https://cdn.example/cell.png)">cell</td></tr></table>
<div style="background-image:url('https://cdn.example/div.png')">div</div>
</article></body></html>`;
  const page = extractPage({
    body: Buffer.from(body),
    contentType: 'text/html',
    url: 'https://pics.example/a',
  });
  const out = page.html ?? '';
  assert.match(
    out,
    /<img alt="the photo" width="600" height="400" src="https:\/\/pics\.example\/photo\.jpg"/,
  );
  assert.match(out, /<img alt="pic" src="https:\/\/pics\.example\/pic\.jpg"/);
  assert.doesNotMatch(out, /open\.gif|hidden\.gif|tiny\.gif|pixel\.wp\.com/);
  assert.doesNotMatch(out, /cdn\.example|srcset|<source|background|style=/);
});

test('a 10 MB page: bounded time, capped text', () => {
  const paragraph =
    '<p>' + 'Many words make a long paragraph, and long paragraphs make a heavy page. '.repeat(8) + '</p>\n';
  const page10 = `<html><head><title>Huge</title></head><body><article>${paragraph.repeat(Math.ceil(10_000_000 / paragraph.length))}</article></body></html>`;
  const body = new TextEncoder().encode(page10);
  assert.ok(body.byteLength > 10_000_000);
  const started = performance.now();
  const page = extractPage({ body, contentType: 'text/html', url: 'https://huge.com/' });
  assert.ok(performance.now() - started < 30_000);
  assert.equal(page.title, 'Huge');
  assert.equal(page.byteLength, body.byteLength);
  assert.ok(page.html !== null && page.html.length <= 512 * 1024 && page.html.length > 400 * 1024);
  assert.match(page.html, /<\/p>(?:<\/\w+>)*$/); // cut after a whole paragraph, open elements closed
  // The text kept (what search indexes) is its first 20,000 characters, cut on a word; the word count
  // and reading time are of all the reader text.
  const text = page.text ?? '';
  assert.ok(text.length <= MAX_TEXT_CHARS && text.length > MAX_TEXT_CHARS * 0.9, String(text.length));
  assert.match(text, /^Many words make a long paragraph[\s\S]*\w…$/);
  assert.ok(page.wordCount > 50_000, String(page.wordCount));
  assert.ok(page.readingMinutes > 200, String(page.readingMinutes));
});

test('a PDF (by content type): a file named by its URL, no text', () => {
  const body = new TextEncoder().encode('%PDF-1.7\n% binary...');
  const page = extractPage({
    body,
    contentType: 'application/pdf',
    url: 'https://www.example.com/reports/Annual%20Report%202026.pdf?download=1',
  });
  assert.deepEqual(
    { kind: page.kind, title: page.title, mediaType: page.mediaType, byteLength: page.byteLength },
    {
      kind: 'file',
      title: 'Annual Report 2026.pdf',
      mediaType: 'application/pdf',
      byteLength: body.byteLength,
    },
  );
  assert.equal(page.siteName, 'example.com');
  assert.equal(page.html, null);
  assert.equal(page.text, null);
  assert.equal(page.wordCount, 0);
  assert.equal(page.readingMinutes, 0);
});

test('an image, and bodies typed by their bytes when the header says nothing', () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
  const image = extractPage({
    body: png,
    contentType: 'image/png',
    url: 'https://img.host.com/a/b/cat%F0%9F%90%88.png',
  });
  assert.equal(image.kind, 'file');
  assert.equal(image.title, 'cat🐈.png');
  assert.equal(image.mediaType, 'image/png');
  const sniffed = extractPage({ body: png, contentType: 'application/octet-stream', url: 'https://h.com/x' });
  assert.equal(sniffed.mediaType, 'image/png');
  const pdf = extractPage({
    body: new TextEncoder().encode('%PDF-1.4'),
    contentType: null,
    url: 'https://h.com/',
  });
  assert.deepEqual([pdf.kind, pdf.mediaType, pdf.title], ['file', 'application/pdf', 'h.com']);
  const page = extractPage({
    body: new TextEncoder().encode('<!DOCTYPE html><title>T</title>'),
    contentType: null,
    url: 'https://h.com/',
  });
  assert.deepEqual([page.kind, page.title], ['html', 'T']);
});

test('bad input gets a result, never an exception', () => {
  const inputs = [
    { body: new Uint8Array(0), contentType: 'text/html', url: 'https://a.com/' },
    {
      body: new Uint8Array([0xff, 0xfe, 0xfd, 0x00, 0x3c]),
      contentType: 'text/html; charset=nonsense',
      url: 'not a url',
    },
    {
      body: new TextEncoder().encode('<div>'.repeat(100_000)),
      contentType: 'text/html',
      url: 'https://deep.com/',
    },
    {
      body: new TextEncoder().encode('<html><head><title>x'),
      contentType: ';;;',
      url: 'javascript:alert(1)',
    },
    {
      body: new TextEncoder().encode('<a href="x">'.repeat(20_000)),
      contentType: 'TEXT/HTML',
      url: 'https://a.com/',
    },
  ];
  for (const input of inputs) {
    const page = extractPage(input);
    assert.equal(page.byteLength, input.body.byteLength);
    assert.ok(page.html === null || !page.html.includes('<script'));
    assert.ok(page.title === null || page.title.length <= 1000);
  }
});

test('every string is capped', () => {
  const long = 'word '.repeat(5000);
  const doc = `<html lang="${'a'.repeat(500)}"><head><meta property="og:title" content="${long}"><meta name="description" content="${long}"><meta name="author" content="${'name '.repeat(5000)}"><meta property="og:site_name" content="${long}"><meta property="og:image" content="https://a.com/${'x'.repeat(5000)}.png"></head><body></body></html>`;
  const page = extractPage({
    body: new TextEncoder().encode(doc),
    contentType: 'text/html',
    url: 'https://a.com/',
  });
  assert.ok(page.title !== null && page.title.length <= 1000 && page.title.endsWith('…'));
  assert.ok(page.description !== null && page.description.length <= 300);
  assert.ok(page.author !== null && page.author.length <= 200);
  assert.ok(page.siteName !== null && page.siteName.length <= 200);
  assert.equal(page.image, null); // longer than a URL may be
  assert.equal(page.language, null);
});

test('the direction a page declares on <html> is kept, and its language', () => {
  const rtl = html('rtl-arabic.html', 'https://tech.example/ar/model');
  assert.deepEqual([rtl.direction, rtl.language], ['rtl', 'ar']);
  assert.equal(html('og-rich.html', 'https://www.railweekly.com/2026/night-train').direction, null);
});

test('bylines: an author field that repeats the site, or holds a date, is no author', () => {
  const bbc = html('byline-site.html', 'https://www.bbc.co.uk/news/uk-123');
  assert.equal(bbc.siteName, 'BBC News');
  assert.equal(bbc.author, null, 'meta author and JSON-LD author are the site');
  const folha = html('byline-date.html', 'https://www1.folha.uol.com.br/cotidiano/2018/12/ciclovias.shtml');
  assert.equal(folha.author, 'Ana Souza', 'the date in the author fields passed over, the name kept');
});
