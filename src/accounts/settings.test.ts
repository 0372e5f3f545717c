import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTidingsError } from '../errors.js';
import { settingProblem } from './settingRefusals.js';
import { parseSettings, zoneRefusalOf } from './settings.js';

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
      isTidingsError(err, 'invalid_input') &&
      /--time: must be HH:MM/.test(err.message) &&
      /--max-items: must be a whole number/.test(err.message) &&
      /--email-enabled: must be true or false/.test(err.message),
  );
  assert.throws(
    () => parseSettings({ colour: 'blue' }),
    (err: unknown) => isTidingsError(err, 'invalid_input'),
  );
});

test('a time zone may be typed as a city: case and spaces do not matter; unknown input names an example', () => {
  assert.deepEqual(zoneRefusalOf('Berlin'), { zone: 'Europe/Berlin' });
  assert.deepEqual(zoneRefusalOf('  new york '), { zone: 'America/New_York' });
  assert.deepEqual(zoneRefusalOf('BUENOS aires'), { zone: 'America/Buenos_Aires' });
  assert.deepEqual(zoneRefusalOf('Kyiv'), { zone: 'Europe/Kyiv' }, 'a current name ICU lists by its old one');
  assert.deepEqual(zoneRefusalOf('europe/berlin'), { zone: 'Europe/Berlin' }, 'IANA names as before');
  assert.deepEqual(zoneRefusalOf('UTC'), { zone: 'UTC' });
  for (const typed of ['Atlantis', 'Mars/Olympus', 'Europe/Atlantis', '+05:00', '', 'x'.repeat(101)]) {
    const found = zoneRefusalOf(typed);
    assert.ok('refusal' in found, typed);
    assert.match(
      settingProblem(found.refusal),
      /such as Berlin or New York, or an IANA name such as Europe\/Berlin/,
      typed,
    );
  }
  assert.deepEqual(parseSettings({ timezone: 'tokyo' }), { timezone: 'Asia/Tokyo' });
  assert.throws(
    () => parseSettings({ timezone: 'Atlantis' }),
    (err: unknown) =>
      isTidingsError(err, 'invalid_input') &&
      err.message ===
        '--timezone: unknown time zone "Atlantis": type a city such as Berlin or New York, or an IANA name such as Europe/Berlin',
  );
});
