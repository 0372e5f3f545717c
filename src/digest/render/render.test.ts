import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseFeed } from '../../feeds/parse/parse.js';
import { feedItem, sampleDigest, savedItem } from '../../test/digestFixtures.js';
import { digestView } from '../view.js';
import { renderAtom, xmlSafe } from './atom.js';
import { countsLine, digestSubject, esc, preheaderText } from './common.js';
import { digestBodyHtml, renderEmailHtml, renderWebPage } from './html.js';
import { TEXT_WIDTH, renderText, wrap } from './text.js';

const view = digestView(sampleDigest());

/** Every href value in the markup, entities decoded. */
function hrefs(html: string): string[] {
  return [...html.matchAll(/\bhref="([^"]*)"/g)].map((m) => (m[1] ?? '').replace(/&amp;/g, '&'));
}

test('HTML email: feed-supplied strings are escaped, in text and in attributes', () => {
  const html = renderEmailHtml(view);
  assert.doesNotMatch(html, /<script/i);
  assert.ok(html.includes('Zeta &lt;script&gt;alert(&quot;z&quot;)&lt;/script&gt; news'));
  // The quote of '" onmouseover="…' cannot close an attribute or open one.
  assert.ok(html.includes('&quot; onmouseover=&quot;alert(1)'));
  assert.doesNotMatch(html, /onmouseover="/);
  assert.ok(html.includes('Ada &lt;Lovelace&gt; &amp; &quot;friends&quot;'));
  // Only http(s) links become hrefs; the javascript: one is shown as its title alone.
  assert.doesNotMatch(html, /javascript:/i);
  for (const href of hrefs(html)) assert.match(href, /^https?:\/\//, href);
  assert.ok(hrefs(html).includes('https://zeta.example/post?a=1&b=%222%22'));
  // Every attribute value is quoted and nothing inside one breaks out: a tag never holds a stray quote.
  for (const tag of html.match(/<[a-z][^>]*>/g) ?? []) {
    assert.equal((tag.match(/"/g) ?? []).length % 2, 0, tag);
  }
});

test('HTML email: dark mode, preheader, header, groups in order, footer links', () => {
  const html = renderEmailHtml(view);
  assert.match(html, /^<!DOCTYPE html>/);
  assert.match(html, /<meta charset="utf-8">/);
  assert.match(html, /<meta name="color-scheme" content="light dark">/);
  assert.match(html, /<meta name="supported-color-schemes" content="light dark">/);
  assert.match(html, /@media \(prefers-color-scheme: dark\)/);
  assert.match(html, /<title>Tidings — Sunday 22 November: 6 new links<\/title>/);
  const preheader = /<div class="td-preheader" style="display:none;[^"]*">([^<]*)/.exec(html)?.[1] ?? '';
  assert.ok(preheader.startsWith('6 new links: 2 saved, 4 from 3 feeds.'), preheader);
  assert.ok(preheader.includes('Saved first'));
  assert.ok(html.includes('>Sunday 22 November 2026</h1>'));
  assert.ok(html.includes('6 new links: 2 saved, 4 from 3 feeds. 5 more are waiting for the next digest.'));
  const order = [
    '>Saved</h2>',
    '>Saved first<',
    '>alpha blog</h2>',
    '>Alpha newer<',
    '>Alpha older<',
    '>Middle Feed</h2>',
    '>Zeta Weekly</h2>',
  ].map((s) => html.indexOf(s));
  assert.ok(
    order.every((n) => n > 0),
    order.join(),
  );
  assert.deepEqual(
    [...order].sort((a, b) => a - b),
    order,
  );
  // Each item: title link, domain and the local time, excerpt.
  assert.match(
    html,
    /href="https:\/\/zeta\.example\/post\?a=1&amp;b=%222%22"[^>]*>Zeta &lt;script&gt;[^<]*<\/a>\n<p class="td-muted"[^>]*>zeta\.example · <time datetime="2026-11-21T23:30:00\.000Z">Sun 22 Nov, 00:30<\/time><\/p>\n<p class="td-text"[^>]*>Zeta summary &amp; more<\/p>/,
  );
  assert.ok(hrefs(html).includes('https://news.example/digests/42'));
  assert.ok(hrefs(html).includes('https://news.example/feeds'));
  assert.ok(hrefs(html).includes('https://news.example/settings'));
  // Table layout: presentation tables, a 600 px card, Outlook's ghost table.
  assert.match(html, /<table role="presentation" class="td-card" width="600"/);
  assert.match(html, /<!--\[if mso\]><table role="presentation" width="600"/);
  assert.equal(renderEmailHtml(view), html, 'deterministic');
});

test('titles, excerpts and group names carry dir="auto": right-to-left text reads from the right (issue 13, bug 7)', () => {
  for (const html of [renderEmailHtml(view), renderWebPage(view)]) {
    const titles = html.match(/<a class="td-link td-title"[^>]*>/g) ?? [];
    assert.ok(titles.length > 0);
    for (const tag of titles) assert.match(tag, / dir="auto"/, tag);
    assert.match(html, /<p class="td-text" dir="auto"[^>]*>Zeta summary &amp; more<\/p>/);
    assert.match(html, /<h2 class="td-muted" dir="auto"[^>]*>Zeta Weekly<\/h2>/);
  }
});

test('web page: the same body in a document of its own, without the link to itself', () => {
  const page = renderWebPage(view);
  assert.match(page, /^<!DOCTYPE html>\n<html lang="en">/);
  assert.match(page, /<title>Tidings — Sunday 22 November 2026<\/title>/);
  assert.match(page, /prefers-color-scheme: dark/);
  assert.ok(page.includes(digestBodyHtml(view, 'web')));
  assert.ok(!hrefs(page).includes(view.links.web));
  assert.doesNotMatch(page, /td-preheader/);
  assert.doesNotMatch(page, /<script/i);
});

test('plain text: wrapped at 72 columns, links spelled out, groups in order', () => {
  const text = renderText(view);
  for (const line of text.split('\n')) {
    if (/^\s*https?:\/\/\S+$/.test(line)) continue; // a link has a line of its own, however long
    assert.ok(Array.from(line).length <= TEXT_WIDTH, `too long: ${line}`);
  }
  assert.ok(text.startsWith('Tidings — Sunday 22 November 2026\n6 new links: 2 saved, 4 from 3 feeds.'));
  assert.ok(text.includes('\n* Zeta <script>alert("z")</script> news\n  zeta.example · Sun 22 Nov, 00:30\n'));
  assert.ok(text.includes('\n  https://zeta.example/post?a=1&b=%222%22\n'));
  assert.doesNotMatch(text, /javascript:/);
  const headings = ['SAVED', 'ALPHA BLOG', 'MIDDLE FEED', 'ZETA WEEKLY'].map((h) => text.indexOf(`\n${h}\n`));
  assert.ok(headings.every((n) => n > 0));
  assert.deepEqual(
    [...headings].sort((a, b) => a - b),
    headings,
  );
  assert.ok(text.includes('\nRead on the web: https://news.example/digests/42\n'));
  assert.ok(text.includes('\nManage feeds: https://news.example/feeds\n'));
  assert.ok(text.includes('\nSettings: https://news.example/settings\n'));
  // The excerpt is wrapped with an indent and ends in the ellipsis of its cut.
  assert.match(
    text,
    /\n {2}First paragraph\. Second & last, with a link\. Lorem ipsum dolor sit\n {2}amet\./,
  );
});

test('wrap: words to lines, long words alone and whole, characters counted not UTF-16 units', () => {
  assert.deepEqual(wrap('aaa bbb ccc', 7), ['aaa bbb', 'ccc']);
  assert.deepEqual(wrap('a https://example.com/very/long/path b', 10, '* ', '  '), [
    '* a',
    '  https://example.com/very/long/path',
    '  b',
  ]);
  assert.deepEqual(wrap('😀😀😀 😀😀😀', 7), ['😀😀😀 😀😀😀']);
  assert.deepEqual(wrap('', 10), []);
});

test('wrap, any text: words kept in order, lines within the width unless one word, each line filled greedily', () => {
  // Astral characters are rare, so that most texts take the fast path and some the character-counting one.
  const word = fc.oneof(
    {
      arbitrary: fc.string({ unit: fc.constantFrom('a', 'b', 'é', '-', '/'), minLength: 1, maxLength: 14 }),
      weight: 20,
    },
    { arbitrary: fc.constantFrom('😀', 'a😀b'), weight: 1 },
    {
      arbitrary: fc.constant(
        'https://example.com/a/very/long/path/that/cannot/fit/on/any/line/of/this/width',
      ),
      weight: 2,
    },
  );
  const gap = fc.constantFrom(' ', '  ', '\n', '\t ', '\u00a0');
  fc.assert(
    fc.property(
      fc.array(fc.tuple(word, gap), { maxLength: 40 }),
      fc.integer({ min: 8, max: 80 }),
      (parts, width) => {
        const text = parts.map(([w, g]) => w + g).join('');
        const words = parts.map(([w]) => w);
        const lines = wrap(text, width, '* ', '  ');
        assert.deepEqual(
          lines.flatMap((l) => l.slice(2).split(' ')).filter((w) => w !== ''),
          words,
        );
        const size = (s: string) => Array.from(s).length;
        lines.forEach((line, n) => {
          assert.ok(size(line) <= width || !line.slice(2).includes(' '), `too long: ${line}`);
          const next = lines[n + 1]?.slice(2).split(' ')[0];
          if (next !== undefined)
            assert.ok(size(line) + 1 + size(next) > width, `"${next}" fits on: ${line}`);
        });
      },
    ),
  );
});

test('wrap, Chinese and Japanese: lines break between characters, in columns, never before 。、」 nor after 「', () => {
  assert.deepEqual(
    wrap('新着リンクは6件（ご自身で保存したものが2件）。ほかに5件が次回を待っています。', 30),
    ['新着リンクは6件（ご自身で保存', 'したものが2件）。ほかに5件が次', '回を待っています。'],
  );
  // Latin names stay whole, and keep their spaces.
  assert.deepEqual(wrap('时间均按Europe/Berlin时区显示。Tidings账户“Ada Lovelace”。', 24, '* ', '  '), [
    '* 时间均按Europe/Berlin',
    '  时区显示。Tidings账户',
    '  “Ada Lovelace”。',
  ]);
  const piece = fc.constantFrom(
    '字',
    '読',
    'か',
    '。',
    '、',
    '「',
    '」',
    '（',
    '）',
    'ー',
    'Zeta',
    'x',
    ' ',
    '12',
  );
  fc.assert(
    fc.property(
      fc.array(piece, { minLength: 1, maxLength: 80 }),
      fc.integer({ min: 6, max: 40 }),
      (parts, width) => {
        const text = parts.join('').replace(/ +/g, ' ').trim();
        if (!/[字読か。、「」（）ー]/.test(text)) return;
        const lines = wrap(text, width, '* ', '  ').map((l) => l.slice(2));
        // Nothing lost or reordered: the lines joined again (a space where a line broke at one) are the text.
        const joined = lines.reduce((all, l) => (text.startsWith(`${all} ${l}`) ? `${all} ${l}` : all + l));
        assert.equal(joined, text);
        for (const l of lines.slice(1))
          assert.ok(!/^[、。」）ー]/.test(l), `a line starts with a closing mark: ${l}`);
        for (const l of lines.slice(0, -1))
          assert.ok(!/[「（]$/.test(l), `a line ends with an opening mark: ${l}`);
      },
    ),
  );
});

test('subject, counts and preheader wording', () => {
  assert.equal(digestSubject(view), 'Tidings — Sunday 22 November: 6 new links');
  const one = digestView(sampleDigest({ items: [savedItem({ url: 'https://a.example/' })] }));
  assert.equal(digestSubject(one), 'Tidings — Sunday 22 November: 1 new link');
  assert.equal(countsLine(one), '1 new link, all saved by you. 5 more are waiting for the next digest.');
  const feedsOnly = digestView(
    sampleDigest({
      digest: { id: 1, local_date: '2026-03-29', created_at: '2026-03-29T05:00:00Z', remaining: 1 },
      items: [feedItem({ url: 'https://a.example/' })],
    }),
  );
  assert.equal(countsLine(feedsOnly), '1 new link from 1 feed. 1 more is waiting for the next digest.');
  const empty = digestView(sampleDigest({ items: [], digest: { ...sampleDigest().digest, remaining: 0 } }));
  assert.equal(digestSubject(empty), 'Tidings — Sunday 22 November: nothing new');
  assert.equal(countsLine(empty), 'Nothing new this time.');
  assert.match(renderEmailHtml(empty), /Nothing new this time\./);
  const many = digestView(
    sampleDigest({
      items: Array.from({ length: 50 }, (_, n) =>
        feedItem({ url: `https://a.example/${n}`, title: `Title ${n}` }),
      ),
    }),
  );
  assert.ok(preheaderText(many).length <= 140);
  assert.ok(preheaderText(many).endsWith('…'));
  assert.equal(esc(`<a href="x" title='y'>&`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;');
});

test('Atom: parses back with our own parser; ids stable, times the build times, content the digest HTML', () => {
  const older = digestView(
    sampleDigest({
      digest: { id: 41, local_date: '2026-11-21', created_at: '2026-11-21T06:00:01.000Z', remaining: 0 },
      items: [savedItem({ url: 'https://a.example/', title: 'Older \u0001digest\uFFFE item' })],
    }),
  );
  const input = {
    account: { id: 7, name: 'Ada <Lovelace> & "friends"\u0000', created_at: '2026-01-02T03:04:05.000Z' },
    digests: [view, older],
    feedUrl: 'https://news.example/digests.atom?token=t0k&x=1',
    baseUrl: 'https://news.example',
  };
  const xml = renderAtom(input);
  assert.equal(renderAtom(input), xml, 'the same digests give the same document');
  const feed = parseFeed(Buffer.from(xml), { url: input.feedUrl });
  assert.equal(feed.format, 'atom');
  assert.equal(feed.title, 'Tidings — digests of Ada <Lovelace> & "friends"');
  assert.equal(feed.feedUrl, 'https://news.example/digests.atom?token=t0k&x=1');
  assert.equal(feed.siteUrl, 'https://news.example/digests');
  assert.deepEqual(
    feed.items.map((i) => [i.id, i.url, i.title, i.updated?.toISOString()]),
    [
      [
        'tag:news.example,2026-11-22:digests/42',
        'https://news.example/digests/42',
        'Sunday 22 November 2026: 6 links',
        '2026-11-22T06:00:03.000Z',
      ],
      [
        'tag:news.example,2026-11-21:digests/41',
        'https://news.example/digests/41',
        'Saturday 21 November 2026: 1 link',
        '2026-11-21T06:00:01.000Z',
      ],
    ],
  );
  assert.match(xml, /<id>tag:news\.example,2026-01-02:accounts\/7\/digests<\/id>/);
  assert.match(xml, /<updated>2026-11-22T06:00:03\.000Z<\/updated>/);
  const content = feed.items[0]?.contentHtml ?? '';
  assert.ok(content.includes(digestBodyHtml(view, 'atom').slice(0, 200)));
  assert.ok(content.includes('Zeta &lt;script&gt;'), 'escaped in the HTML, once');
  assert.doesNotMatch(content, /<script/);
  assert.equal(feed.items[0]?.summary, countsLine(view));
  assert.ok((feed.items[1]?.contentHtml ?? '').includes('Older digest item'));
  // No digests yet: a valid, empty feed dated by the account.
  const none = parseFeed(Buffer.from(renderAtom({ ...input, digests: [] })));
  assert.equal(none.items.length, 0);
  assert.match(renderAtom({ ...input, digests: [] }), /<updated>2026-01-02T03:04:05\.000Z<\/updated>/);
  assert.equal(xmlSafe('a\u0000b\u0008c\tok\uD800\uFFFF😀'), 'abc\tok😀');
});

test('text part: every line of an entry is indented under its title, "Also in:" too (issue 33, 10)', () => {
  const alsoIn = [
    { title: 'Other Feed', href: 'https://other.example/story' },
    { title: 'No Link Feed', href: null },
  ];
  const withSources = {
    ...view,
    groups: view.groups.map((g, i) =>
      i === 0 ? { ...g, items: g.items.map((item, j) => (j === 0 ? { ...item, alsoIn } : item)) } : g,
    ),
  };
  const lines = renderText(withSources).split('\n');
  const first = lines.findIndex((l) => l.startsWith('* '));
  const end = lines.indexOf('', first);
  const entry = lines.slice(first + 1, end);
  assert.ok(
    entry.includes('  Also in: Other Feed <https://other.example/story>, No Link Feed'),
    entry.join('\n'),
  );
  for (const line of entry) assert.match(line, /^ {2}\S/, `indented as its entry: "${line}"`);
});
