import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isHidden, isTrackingPixel, isTrackingSource } from './trackingPixels.js';

const PICTURE = 'https://img.example/photo.jpg';

test('pixels by size: 2×2 or smaller in either direction, by attribute or inline style', () => {
  for (const attribs of [
    { width: '1', height: '1' },
    { width: '0' },
    { height: '1px' },
    { width: '2', height: '400' },
    { style: 'width:1px;height:1px' },
    { style: 'border:0; max-height: 0 !important' },
  ]) {
    assert.equal(isTrackingPixel(attribs, PICTURE), true, JSON.stringify(attribs));
  }
  for (const attribs of [{}, { width: '10', height: '10' }, { width: '100%' }, { style: 'width: 12px' }]) {
    assert.equal(isTrackingPixel(attribs, PICTURE), false, JSON.stringify(attribs));
  }
});

test('pixels hidden as sent', () => {
  for (const attribs of [
    { hidden: '' },
    { style: 'display:none' },
    { style: 'visibility: hidden' },
    { style: 'opacity:0' },
    { style: 'mso-hide:all' },
  ]) {
    assert.equal(isHidden(attribs), true, JSON.stringify(attribs));
    assert.equal(isTrackingPixel(attribs, PICTURE), true, JSON.stringify(attribs));
  }
  assert.equal(isHidden({ style: 'opacity: 0.5' }), false);
});

test('known trackers by host or path, whatever the size; the same hosts’ other paths are pictures', () => {
  for (const src of [
    'https://pixel.wp.com/g.gif?blog=1',
    'https://eotrx.substackcdn.com/open?token=x',
    'https://example.us1.list-manage.com/track/open.php?u=1',
    'https://www.google-analytics.com/collect?v=1',
    'https://www.facebook.com/tr?id=1&ev=PageView',
    'https://feeds.feedburner.com/~r/Example/~4/abc',
  ]) {
    assert.equal(isTrackingSource(src), true, src);
    assert.equal(isTrackingPixel({ width: '600', height: '400' }, src), true, src);
  }
  for (const src of [
    PICTURE,
    'https://example.us1.list-manage.com/images/logo.png',
    'https://www.facebook.com/photo.jpg',
    'not a url',
  ]) {
    assert.equal(isTrackingSource(src), false, src);
  }
});
