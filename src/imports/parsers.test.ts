import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Zip, ZipDeflate, strToU8, zipSync } from 'fflate';
import { MAX_NESTING } from '../articles/limits.js';
import { isTidingsError } from '../errors.js';
import { ENGLISH } from '../i18n/locale.js';
import { importCountsSentence } from '../i18n/sharedSentences.js';
import { parseExport } from './detect.js';
import { prepareImport } from './prepare.js';
import { type BadRow, IMPORT_LIMITS, type ImportFormat, type ImportedLink, isBadRow } from './record.js';
import { fixture, omnivoreZip, pocketZip } from './testdata/fixtures.js';
import { readZip } from './zip.js';

/** Each format, recognised by content, read into the common record (its URL is checked later). */

interface Read {
  format: ImportFormat;
  links: { where: string; link: ImportedLink }[];
  bad: BadRow[];
}

/** A file read to its end, its rows split into links and bad rows (each in the file's order). */
function readExport(bytes: Uint8Array, format: ImportFormat | 'auto'): Read {
  const parsed = parseExport(bytes, format);
  const read: Read = { format: parsed.format, links: [], bad: [] };
  for (const row of parsed.rows) {
    if (isBadRow(row)) read.bad.push(row);
    else read.links.push(row);
  }
  return read;
}

const byUrl = (parsed: Read, url: string) => parsed.links.find((l) => l.link.url === url)?.link;

test('Pocket CSV: date, tags split on |, status, rows without a url are bad', () => {
  const parsed = readExport(fixture('pocket.csv'), 'auto');
  assert.equal(parsed.format, 'pocket');
  assert.equal(parsed.links.length, 5);
  assert.deepEqual(parsed.bad, [{ where: 'line 6', why: 'no url' }]);
  const petrels = byUrl(parsed, 'https://birds.example/petrels?utm_source=pocket');
  assert.deepEqual(
    [petrels?.title, petrels?.savedAt, petrels?.tags, petrels?.archived],
    ['Why petrels fly', '2021-01-01T00:00:00.000Z', ['birds', 'Sea'], false],
  );
  const comma = byUrl(parsed, 'https://news.example/a');
  assert.deepEqual([comma?.title, comma?.archived], ['A title, with a comma', true]);
});

test('Pocket zip of several CSVs and the older ril_export.html', () => {
  const zip = readExport(pocketZip(), 'pocket');
  assert.deepEqual(
    zip.links.map((l) => [l.where, l.link.url, l.link.archived]),
    [
      ['part_000000.csv line 2', 'https://zip.example/1', false],
      ['part_000001.csv line 2', 'https://zip.example/2', true],
      ['part_000001.csv line 3', 'https://zip.example/1', false],
    ],
  );
  const html = readExport(fixture('ril_export.html'), 'auto');
  assert.equal(html.format, 'pocket');
  assert.deepEqual(
    html.links.map((l) => [l.link.url, l.link.title, l.link.tags, l.link.archived]),
    [
      ['https://unread.example/one', 'First & unread', ['rust', 'web'], false],
      ['https://unread.example/two', 'Second', [], false],
      ['https://read.example/done', 'Done reading', ['old'], true],
    ],
  );
  assert.equal(html.links[2]?.link.savedAt, '2020-01-01T00:00:00.000Z');
});

test('Instapaper CSV, old and new: folders, JSON tags, a bad Tags cell', () => {
  const old = readExport(fixture('instapaper-old.csv'), 'auto');
  assert.equal(old.format, 'instapaper');
  assert.deepEqual(
    old.links.map((l) => [l.link.url, l.link.archived, l.link.tags, l.link.savedAt, l.link.description]),
    [
      ['https://old.example/1', false, [], null, null],
      ['https://old.example/2', true, [], null, 'A quote'],
      ['https://old.example/3', false, ['Starred'], null, null],
    ],
  );
  const fresh = readExport(fixture('instapaper-new.csv'), 'instapaper');
  assert.deepEqual(
    fresh.links.map((l) => [l.link.url, l.link.archived, l.link.tags]),
    [
      ['https://new.example/1', false, ['tech', 'AI']],
      ['https://new.example/2', false, ['Recipes']],
      ['https://new.example/4', true, ['later']],
    ],
  );
  assert.equal(fresh.links[0]?.link.savedAt, new Date(1700000000 * 1000).toISOString());
  assert.deepEqual(fresh.bad, [{ where: 'line 4', why: 'Tags is not a JSON array of names' }]);
});

test('Omnivore zip: metadata, labels, state, content by slug or id', () => {
  const parsed = readExport(omnivoreZip(), 'auto');
  assert.equal(parsed.format, 'omnivore');
  const vents = byUrl(parsed, 'https://vents.example/deep');
  assert.deepEqual(
    [vents?.tags, vents?.archived, vents?.savedAt, vents?.author, vents?.description],
    [['Ocean', 'science'], true, '2023-02-03T04:05:06.000Z', 'Mar Abyss', 'Life without sunlight.'],
  );
  assert.match(vents?.html ?? '', /Hydrothermal vents/);
  assert.equal(byUrl(parsed, 'https://plain.example/')?.html, null);
  assert.equal(byUrl(parsed, 'https://byid.example/')?.html, '<p>Found by the item id.</p>');
  assert.equal(parsed.bad.length, 1);
  assert.match(parsed.bad[0]?.where ?? '', /^metadata_2_to_3\.json item 2$/);
});

test('Wallabag JSON: archived, starred as a tag, content, author; an entry without url is bad', () => {
  const parsed = readExport(fixture('wallabag.json'), 'auto');
  assert.equal(parsed.format, 'wallabag');
  const tides = byUrl(parsed, 'https://tides.example/explained');
  assert.deepEqual(
    [tides?.archived, tides?.tags, tides?.author, tides?.savedAt],
    [true, ['science'], 'Ada Tide', '2019-05-04T08:11:12.000Z'],
  );
  assert.deepEqual(byUrl(parsed, 'https://star.example/')?.tags, ['starred']);
  assert.equal(parsed.bad.length, 1);
  assert.match(parsed.bad[0]?.why ?? '', /url/);
});

test('Netscape bookmarks: folders as tags (not the toolbar), TAGS, ADD_DATE', () => {
  const parsed = readExport(fixture('bookmarks.html'), 'bookmarks');
  assert.deepEqual(
    parsed.links.map((l) => [l.link.url, l.link.tags]),
    [
      ['https://toolbar.example/', []],
      ['https://bread.example/sourdough', ['Cooking', 'bread', 'Baking']],
      ['https://cake.example/', ['Cooking', 'Sweet']],
      ['place:sort=8&maxResults=10', []],
      ['https://top.example/', []],
    ],
  );
  assert.equal(parsed.links[1]?.link.savedAt, new Date(1600000003 * 1000).toISOString());
});

test('a format named that the file is not, and a file of no known format, are refused', () => {
  assert.throws(
    () => readExport(fixture('pocket.csv'), 'wallabag'),
    (e) => isTidingsError(e, 'invalid_input'),
  );
  assert.throws(
    () => readExport(strToU8('hello\nworld\n'), 'auto'),
    (e) => isTidingsError(e, 'invalid_input'),
  );
  assert.throws(
    () => readExport(strToU8('{"a": 1}'), 'auto'),
    (e) => isTidingsError(e, 'invalid_input'),
  );
});

test('limits: file size, rows, a zip bomb refused whole', () => {
  const big = new Uint8Array(IMPORT_LIMITS.fileBytes + 1);
  assert.throws(
    () => readExport(big, 'auto'),
    (e) => isTidingsError(e, 'limit_reached'),
  );
  const rows = ['title,url,time_added,tags,status'];
  for (let i = 0; i <= IMPORT_LIMITS.rows; i++) rows.push(`t,https://r.example/${i},1609459200,,unread`);
  assert.throws(
    () => readExport(strToU8(rows.join('\n')), 'auto'),
    (e) => isTidingsError(e, 'limit_reached') && /100,000/.test(e.message),
  );
  // 300 MB of one byte inflates from about 300 KB: past the unpacked limit.
  const bomb = zipSync({ 'part_000000.csv': new Uint8Array(300 * 1024 * 1024).fill(0x61) }, { level: 9 });
  assert.ok(bomb.length < IMPORT_LIMITS.fileBytes);
  assert.throws(
    () => readExport(bomb, 'auto'),
    (e) => isTidingsError(e, 'limit_reached') && /unpacked/.test(e.message),
  );
  assert.throws(
    () => readExport(strToU8('PK\x03\x04garbage'), 'auto'),
    (e) => isTidingsError(e),
  );
});

test('a zip bomb: declared sizes checked first, inflated bytes counted when the sizes lie or are absent', () => {
  const mb = new Uint8Array(1024 * 1024).fill(0x61);
  const cap = 2 * 1024 * 1024;
  // Sizes declared (zipSync): refused before inflating.
  const declared = zipSync({ 'a.csv': new Uint8Array(3 * 1024 * 1024).fill(0x61) });
  assert.ok(declared.length < 20_000);
  assert.throws(
    () => readZip(declared, () => true, cap),
    (e) => isTidingsError(e, 'limit_reached'),
  );
  // Streamed (sizes in a data descriptor, after the data): counted while inflating.
  const chunks: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    assert.equal(err, null);
    chunks.push(data);
  });
  const entry = new ZipDeflate('a.csv', { level: 9 });
  zip.add(entry);
  for (let i = 0; i < 3; i++) entry.push(mb, i === 2);
  zip.end();
  const streamed = Buffer.concat(chunks);
  assert.throws(
    () => readZip(streamed, () => true, cap),
    (e) => isTidingsError(e, 'limit_reached'),
  );
  // Under the cap it reads whole.
  assert.equal(readZip(streamed, () => true, 4 * cap).get('a.csv')?.length, 3 * 1024 * 1024);
});

/** A bookmarks file whose folders nest `levels` deep, one link in the deepest. */
const nestedBookmarks = (levels: number): Uint8Array =>
  strToU8(
    `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<TITLE>Bookmarks</TITLE>\n<DL><p>\n${'<DT><H3>F</H3>\n<DL><p>\n'.repeat(levels)}<DT><A HREF="https://deep.example/">Deep</A>\n${'</DL><p>\n'.repeat(levels)}</DL><p>\n`,
  );

test('HTML nested past the limit is refused before it is parsed (issue 33 C); folders within it read', () => {
  // Each folder is two levels of markup as the parser sees them (<DT>, <DL>; the <p> dropped), the top
  // list one, the link two (<DT>, <A>).
  const folders = Math.floor((IMPORT_LIMITS.nesting - 3) / 2);
  const within = readExport(nestedBookmarks(folders), 'bookmarks');
  const [deep] = within.links;
  assert.equal(deep?.link.url, 'https://deep.example/');
  assert.equal(deep.link.tags.length, folders);
  const tooDeep = `${IMPORT_LIMITS.nesting} levels`;
  for (const file of [
    nestedBookmarks(folders + 1),
    // 100,000 nested lists and 10,000 links: 36 s of CPU before the scan, refused at once now.
    strToU8(
      `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n${'<DL>'.repeat(100_000)}${'<DT><A HREF="https://b.example/">b</A>\n'.repeat(10_000)}`,
    ),
    strToU8(`<h1>Unread</h1>${'<ul><li>'.repeat(5_000)}<a href="https://x.example/" time_added="1">x</a>`),
  ]) {
    assert.throws(
      () => readExport(file, 'auto'),
      (e) => isTidingsError(e, 'limit_reached') && e.message.includes(tooDeep),
    );
  }
});

test('many folders side by side, as browsers write them, nest no deeper than one', () => {
  const folder = (i: number) =>
    `<DT><H3>Folder ${i}</H3>\n<DL><p>\n<DT><A HREF="https://f${i}.example/">F${i}</A>\n</DL><p>\n`;
  const file = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n${Array.from({ length: 2000 }, (_, i) => folder(i)).join('')}</DL><p>\n`;
  const read = readExport(strToU8(file), 'bookmarks');
  assert.equal(read.links.length, 2000);
  assert.deepEqual(read.links[1999]?.link.tags, ['Folder 1999']);
});

test('an entry whose HTML nests past a page’s limit is imported without it, as a page past it is read', () => {
  const entry = (content: string) => ({ is_archived: 0, title: 'T', url: 'https://n.example/', content });
  const read = (content: string) =>
    prepareImport(strToU8(JSON.stringify([entry(content)])), 'wallabag', '2024-01-01T00:00:00.000Z').links[0];
  assert.equal(read(`${'<div>'.repeat(MAX_NESTING - 1)}<p>Deep but read.</p>`)?.text, 'Deep but read.');
  const past = read(`${'<div>'.repeat(MAX_NESTING)}<p>Too deep.</p>`);
  assert.equal(past?.url, 'https://n.example/');
  assert.ok(past.html === null && past.text === null, 'imported without its HTML');
});

test('bad rows are reported in the file’s order, whichever step found them (issue 33, 10)', () => {
  // Line 2's URL is refused when it is checked, line 3 (no url) when it is read: line 2 comes first.
  const csv = [
    'title,url,time_added,tags,status',
    'Not a link,javascript:alert(1),1609459200,,unread',
    'No url here,,1609459200,,unread',
    'Fine,https://fine.example/,1609459200,,unread',
    ',,,,',
  ].join('\n');
  const prepared = prepareImport(strToU8(csv), 'pocket', '2024-01-01T00:00:00.000Z');
  assert.deepEqual(
    prepared.bad.map((b) => b.where),
    ['line 2', 'line 3', 'line 5'],
  );
  assert.deepEqual(
    prepared.links.map((l) => l.url),
    ['https://fine.example/'],
  );
});

test('a JSON export is read item by item; JSON that is broken anywhere refuses the file whole', () => {
  const entries = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      is_archived: 0,
      url: `https://j.example/${i}`,
      content: '<p>x</p>',
    }));
  const whole = JSON.stringify(entries(3));
  assert.equal(readExport(strToU8(`\ufeff${whole}\n`), 'wallabag').links.length, 3);
  for (const broken of [
    whole.slice(0, -1),
    `${whole} x`,
    whole.replace('},{', '} {'),
    `{"is_archived": 1}`,
  ]) {
    assert.throws(
      () => readExport(strToU8(broken), 'wallabag'),
      (e) =>
        isTidingsError(e, 'invalid_input') && /entries (is not JSON|must be a JSON array)/.test(e.message),
    );
  }
});

test('a format is named with its article: "an instapaper export", "an omnivore export" (issue 33, 10)', () => {
  const counts = (format: ImportFormat) =>
    importCountsSentence(ENGLISH, {
      format,
      rows: 1,
      imported: 1,
      merged: 0,
      duplicates: 0,
      bad: 0,
      badExamples: [],
    });
  assert.match(counts('instapaper'), /^Imported 1 links from an instapaper export of 1 rows/);
  assert.match(counts('omnivore'), /from an omnivore export/);
  assert.match(counts('pocket'), /from a pocket export/);
  assert.throws(
    () => readExport(fixture('instapaper-old.csv'), 'pocket'),
    (e) =>
      isTidingsError(e, 'invalid_input') && /looks like an instapaper export, not pocket/.test(e.message),
  );
});
