import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  SettingsError,
  canonicalZone,
  describeDays,
  parseDays,
  parseSettings,
  scheduleOf,
} from './settings.js';

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

test('days: daily, lists, ranges (wrapping), long names; stored in week order', () => {
  assert.deepEqual(parseDays('daily'), [1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(parseDays('mon-fri'), [1, 2, 3, 4, 5]);
  assert.deepEqual(parseDays('Fri-Mon'), [1, 5, 6, 7]);
  assert.deepEqual(parseDays('wed, mon ,saturday'), [1, 3, 6]);
  assert.deepEqual(parseDays('mon-wed,sat'), [1, 2, 3, 6]);
  assert.deepEqual(parseDays('sun-sun'), [7]);
  for (const bad of ['', 'funday', 'mon-', '-fri', 'mon-tue-wed', 'mon,,tue']) {
    assert.equal(typeof parseDays(bad), 'string', bad);
  }
  assert.equal(describeDays('mon,tue,wed,thu,fri,sat,sun'), 'daily');
  assert.equal(describeDays('mon,tue,wed,thu,fri'), 'mon-fri');
  assert.equal(describeDays('mon,wed,fri'), 'mon,wed,fri');
  assert.equal(describeDays('sat,sun'), 'sat,sun');
});

test('parseSettings: each option validated, normalised, every problem named', () => {
  assert.deepEqual(
    parseSettings({
      timezone: 'europe/berlin',
      time: '7:05',
      days: 'fri-mon',
      maxItems: '250',
      email: ' a@b.example ',
      emailEnabled: 'false',
      skipEmpty: 'true',
    }),
    {
      timezone: 'Europe/Berlin',
      time: '07:05',
      days: 'mon,fri,sat,sun',
      maxItems: 250,
      email: 'a@b.example',
      emailEnabled: false,
      skipEmpty: true,
    },
  );
  assert.deepEqual(parseSettings({ email: '' }), { email: null });
  assert.throws(
    () => parseSettings({ time: '7:5', maxItems: '-1', emailEnabled: 'TRUE' }),
    (err: unknown) =>
      err instanceof SettingsError &&
      /--time: must be HH:MM/.test(err.message) &&
      /--max-items: must be a whole number/.test(err.message) &&
      /--email-enabled: must be true or false/.test(err.message),
  );
  assert.throws(() => parseSettings({ colour: 'blue' }), SettingsError);
});

test('scheduleOf reads stored settings, falling back for values that went stale', () => {
  const s = scheduleOf({ timezone: 'Nowhere/Town', digest_time: '99:99', digest_days: '' });
  assert.deepEqual([s.zone, s.time, [...s.days]], ['UTC', { hour: 7, minute: 0 }, [1, 2, 3, 4, 5, 6, 7]]);
});
