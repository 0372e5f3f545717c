import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanUrl, TRACKING_PARAMETERS } from './cleanUrl.js';

test('drops the New York Times share parameters', () => {
  assert.equal(
    cleanUrl('https://www.nytimes.com/2026/11/20/x.html?smid=nytcore-ios-share&referringSource=articleShare'),
    'https://www.nytimes.com/2026/11/20/x.html',
  );
});

test('drops every utm_ parameter, keeping the others in order and as encoded', () => {
  assert.equal(
    cleanUrl('https://ex.com/a?b=1&utm_source=x&c=%20two+words&utm_medium=y&utm_whatever=&d=%E2%82%AC'),
    'https://ex.com/a?b=1&c=%20two+words&d=%E2%82%AC',
  );
  assert.equal(cleanUrl('https://ex.com/a?UTM_source=x'), 'https://ex.com/a?UTM_source=x'); // case matters
});

test('keeps the fragment', () => {
  assert.equal(cleanUrl('https://ex.com/a?fbclid=abc#part-2'), 'https://ex.com/a#part-2');
  assert.equal(
    cleanUrl('https://ex.com/a?x=1&gclid=abc#p?utm_source=y'),
    'https://ex.com/a?x=1#p?utm_source=y',
  );
});

test('drops percent-encoded names too, and empty pairs with them', () => {
  assert.equal(cleanUrl('https://ex.com/?%75tm_source=x&&a=1'), 'https://ex.com/?a=1');
});

test('touches nothing when there is nothing to drop', () => {
  for (const url of [
    'https://ex.com/a?b=1&c=2',
    'https://ex.com/A%2fb?ref=main&source=x&s=q&t=30&id=7',
    'https://ex.com/a?',
    'https://ex.com/a?#x',
    'HTTPS://EX.com:443/a/../b?q=1',
  ]) {
    assert.equal(cleanUrl(url), url);
  }
});

test('si and feature only on YouTube and Spotify', () => {
  assert.equal(cleanUrl('https://youtu.be/abc?si=XYZ&t=42'), 'https://youtu.be/abc?t=42');
  assert.equal(
    cleanUrl('https://www.youtube.com/watch?v=abc&feature=share'),
    'https://www.youtube.com/watch?v=abc',
  );
  assert.equal(cleanUrl('https://open.spotify.com/track/1?si=abc'), 'https://open.spotify.com/track/1');
  assert.equal(cleanUrl('https://ex.com/search?si=abc&feature=x'), 'https://ex.com/search?si=abc&feature=x');
});

test('returns invalid and non-http URLs unchanged', () => {
  for (const url of [
    'not a url?utm_source=x',
    'mailto:a@ex.com?utm_source=x',
    '',
    '?',
    'https://?utm_source=x',
  ]) {
    assert.equal(cleanUrl(url), url);
  }
});

test('the list holds the parameters the issue names', () => {
  for (const name of [
    'fbclid',
    'gclid',
    'dclid',
    'msclkid',
    'mc_cid',
    'mc_eid',
    'igshid',
    'ref_src',
    'smid',
  ]) {
    assert.ok(TRACKING_PARAMETERS.includes(name), name);
  }
});
