import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readBodyParams } from './body.js';

const read = (type: string | undefined, body: string | Buffer) =>
  readBodyParams(type, typeof body === 'string' ? Buffer.from(body) : body);

test('JSON: strings are read, other fields ignored, null means absent', async () => {
  const r = await read('application/json', '{"url":"u","title":null,"extra":[1]}');
  assert.deepEqual([...r.fields], [['url', 'u']]);
  assert.equal(r.error, undefined);
  const vendor = await read('application/vnd.api+json', '{"url":"v"}');
  assert.equal(vendor.fields.get('url'), 'v');
});

test('JSON of the wrong shape is malformed; JSON that does not parse is ignored', async () => {
  assert.equal((await read('application/json', '[1]')).error?.kind, 'body_malformed');
  assert.equal((await read('application/json', '"x"')).error?.kind, 'body_malformed');
  assert.equal((await read('application/json', '{"url":1}')).error?.kind, 'body_malformed');
  const broken = await read('application/json', '{"url":');
  assert.equal(broken.error, undefined);
  assert.match(broken.ignored ?? '', /not valid JSON/);
});

test('form bodies: plus and percent decoding in the declared charset; repeated fields are malformed', async () => {
  const r = await read(
    'application/x-www-form-urlencoded',
    'url=https%3A%2F%2Fe.com%2F%3Fa%3D1%26b%3D2&title=a+b%20c',
  );
  assert.equal(r.fields.get('url'), 'https://e.com/?a=1&b=2');
  assert.equal(r.fields.get('title'), 'a b c');
  const koi8 = await read('application/x-www-form-urlencoded; charset=koi8-r', 'title=%F0%D2%C9%D7%C5%D4');
  assert.equal(koi8.fields.get('title'), 'Привет');
  const sjis = await read('application/x-www-form-urlencoded;charset="Shift_JIS"', 'title=%82%A0');
  assert.equal(sjis.fields.get('title'), 'あ');
  assert.equal(
    (await read('application/x-www-form-urlencoded', 'url=a&url=b')).error?.kind,
    'body_malformed',
  );
  assert.equal(
    (await read('application/x-www-form-urlencoded; charset=bogus-9', 'url=a')).error?.kind,
    'body_malformed',
  );
  const badUtf8 = await read('application/x-www-form-urlencoded', 'url=%FF%FE');
  assert.match(badUtf8.ignored ?? '', /not valid utf-8/);
});

test('form percent-decoding: an encoded plus stays a plus, a broken escape stays as written', async () => {
  const title = async (raw: string): Promise<string | undefined> =>
    (await read('application/x-www-form-urlencoded', `title=${raw}`)).fields.get('title');
  assert.equal(await title('1%2B1+%3D+2'), '1+1 = 2');
  assert.equal(await title('caf%c3%A9'), 'café');
  assert.equal(await title('100%'), '100%');
  assert.equal(await title('%4'), '%4');
  assert.equal(await title('%zz%4g'), '%zz%4g');
  assert.equal(await title('%%41'), '%A');
  assert.equal(await title('plain'), 'plain');
  assert.equal(await title(''), '');
  // The common Content-Types, looked up rather than parsed, read as the same types parsed would.
  for (const type of [
    'application/x-www-form-urlencoded;charset=UTF-8',
    'application/x-www-form-urlencoded; charset=utf-8',
  ]) {
    assert.equal((await read(type, 'title=caf%C3%A9')).fields.get('title'), 'café');
  }
  assert.equal((await read('application/json; charset=utf-8', '{"url":"u"}')).fields.get('url'), 'u');
});

test('a body that is not UTF-8 under a UTF-8 JSON type is ignored, not mangled', async () => {
  const r = await read(
    'application/json',
    Buffer.from([0x7b, 0x22, 0x75, 0x72, 0x6c, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
  );
  assert.equal(r.fields.size, 0);
  assert.match(r.ignored ?? '', /not valid utf-8/);
});

test('no, unknown or invalid Content-Type: parameters ignored with a reason', async () => {
  for (const type of [undefined, '', 'text/plain', 'application/xml', '???']) {
    const r = await read(type, 'url=https://e.com/');
    assert.equal(r.fields.size, 0, String(type));
    assert.ok(r.ignored !== undefined && r.ignored.length > 0);
  }
});

test('an empty body has no parameters and no complaint', async () => {
  const r = await read('application/json', '');
  assert.equal(r.fields.size, 0);
  assert.equal(r.ignored, undefined);
  assert.equal(r.error, undefined);
});

test('multipart: fields are read, a truncated body is ignored, a file part is malformed', async () => {
  const ok = await read(
    'multipart/form-data; boundary=B',
    '--B\r\nContent-Disposition: form-data; name="url"\r\n\r\nhttps://e.com/\r\n--B--\r\n',
  );
  assert.equal(ok.fields.get('url'), 'https://e.com/');
  const truncated = await read('multipart/form-data; boundary=B', '--B\r\nContent-Disposition: form-da');
  assert.equal(truncated.fields.size, 0);
  const file = await read(
    'multipart/form-data; boundary=B',
    '--B\r\nContent-Disposition: form-data; name="f"; filename="x"\r\n\r\ndata\r\n--B--\r\n',
  );
  assert.equal(file.error?.kind, 'body_malformed');
});
