import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTidingsError } from '../errors.js';
import { parseSettings } from './settings.js';

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
