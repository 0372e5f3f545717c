import assert from 'node:assert/strict';
import { test } from 'node:test';
import iconv from 'iconv-lite';
import { decodeFeedBytes } from './decode.js';
import { FeedParseError } from './model.js';

const prolog = (encoding: string, body: string): string =>
  `<?xml version="1.0" encoding="${encoding}"?><t>${body}</t>`;

test('a byte order mark wins over every declaration', () => {
  const text = prolog('windows-1251', 'é');
  const cases: [string, Buffer][] = [
    ['utf-8', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])],
    ['utf-16le', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
    ['utf-16be', iconv.encode(text, 'utf-16be', { addBOM: true })],
  ];
  for (const [encoding, bytes] of cases) {
    const decoded = decodeFeedBytes(bytes, 'text/xml; charset=koi8-r');
    assert.deepEqual(decoded, { text, encoding, source: 'bom' }, encoding);
  }
});

test('UTF-16 without a mark is recognised by its "<?" in two-byte units', () => {
  const text = prolog('utf-16', 'ü');
  assert.equal(decodeFeedBytes(Buffer.from(text, 'utf16le')).text, text);
  assert.equal(decodeFeedBytes(iconv.encode(text, 'utf-16be')).text, text);
});

test('the HTTP charset wins over the prolog', () => {
  const bytes = iconv.encode(prolog('windows-1251', 'Жёлтый'), 'koi8-r');
  const decoded = decodeFeedBytes(bytes, 'application/rss+xml; charset="KOI8-R"');
  assert.equal(decoded.source, 'http');
  assert.match(decoded.text, /Жёлтый/);
});

test('the prolog encoding is used when HTTP says nothing, or something unusable', () => {
  const bytes = iconv.encode(prolog('windows-1251', 'Жёлтый'), 'windows-1251');
  for (const contentType of [undefined, 'application/xml', 'text/xml; charset=no-such-charset', ';;;']) {
    const decoded = decodeFeedBytes(bytes, contentType);
    assert.equal(decoded.source, 'prolog', String(contentType));
    assert.match(decoded.text, /Жёлтый/);
  }
});

test('an unknown charset label is an error when asked for (feeds), skipped otherwise (HTML pages)', () => {
  const strict = { unknownCharset: 'error' } as const;
  const unsupported = (label: string) => (err: unknown) =>
    err instanceof FeedParseError && err.message === `unsupported charset "${label}"`;
  const bytes = Buffer.from(prolog('UTF-8', 'plain'));
  assert.throws(
    () => decodeFeedBytes(bytes, 'text/xml; charset=" No-Such "', strict),
    unsupported('No-Such'),
  );
  const bogusProlog = Buffer.from(prolog('x-klingon', 'plain'));
  assert.throws(() => decodeFeedBytes(bogusProlog, undefined, strict), unsupported('x-klingon'));
  assert.equal(decodeFeedBytes(bogusProlog).source, 'sniffed');
  assert.equal(decodeFeedBytes(bogusProlog, undefined, { unknownCharset: 'ignore' }).encoding, 'utf-8');
  // Known labels, and declarations never consulted, are not errors.
  assert.equal(decodeFeedBytes(bytes, 'text/xml; charset=KOI8-R', strict).encoding, 'koi8-r');
  assert.equal(decodeFeedBytes(bogusProlog, 'text/xml; charset=utf-8', strict).source, 'http');
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bogusProlog]);
  assert.equal(decodeFeedBytes(bom, 'text/xml; charset=nope', strict).source, 'bom');
});

test('legacy encodings through iconv-lite', () => {
  const samples: [string, string][] = [
    ['iso-8859-2', 'Zażółć gęślą jaźń'],
    ['iso-8859-15', 'Prix : 5 €'],
    ['shift_jis', '日本語のテキスト'],
    ['big5', '繁體中文'],
    ['euc-kr', '한국어'],
  ];
  for (const [encoding, sample] of samples) {
    assert.match(
      decodeFeedBytes(iconv.encode(prolog(encoding, sample), encoding)).text,
      new RegExp(sample),
      encoding,
    );
  }
});

test('ISO-8859-1 is read as windows-1252, as browsers do', () => {
  const bytes = iconv.encode(prolog('ISO-8859-1', '“quoted” – dash'), 'windows-1252');
  const decoded = decodeFeedBytes(bytes);
  assert.equal(decoded.encoding, 'windows-1252');
  assert.match(decoded.text, /“quoted” – dash/);
});

test('undeclared: strict UTF-8, else windows-1252', () => {
  assert.deepEqual(decodeFeedBytes(Buffer.from('<t>naïve</t>')), {
    text: '<t>naïve</t>',
    encoding: 'utf-8',
    source: 'sniffed',
  });
  assert.deepEqual(decodeFeedBytes(iconv.encode('<t>naïve</t>', 'windows-1252')), {
    text: '<t>naïve</t>',
    encoding: 'windows-1252',
    source: 'fallback',
  });
});

test('a declared UTF-8 is trusted: a stray invalid byte becomes U+FFFD, the rest stays UTF-8', () => {
  const bytes = Buffer.concat([Buffer.from(prolog('UTF-8', 'ü')), Buffer.from([0xff])]);
  const decoded = decodeFeedBytes(bytes);
  assert.equal(decoded.source, 'prolog');
  assert.match(decoded.text, /ü.*\ufffd$/);
});

test('a prolog claiming UTF-16 in single-byte text is ignored', () => {
  const decoded = decodeFeedBytes(Buffer.from(prolog('UTF-16', 'plain')));
  assert.equal(decoded.encoding, 'utf-8');
});
