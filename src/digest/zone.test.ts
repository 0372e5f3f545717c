import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalZone, zoneOrUtc } from './zone.js';

test('zones: IANA names only, with their usual capitals, never renamed', () => {
  assert.equal(canonicalZone('europe/berlin'), 'Europe/Berlin');
  assert.equal(canonicalZone(' utc '), 'UTC');
  // ICU knows these by their old names (Asia/Katmandu, Asia/Calcutta): what the reader typed stays.
  assert.equal(canonicalZone('Asia/Kathmandu'), 'Asia/Kathmandu');
  assert.equal(canonicalZone('Asia/Kolkata'), 'Asia/Kolkata');
  assert.equal(canonicalZone('Australia/Lord_Howe'), 'Australia/Lord_Howe');
  for (const bad of ['Mars/Olympus', '+05:00', '', 'Europe/', 'UTC+1'])
    assert.equal(canonicalZone(bad), null, bad);
});

test('a stored zone that went stale reads as UTC; a known one as it is', () => {
  assert.equal(zoneOrUtc('Europe/Berlin'), 'Europe/Berlin');
  assert.equal(zoneOrUtc('Nowhere/Town'), 'UTC');
  assert.equal(zoneOrUtc('+05:00'), 'UTC');
});
