import assert from 'node:assert/strict';
import { test } from 'node:test';
import { header, parseHttpDate, parseMaxAge, parseRetryAfter } from './headers.js';

const NOV_6_1994 = new Date(Date.UTC(1994, 10, 6, 8, 49, 37));

test('HTTP dates are read in all three forms, and nothing else is taken for one', () => {
  assert.deepEqual(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), NOV_6_1994);
  assert.deepEqual(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT'), NOV_6_1994);
  assert.deepEqual(parseHttpDate('Sun Nov  6 08:49:37 1994'), NOV_6_1994);
  for (const invalid of [
    '0',
    '-1',
    '2024',
    '1994-11-06T08:49:37Z',
    'Sun, 06 Nov 1994 08:49:37',
    'soon',
    '',
  ]) {
    assert.equal(parseHttpDate(invalid), null, invalid);
  }
  assert.equal(parseHttpDate(null), null);
});

test('Retry-After is seconds, given as a number or as an HTTP date', () => {
  const now = new Date(NOV_6_1994.getTime() - 90_500);
  assert.equal(parseRetryAfter('120', now), 120);
  assert.equal(parseRetryAfter(' 0 ', now), 0);
  assert.equal(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', now), 91);
  assert.equal(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', new Date(Date.UTC(2000, 0, 1))), 0);
  for (const invalid of ['-5', '1.5', 'later', ''])
    assert.equal(parseRetryAfter(invalid, now), null, invalid);
  assert.equal(parseRetryAfter(null, now), null);
});

test('Cache-Control max-age is read among other directives, quoted or not', () => {
  assert.equal(parseMaxAge('max-age=3600'), 3600);
  assert.equal(parseMaxAge('public, MAX-AGE=600, must-revalidate'), 600);
  assert.equal(parseMaxAge('max-age="30"'), 30);
  assert.equal(parseMaxAge('s-maxage=60'), null);
  assert.equal(parseMaxAge('no-cache'), null);
  assert.equal(parseMaxAge('max-age=soon'), null);
  assert.equal(parseMaxAge(null), null);
});

test('a repeated header is joined as HTTP combines field lines', () => {
  assert.equal(header({ 'cache-control': ['public', 'max-age=60'] }, 'cache-control'), 'public, max-age=60');
  assert.equal(header({ etag: '"x"' }, 'etag'), '"x"');
  assert.equal(header({}, 'etag'), null);
});
