import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDays } from './days.js';
import { type DigestSchedule, type Weekday, latestSlotAtOrBefore, nextSlotAfter } from './schedule.js';

/** The digest schedule against a table of instants, including the DST changes of four zones in 2026. */

const EVERY_DAY: Weekday[] = [1, 2, 3, 4, 5, 6, 7];

function schedule(zone: string, time: string, days: Weekday[] = EVERY_DAY): DigestSchedule {
  const [hour, minute] = time.split(':').map(Number);
  return { zone, time: { hour: hour ?? 0, minute: minute ?? 0 }, days: new Set(days) };
}

interface Row {
  what: string;
  zone: string;
  time: string;
  days: Weekday[];
  /** The instant the schedule is asked about (UTC). */
  after: string;
  /** The expected slot: instant (UTC) and local day. */
  at: string;
  localDate: string;
}

function daysOf(text: string): Weekday[] {
  const days = parseDays(text);
  if (typeof days === 'string') throw new Error(days);
  return days;
}

/** One row a line: zone, send time, days, instant asked about, expected slot and local day, what it shows. */
function table(text: string): Row[] {
  return text
    .trim()
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'))
    .map((line) => {
      const [zone = '', time = '', days = '', after = '', at = '', localDate = '', ...what] = line
        .trim()
        .split(/\s+/);
      return {
        zone,
        time,
        days: daysOf(days),
        after,
        at,
        localDate,
        what: what.join(' '),
      };
    });
}

// Europe/Berlin: CET (+1), CEST (+2) from 29 March 02:00 → 03:00, back on 25 October 03:00 → 02:00.
// America/New_York: EST (−5), EDT (−4) from 8 March 02:00 → 03:00, back on 1 November 02:00 → 01:00.
// Australia/Lord_Howe: +10:30, +11 in summer (a 30-minute shift): back on 5 April 02:00 → 01:30, forward on
// 4 October 02:00 → 02:30. Asia/Kathmandu: +05:45 all year.
const nextRows = table(`
  Europe/Berlin        07:00  daily               2026-03-27T12:00Z  2026-03-28T06:00Z  2026-03-28  Berlin, winter
  Europe/Berlin        07:00  daily               2026-03-28T12:00Z  2026-03-29T05:00Z  2026-03-29  Berlin, 07:00 on the day clocks go forward
  Europe/Berlin        02:30  daily               2026-03-28T12:00Z  2026-03-29T01:00Z  2026-03-29  Berlin, 02:30 does not exist: next valid minute 03:00
  Europe/Berlin        02:00  daily               2026-03-28T12:00Z  2026-03-29T01:00Z  2026-03-29  Berlin, 02:00 (the gap starts) moves to 03:00
  Europe/Berlin        02:59  daily               2026-03-28T12:00Z  2026-03-29T01:00Z  2026-03-29  Berlin, 02:59 (last minute of the gap) moves to 03:00
  Europe/Berlin        02:30  daily               2026-03-29T01:00Z  2026-03-30T00:30Z  2026-03-30  Berlin, 02:30 the day after the gap is 02:30 again
  Europe/Berlin        02:30  daily               2026-10-24T12:00Z  2026-10-25T00:30Z  2026-10-25  Berlin, repeated 02:30: the first occurrence (CEST)
  Europe/Berlin        02:30  daily               2026-10-25T00:30Z  2026-10-26T01:30Z  2026-10-26  Berlin, repeated 02:30 fires once: after the first, the next day
  Europe/Berlin        02:30  daily               2026-10-25T01:00Z  2026-10-26T01:30Z  2026-10-26  Berlin, between the two 02:30s
  Europe/Berlin        07:00  daily               2026-10-24T12:00Z  2026-10-25T06:00Z  2026-10-25  Berlin, 07:00 on the day clocks go back is CET
  America/New_York     02:30  daily               2026-03-07T12:00Z  2026-03-08T07:00Z  2026-03-08  New York, 02:30 does not exist on 8 March: 03:00 EDT
  America/New_York     07:00  daily               2026-03-07T12:00Z  2026-03-08T11:00Z  2026-03-08  New York, 07:00 on 8 March is EDT
  America/New_York     01:30  daily               2026-10-31T12:00Z  2026-11-01T05:30Z  2026-11-01  New York, repeated 01:30: the first (EDT)
  America/New_York     01:30  daily               2026-11-01T05:30Z  2026-11-02T06:30Z  2026-11-02  New York, repeated 01:30 fires once
  America/New_York     21:00  daily               2026-11-23T01:00Z  2026-11-23T02:00Z  2026-11-22  New York, evening slot on a UTC-next-day instant
  Australia/Lord_Howe  01:45  daily               2026-04-04T12:00Z  2026-04-04T14:45Z  2026-04-05  Lord Howe, repeated 01:45: the first (+11)
  Australia/Lord_Howe  01:45  daily               2026-04-04T14:45Z  2026-04-05T15:15Z  2026-04-06  Lord Howe, repeated 01:45 fires once
  Australia/Lord_Howe  02:15  daily               2026-10-03T12:00Z  2026-10-03T15:30Z  2026-10-04  Lord Howe, 02:15 does not exist on 4 October: 02:30
  Australia/Lord_Howe  07:00  daily               2026-10-03T12:00Z  2026-10-03T20:00Z  2026-10-04  Lord Howe, 07:00 on 4 October is +11
  Australia/Lord_Howe  07:00  daily               2026-06-30T12:00Z  2026-06-30T20:30Z  2026-07-01  Lord Howe, 07:00 in winter is +10:30
  Asia/Kathmandu       07:00  daily               2026-11-22T12:00Z  2026-11-23T01:15Z  2026-11-23  Kathmandu, 07:00
  Asia/Kathmandu       00:00  daily               2026-11-22T12:00Z  2026-11-22T18:15Z  2026-11-23  Kathmandu, midnight is the day before in UTC
  Europe/Berlin        07:00  mon-fri             2026-11-27T06:00Z  2026-11-30T06:00Z  2026-11-30  mon-fri: after Friday comes Monday
  Europe/Berlin        07:00  mon-fri             2026-11-26T05:59:59Z  2026-11-26T06:00Z  2026-11-26  mon-fri: Thursday before its slot
  UTC                  09:00  sat                 2026-11-28T09:00Z  2026-12-05T09:00Z  2026-12-05  Saturdays only: a week on
  Pacific/Auckland     07:00  mon                 2026-11-22T00:00Z  2026-11-22T18:00Z  2026-11-23  the local weekday counts, not UTC: Monday in Auckland is Sunday in UTC
  UTC                  07:00  daily               2026-11-23T07:00Z  2026-11-24T07:00Z  2026-11-24  exactly at a slot: the next one
`);

const latestRows = table(`
  Europe/Berlin        07:00  daily               2026-11-23T05:59:59Z  2026-11-22T06:00Z  2026-11-22  just before today’s slot: yesterday’s
  Europe/Berlin        07:00  daily               2026-11-23T06:00Z  2026-11-23T06:00Z  2026-11-23  exactly at the slot: that slot
  Europe/Berlin        07:00  daily               2026-11-30T10:00Z  2026-11-30T06:00Z  2026-11-30  down for a week: only the latest slot
  Europe/Berlin        07:00  mon-fri             2026-11-29T12:00Z  2026-11-27T06:00Z  2026-11-27  mon-fri, back on Sunday: Friday’s
  UTC                  07:00  wed                 2026-11-24T12:00Z  2026-11-18T07:00Z  2026-11-18  Wednesdays only, back on Tuesday: six days back
  Europe/Berlin        02:30  daily               2026-03-29T10:00Z  2026-03-29T01:00Z  2026-03-29  down over the Berlin gap: the moved slot
  Europe/Berlin        02:30  daily               2026-10-25T01:15Z  2026-10-25T00:30Z  2026-10-25  between the two Berlin 02:30s: the first
  Australia/Lord_Howe  01:45  daily               2026-04-04T16:00Z  2026-04-04T14:45Z  2026-04-05  Lord Howe, after the repeated hour: its first 01:45
  Asia/Kathmandu       07:00  daily               2026-11-23T01:14Z  2026-11-22T01:15Z  2026-11-22  Kathmandu
`);

describe('nextSlotAfter', () => {
  for (const row of nextRows) {
    test(row.what, () => {
      const slot = nextSlotAfter(new Date(row.after), schedule(row.zone, row.time, row.days));
      assert.deepEqual({ at: slot.at.toISOString(), localDate: slot.localDate }, expected(row));
    });
  }
});

describe('latestSlotAtOrBefore (catch-up)', () => {
  for (const row of latestRows) {
    test(row.what, () => {
      const slot = latestSlotAtOrBefore(new Date(row.after), schedule(row.zone, row.time, row.days));
      assert.ok(slot !== null);
      assert.deepEqual({ at: slot.at.toISOString(), localDate: slot.localDate }, expected(row));
    });
  }
});

function expected(row: Row): { at: string; localDate: string } {
  return { at: new Date(row.at).toISOString(), localDate: row.localDate };
}

test('a day that is not scheduled has no slot', () => {
  const weekdays = schedule('Europe/Berlin', '07:00', [1, 2, 3, 4, 5]);
  const slot = (s: { at: Date; localDate: string } | null) => [s?.at.toISOString(), s?.localDate];
  // Friday 27 November has its slot; Saturday 28 and Sunday 29 have none, on either side of them.
  assert.deepEqual(slot(latestSlotAtOrBefore(new Date('2026-11-27T06:00:00Z'), weekdays)), [
    '2026-11-27T06:00:00.000Z',
    '2026-11-27',
  ]);
  assert.deepEqual(slot(nextSlotAfter(new Date('2026-11-27T06:00:00Z'), weekdays)), [
    '2026-11-30T06:00:00.000Z',
    '2026-11-30',
  ]);
  assert.deepEqual(slot(latestSlotAtOrBefore(new Date('2026-11-29T23:59:00Z'), weekdays)), [
    '2026-11-27T06:00:00.000Z',
    '2026-11-27',
  ]);
});

/**
 * The scheduler as the worker runs it, on an injected clock that ticks every 5 minutes through a month
 * with a DST change: fire when due (for the latest slot), then wait for the next slot. Every day fires
 * exactly once, at its slot, with a stop of several days caught up by one digest.
 */
function simulate(
  s: DigestSchedule,
  from: string,
  to: string,
  down?: { from: string; to: string },
): { localDate: string; firedAt: string }[] {
  const fired: { localDate: string; firedAt: string }[] = [];
  const step = 5 * 60_000;
  let due = nextSlotAfter(new Date(from), s).at.getTime();
  for (let t = Date.parse(from); t <= Date.parse(to); t += step) {
    if (down !== undefined && t >= Date.parse(down.from) && t < Date.parse(down.to)) continue;
    if (t < due) continue;
    const now = new Date(t);
    const slot = latestSlotAtOrBefore(now, s);
    assert.ok(slot !== null);
    fired.push({ localDate: slot.localDate, firedAt: now.toISOString() });
    due = nextSlotAfter(now, s).at.getTime();
  }
  return fired;
}

for (const [zone, time, changeDay] of [
  ['Europe/Berlin', '02:30', '2026-10-25'],
  ['Europe/Berlin', '02:30', '2026-03-29'],
  ['America/New_York', '01:30', '2026-11-01'],
  ['America/New_York', '02:15', '2026-03-08'],
  ['Australia/Lord_Howe', '01:45', '2026-04-05'],
  ['Australia/Lord_Howe', '02:10', '2026-10-04'],
  ['Asia/Kathmandu', '07:00', '2026-11-23'],
] as const) {
  test(`a week around ${changeDay} in ${zone} at ${time}: one digest a day`, () => {
    const s = schedule(zone, time);
    const start = new Date(Date.parse(changeDay) - 3 * 86_400_000).toISOString();
    const end = new Date(Date.parse(changeDay) + 4 * 86_400_000).toISOString();
    const fired = simulate(s, start, end);
    const days = fired.map((f) => f.localDate);
    assert.equal(new Set(days).size, days.length, `no day twice: ${days.join(' ')}`);
    assert.ok(days.includes(changeDay), `${changeDay} fired: ${days.join(' ')}`);
    assert.ok(fired.length >= 6 && fired.length <= 8, `about a week: ${days.join(' ')}`);
    for (const f of fired) {
      // Each fires on the first tick at or after its slot: the day's slot came since the tick before.
      const slot = nextSlotAfter(new Date(Date.parse(f.firedAt) - 5 * 60_000), s);
      const at = slot.at.getTime();
      assert.equal(slot.localDate, f.localDate, JSON.stringify(f));
      assert.ok(
        Date.parse(f.firedAt) - at >= 0 && Date.parse(f.firedAt) - at < 5 * 60_000,
        JSON.stringify(f),
      );
    }
  });
}

test('a server down from Tuesday to Saturday catches up with one digest, then goes on daily', () => {
  const s = schedule('Europe/Berlin', '07:00');
  const fired = simulate(s, '2026-11-22T12:00:00Z', '2026-11-30T12:00:00Z', {
    from: '2026-11-24T12:00:00Z',
    to: '2026-11-28T10:02:00Z',
  });
  assert.deepEqual(
    fired.map((f) => f.localDate),
    ['2026-11-23', '2026-11-24', '2026-11-28', '2026-11-29', '2026-11-30'],
  );
  assert.equal(fired[2]?.firedAt, '2026-11-28T10:05:00.000Z', 'at once on restart');
});

test('a slot found again (remembered by zone, time and day) is the same, and its Date is its own', () => {
  const berlin = schedule('Europe/Berlin', '02:30');
  // 29 March 2026: Berlin's clocks jump from 02:00 to 03:00, so 02:30 moves to 03:00 (01:00 UTC).
  const first = nextSlotAfter(new Date('2026-03-28T12:00:00Z'), berlin);
  assert.deepEqual(first, { at: new Date('2026-03-29T01:00:00.000Z'), localDate: '2026-03-29' });
  first.at.setTime(0);
  const again = nextSlotAfter(new Date('2026-03-28T13:00:00Z'), berlin);
  assert.deepEqual(again, { at: new Date('2026-03-29T01:00:00.000Z'), localDate: '2026-03-29' });
  const utc = nextSlotAfter(new Date('2026-03-28T12:00:00Z'), schedule('UTC', '02:30'));
  assert.deepEqual(utc, { at: new Date('2026-03-29T02:30:00.000Z'), localDate: '2026-03-29' });
});
