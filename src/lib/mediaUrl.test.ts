import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import {
  DIRECT_MEDIA,
  MAX_MEDIA_URL,
  MEDIA_PATH,
  mediaPath,
  mediaSource,
  proxiedMedia,
  verifiedMediaUrl,
} from './mediaUrl.js';

const key = randomBytes(32);
const IMAGE = 'https://img.example/photos/tide.jpg?w=640&h=480';

/** The signature and encoded URL of a proxied path. */
function parts(path: string): { signature: string; encoded: string } {
  const [, media, signature = '', encoded = ''] = path.split('/');
  assert.equal(`/${media}`, MEDIA_PATH);
  return { signature, encoded };
}

test('a signed link names its image; the same URL signs the same', () => {
  const path = mediaPath(key, IMAGE);
  assert.match(path, /^\/media\/[A-Za-z0-9_-]{22}\/[A-Za-z0-9_-]+$/);
  assert.equal(mediaPath(key, IMAGE), path);
  const { signature, encoded } = parts(path);
  assert.equal(verifiedMediaUrl(key, signature, encoded), IMAGE);
});

test('a tampered URL or signature, or another key, is refused', () => {
  const { signature, encoded } = parts(mediaPath(key, IMAGE));
  const other = Buffer.from('https://img.example/photos/other.jpg').toString('base64url');
  assert.equal(verifiedMediaUrl(key, signature, other), null, 'another URL under the signature');
  const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
  assert.equal(verifiedMediaUrl(key, flipped, encoded), null, 'one character of the signature changed');
  const last = encoded.at(-1) === 'A' ? 'B' : 'A';
  assert.equal(verifiedMediaUrl(key, signature, `${encoded.slice(0, -1)}${last}`), null, 'the URL changed');
  assert.equal(verifiedMediaUrl(randomBytes(32), signature, encoded), null, 'another instance’s key');
  // Malformed: the wrong length, characters outside base64url, padding, an empty URL.
  for (const [s, e] of [
    [signature.slice(1), encoded],
    [`${signature}A`, encoded],
    [signature.replace(/./, '+'), encoded],
    [signature, `${encoded}=`],
    [signature, encoded.replace(/./, '/')],
    [signature, ''],
  ] as const) {
    assert.equal(verifiedMediaUrl(key, s, e), null, `${s} ${e}`);
  }
});

test('only what mediaPath writes verifies: its serialised http(s) URL, nothing else signed alike', () => {
  // A URL that is not absolute http(s) is refused even under a signature made for it.
  for (const url of [
    'javascript:alert(1)',
    'file:///etc/passwd',
    '/relative.png',
    'https://u:p@img.example/a',
  ]) {
    assert.equal(mediaSource(url), null, url);
    const encoded = Buffer.from(url).toString('base64url');
    const { signature } = parts(mediaPath(key, url));
    assert.equal(verifiedMediaUrl(key, signature, encoded), null, url);
  }
  // The same image spelled another way is another link, not a second name for this one.
  const spelled = 'HTTPS://IMG.EXAMPLE/photos/tide.jpg?w=640&h=480';
  const { signature } = parts(mediaPath(key, IMAGE));
  assert.equal(verifiedMediaUrl(key, signature, Buffer.from(spelled).toString('base64url')), null);
});

test('proxiedMedia writes links under the base URL; data: images stay inline; the rest is left out', () => {
  const media = proxiedMedia(key, 'https://tidings.example/');
  const link = media.image(` ${IMAGE} `);
  assert.ok(link !== null);
  assert.ok(link.startsWith('https://tidings.example/media/'), link);
  const { signature, encoded } = parts(new URL(link).pathname);
  assert.equal(verifiedMediaUrl(key, signature, encoded), IMAGE);
  assert.equal(media.image(link), link, 'one of its own links is kept as it is');
  const data = 'data:image/png;base64,iVBORw0KGgo=';
  assert.equal(media.image(data), data);
  for (const refused of [
    'javascript:alert(1)',
    'data:image/svg+xml;base64,PHN2Zy8+',
    '',
    `https://a.example/${'x'.repeat(MAX_MEDIA_URL)}`,
  ]) {
    assert.equal(media.image(refused), null, refused.slice(0, 40));
  }
  assert.equal(media.imgSrc, "'self' https://tidings.example data:");
  assert.equal(media.proxied, true);
});

test('DIRECT_MEDIA (TIDINGS_MEDIA_PROXY=off) links images where they are', () => {
  assert.equal(DIRECT_MEDIA.image(IMAGE), IMAGE);
  assert.equal(DIRECT_MEDIA.image('javascript:alert(1)'), null);
  assert.equal(DIRECT_MEDIA.imgSrc, 'http: https: data:');
  assert.equal(DIRECT_MEDIA.proxied, false);
});
