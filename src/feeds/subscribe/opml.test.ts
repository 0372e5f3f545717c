import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { isTidingsError } from '../../errors.js';
import { MAX_OPML_BYTES, type OpmlFeed, generateOpml } from './opml.js';
import { parseOpml, parseOpmlList } from './opmlRead.js';

const opml = (body: string, head = '<head><title>Subscriptions</title></head>'): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<opml version="2.0">${head}<body>${body}</body></opml>\n`;

const rejects = (input: Buffer | string, message: RegExp): void => {
  assert.throws(
    () => parseOpml(input),
    (err: unknown) => isTidingsError(err, 'invalid_input') && message.test(err.message),
  );
};

describe('parseOpml', () => {
  test('nested folders become " / " paths; folder-only outlines are not feeds; document order is kept', () => {
    const outlines = parseOpml(
      opml(`
        <outline text="Loose" type="rss" xmlUrl="https://loose.example/feed" htmlUrl="https://loose.example/"/>
        <outline text="Tech">
          <outline text="Go" type="rss" xmlUrl="https://go.example/atom.xml"/>
          <outline title="Web">
            <outline text="CSS" xmlUrl="https://css.example/rss"/>
          </outline>
        </outline>
        <outline text="Empty folder"/>
        <outline text="Last" xmlUrl="https://last.example/index.xml"/>`),
    );
    assert.deepEqual(outlines, [
      { url: 'https://loose.example/feed', title: 'Loose', htmlUrl: 'https://loose.example/', folder: null },
      { url: 'https://go.example/atom.xml', title: 'Go', htmlUrl: null, folder: 'Tech' },
      { url: 'https://css.example/rss', title: 'CSS', htmlUrl: null, folder: 'Tech / Web' },
      { url: 'https://last.example/index.xml', title: 'Last', htmlUrl: null, folder: null },
    ]);
  });

  test('the title falls back from text to title to the URL; an untitled folder adds nothing to the path', () => {
    const outlines = parseOpml(
      opml(`
        <outline text="" title="Only a title" xmlUrl="https://a.example/feed"/>
        <outline xmlUrl="  https://b.example/feed  "/>
        <outline><outline text="Inside an untitled folder" xmlUrl="https://c.example/feed"/></outline>`),
    );
    assert.deepEqual(
      outlines.map((o) => [o.title, o.url, o.folder]),
      [
        ['Only a title', 'https://a.example/feed', null],
        ['https://b.example/feed', 'https://b.example/feed', null],
        ['Inside an untitled folder', 'https://c.example/feed', null],
      ],
    );
  });

  test('entities in attributes are decoded once; line breaks become spaces', () => {
    const [outline] = parseOpml(
      opml(`<outline text="Tea &amp; Biscuits &#8212; caf&#xE9; &eacute;t&eacute; &lt;3 &amp;amp;
            more" xmlUrl="https://t.example/feed?a=1&amp;b=2"/>`),
    );
    assert.ok(outline);
    assert.equal(outline.title, 'Tea & Biscuits — café été <3 &amp; more');
    assert.equal(outline.url, 'https://t.example/feed?a=1&b=2');
  });

  test('names in any case, as old exports write them; a bare "&" in a URL is kept', () => {
    const outlines = parseOpml(
      '<OPML version="1.0"><BODY><OUTLINE TEXT="Old" XMLURL="http://old.example/rss.php?id=1&x=2" ' +
        'HTMLURL="http://old.example/"/></BODY></OPML>',
    );
    assert.deepEqual(outlines, [
      {
        url: 'http://old.example/rss.php?id=1&x=2',
        title: 'Old',
        htmlUrl: 'http://old.example/',
        folder: null,
      },
    ]);
  });

  test('bytes: a byte order mark, and ISO-8859-1 declared in the XML declaration', () => {
    const utf8 = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(opml('<outline text="Ünïcode" xmlUrl="https://u.example/"/>')),
    ]);
    assert.equal(parseOpml(utf8)[0]?.title, 'Ünïcode');
    const latin1 = iconv.encode(
      '<?xml version="1.0" encoding="ISO-8859-1"?><opml version="1.1"><body>' +
        '<outline text="Café" xmlUrl="https://c.example/"/></body></opml>',
      'latin1',
    );
    assert.equal(parseOpml(latin1)[0]?.title, 'Café');
  });

  test('an OPML file without feeds is an empty list, not an error', () => {
    assert.deepEqual(parseOpml(opml('')), []);
    assert.deepEqual(parseOpml('<opml version="2.0"><head/><body/></opml>'), []);
    assert.deepEqual(parseOpml('<opml version="2.0"/>'), []);
    assert.deepEqual(
      parseOpml(opml('<outline text="Just a folder"><outline text="And a note"/></outline>')),
      [],
    );
  });

  test('a document that is not OPML is refused, naming what it is', () => {
    rejects(
      '<?xml version="1.0"?><rss version="2.0"><channel><title>x</title></channel></rss>',
      /<rss>, not <opml>/,
    );
    rejects(
      '<!DOCTYPE html><html><head><title>Hi</title></head><body><p>Hi</body></html>',
      /<html>, not <opml>/,
    );
    rejects('title,url\nA,https://a.example/\n', /no XML element/);
    rejects('', /empty/);
    rejects(Buffer.alloc(0), /empty/);
  });

  test('malformed XML is invalid input', () => {
    rejects(opml('<outline text="unfinished xmlUrl="https://x.example/"/>'), /could not be read as XML/);
    rejects(
      '<opml version="2.0"><body><outline text="x" xmlUrl="https://x.example/',
      /could not be read as XML/,
    );
  });

  test('a file cut short is refused rather than imported as a shorter list', () => {
    const whole = opml(
      '<outline text="A" xmlUrl="https://a.example/"/>\n<outline text="B" xmlUrl="https://b.example/"/>',
    );
    const cut = whole.slice(0, whole.indexOf('<outline text="B"'));
    rejects(cut, /cut short/);
    assert.equal(parseOpml(`${whole}<!-- exported by Tidings -->\n`).length, 2);
  });

  test('DTD entities are never expanded: a billion laughs stays a few bytes', () => {
    const lol = (n: number): string => `<!ENTITY lol${n} "${`&lol${n - 1};`.repeat(10)}">`;
    const dtd = `<!DOCTYPE opml [<!ENTITY lol0 "lol">${Array.from({ length: 9 }, (_, i) => lol(i + 1)).join('')}]>`;
    const [outline] = parseOpml(
      `<?xml version="1.0"?>${dtd}<opml version="2.0"><body><outline text="&lol9;" xmlUrl="https://x.example/"/></body></opml>`,
    );
    assert.ok(outline);
    assert.equal(outline.title, '&lol9;');
  });

  test('an external entity is refused before anything is read from outside', () => {
    rejects(
      '<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>' +
        '<opml version="2.0"><body><outline text="&xxe;" xmlUrl="https://x.example/"/></body></opml>',
      /external entities/i,
    );
  });

  test('input over 5 MiB is refused with its size', () => {
    const padding = `<!-- ${'x'.repeat(MAX_OPML_BYTES)} -->`;
    rejects(Buffer.from(opml('') + padding), /5 MiB/);
    rejects(opml('') + padding, /more than the 5 MiB allowed/);
  });

  test('nesting deeper than the parser allows is invalid input, not a stack overflow', () => {
    const depth = 1000;
    rejects(opml(`${'<outline text="f">'.repeat(depth)}${'</outline>'.repeat(depth)}`), /nested/i);
  });
});

describe('generateOpml', () => {
  const NOW = new Date('2024-06-01T12:00:00Z');
  const feeds: OpmlFeed[] = [
    { url: 'https://loose.example/feed', title: 'Loose', siteUrl: 'https://loose.example/' },
    { url: 'https://go.example/atom.xml', title: 'Go', siteUrl: null, folder: 'Tech' },
    { url: 'https://css.example/rss', title: 'CSS & "Layout" <3', siteUrl: null, folder: 'Tech / Web' },
    {
      url: 'https://t.example/feed?a=1&b=2',
      title: "Tea's",
      siteUrl: 'https://t.example/?x=1&y=2',
      folder: 'Food & Drink',
    },
    { url: 'https://rust.example/feed.xml', title: 'Rust', siteUrl: null, folder: 'Tech' },
  ];

  test('OPML 2.0 with nested folder outlines, feeds in the order given within each folder', () => {
    const xml = generateOpml(feeds, { title: 'Tidings — Ada', now: NOW });
    assert.equal(
      xml,
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<opml version="2.0">',
        '  <head>',
        '    <title>Tidings — Ada</title>',
        '    <dateCreated>Sat, 01 Jun 2024 12:00:00 GMT</dateCreated>',
        '  </head>',
        '  <body>',
        '    <outline type="rss" text="Loose" title="Loose" xmlUrl="https://loose.example/feed" htmlUrl="https://loose.example/"/>',
        '    <outline text="Tech" title="Tech">',
        '      <outline type="rss" text="Go" title="Go" xmlUrl="https://go.example/atom.xml"/>',
        '      <outline text="Web" title="Web">',
        '        <outline type="rss" text="CSS &amp; &quot;Layout&quot; &lt;3" title="CSS &amp; &quot;Layout&quot; &lt;3" xmlUrl="https://css.example/rss"/>',
        '      </outline>',
        '      <outline type="rss" text="Rust" title="Rust" xmlUrl="https://rust.example/feed.xml"/>',
        '    </outline>',
        '    <outline text="Food &amp; Drink" title="Food &amp; Drink">',
        '      <outline type="rss" text="Tea&apos;s" title="Tea&apos;s" xmlUrl="https://t.example/feed?a=1&amp;b=2" htmlUrl="https://t.example/?x=1&amp;y=2"/>',
        '    </outline>',
        '  </body>',
        '</opml>',
        '',
      ].join('\n'),
    );
  });

  test('round trip: parseOpml reads back every URL, title, site and folder', () => {
    const back = parseOpml(generateOpml(feeds, { title: 'x', now: NOW }));
    const expected = feeds.map((f) => ({
      url: f.url,
      title: f.title,
      htmlUrl: f.siteUrl,
      folder: f.folder ?? null,
    }));
    const byUrl = (a: { url: string }, b: { url: string }): number => a.url.localeCompare(b.url);
    assert.deepEqual([...back].sort(byUrl), [...expected].sort(byUrl));
  });

  test('no feeds is still a valid document, which reads back as no feeds', () => {
    const xml = generateOpml([], { title: 'Empty', now: NOW });
    assert.match(xml, /<body\/>/);
    assert.deepEqual(parseOpml(xml), []);
  });

  test('characters XML cannot carry are dropped; an empty title falls back to the URL', () => {
    const xml = generateOpml(
      [
        { url: 'https://c.example/', title: 'bell\u0007 and\u0000 nul\uD800', siteUrl: null },
        { url: 'https://n.example/', title: '  ', siteUrl: null },
      ],
      { title: 'ctl\u001b', now: NOW },
    );
    const unfit = Array.from(xml).filter((c) => {
      const code = c.codePointAt(0) ?? 0;
      return (code < 0x20 && !'\t\n\r'.includes(c)) || (code >= 0xd800 && code <= 0xdfff);
    });
    assert.deepEqual(unfit, []);
    assert.deepEqual(
      parseOpml(xml).map((o) => o.title),
      ['bell and nul', 'https://n.example/'],
    );
  });
});

test('outlines without a feed address are counted, not silently dropped; folders are not counted', () => {
  const list = parseOpmlList(
    opml(`<outline text="Bookmark" htmlUrl="https://site.example/"/>
      <outline text="Tech"><outline text="A" xmlUrl="https://a.example/feed"/><outline text="Lost" type="rss"/></outline>
      <outline text="Outer"><outline text="Inner"><outline text="" xmlUrl="https://b.example/feed"/></outline></outline>`),
  );
  assert.deepEqual(
    list.outlines.map((o) => o.url),
    ['https://a.example/feed', 'https://b.example/feed'],
  );
  assert.equal(list.withoutUrl, 2);
  assert.equal(parseOpmlList(opml('<outline text="A" xmlUrl="https://a.example/feed"/>')).withoutUrl, 0);
});

test('a title loses its bidi controls', () => {
  const [only] = parseOpml(opml('<outline text="Ne&#x202E;ws&#x2066;" xmlUrl="https://a.example/feed"/>'));
  assert.equal(only?.title, 'News');
});
