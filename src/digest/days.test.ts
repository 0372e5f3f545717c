import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeDays, parseDays } from './days.js';
import { scheduleOf } from './schedule.js';

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

test('scheduleOf reads stored settings, falling back for values that went stale', () => {
  const s = scheduleOf({ timezone: 'Nowhere/Town', digest_time: '99:99', digest_days: '' });
  assert.deepEqual([s.zone, s.time, [...s.days]], ['UTC', { hour: 7, minute: 0 }, [1, 2, 3, 4, 5, 6, 7]]);
});
