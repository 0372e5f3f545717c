import { DateTime } from 'luxon';
import { type Weekday, storedDays } from './days.js';
import { zoneOrUtc } from './zone.js';

export type { Weekday } from './days.js';

/**
 * When digests become due. Pure: every function takes the instant it reasons from (the caller's injected
 * clock), so the same arguments give the same answer.
 *
 * A digest is due once per scheduled local day, at the local send time. DST: a send time that does not
 * exist that day (the clocks jump over it) moves to the next minute that does; a send time that happens
 * twice (the clocks go back over it) is its first occurrence, so it fires once.
 */

export interface SendTime {
  hour: number;
  minute: number;
}

export interface DigestSchedule {
  /** IANA zone, already validated. */
  zone: string;
  time: SendTime;
  /** The local days digests are built on; never empty. */
  days: ReadonlySet<Weekday>;
}

/** One scheduled slot: the instant, and the local day it belongs to (YYYY-MM-DD). */
export interface Slot {
  at: Date;
  localDate: string;
}

/** A new account's schedule settings (the migration's column defaults). */
export const DEFAULT_SCHEDULE = { digest_time: '07:00', digest_days: 'mon,tue,wed,thu,fri,sat,sun' } as const;

/** The schedule an account's stored settings describe (an unknown stored zone reads as UTC). */
export function scheduleOf(account: {
  timezone: string;
  digest_time: string;
  digest_days: string;
}): DigestSchedule {
  return {
    zone: zoneOrUtc(account.timezone),
    time: storedTime(account.digest_time),
    days: storedDays(account.digest_days),
  };
}

/** "07:00" → { hour: 7, minute: 0 }; a malformed stored value reads as 07:00. */
export function storedTime(stored: string): SendTime {
  const m = /^(\d{1,2}):(\d{2})$/.exec(stored);
  const hour = Number(m?.[1] ?? 7);
  const minute = Number(m?.[2] ?? 0);
  return hour <= 23 && minute <= 59 ? { hour, minute } : { hour: 7, minute: 0 };
}

/** A slot is looked for this many days around an instant: a week, and room for a day a zone skipped. */
const SEARCH_DAYS = 10;

/**
 * Slot instants already found, by zone, send time and local day (null: that day has none). Finding one
 * asks Luxon for a dozen zone offsets (about 0.2 ms an account in bench:digest's build, most of the
 * schedule's cost); accounts mostly share a few zones and send times. Cleared when full.
 */
const slotInstants = new Map<string, number | null>();
const SLOT_INSTANTS = 10_000;

/** The slot of `day`'s calendar date (a midnight UTC) in the schedule's zone. */
function slotOfDay(day: DateTime, schedule: DigestSchedule): Slot | null {
  const date = { year: day.year, month: day.month, day: day.day };
  if (!schedule.days.has(day.weekday as Weekday)) return null;
  const iso = `${String(date.year).padStart(4, '0')}-${pad(date.month)}-${pad(date.day)}`;
  const key = `${schedule.zone} ${schedule.time.hour}:${schedule.time.minute} ${iso}`;
  let at = slotInstants.get(key);
  if (at === undefined) {
    at = firstValidMinute({ ...date, ...schedule.time }, schedule.zone)?.toMillis() ?? null;
    if (slotInstants.size >= SLOT_INSTANTS) slotInstants.clear();
    slotInstants.set(key, at);
  }
  return at === null ? null : { at: new Date(at), localDate: iso };
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** The first slot strictly after `instant`: when the next digest becomes due. */
export function nextSlotAfter(instant: Date, schedule: DigestSchedule): Slot {
  const t = instant.getTime();
  // From the day before: a zone that falls back over midnight can put an instant's local day after the
  // day of a slot that is still to come.
  const start = shiftDays(calendarDay(instant, schedule.zone), -1);
  for (let i = 0; i <= SEARCH_DAYS; i++) {
    const slot = slotOfDay(shiftDays(start, i), schedule);
    if (slot !== null && slot.at.getTime() > t) return slot;
  }
  throw new Error(`no digest slot within ${SEARCH_DAYS} days of ${instant.toISOString()}`);
}

/**
 * The first slot strictly after `instant` that builds a digest. A slot whose local day already has one
 * ("Send me a digest now" earlier that day) builds nothing (digests are one per account and day): the
 * worker passes it over, and so does whoever says when the next digest comes.
 */
export function nextSlotToRun(instant: Date, schedule: DigestSchedule, taken: ReadonlySet<string>): Slot {
  let slot = nextSlotAfter(instant, schedule);
  while (taken.has(slot.localDate)) slot = nextSlotAfter(slot.at, schedule);
  return slot;
}

/** The local day (YYYY-MM-DD) before an instant's, in a zone: the earliest day a slot after it can have. */
export function dayBeforeOf(instant: Date, schedule: DigestSchedule): string {
  return shiftDays(calendarDay(instant, schedule.zone), -1).toISODate() ?? '0000-01-01';
}

/**
 * The latest slot at or before `instant`, or null when there is none in the last week and a half. A server
 * that was down for days catches up with this one slot only, not one per missed day.
 */
export function latestSlotAtOrBefore(instant: Date, schedule: DigestSchedule): Slot | null {
  const t = instant.getTime();
  const start = shiftDays(calendarDay(instant, schedule.zone), 1);
  for (let i = 0; i <= SEARCH_DAYS; i++) {
    const slot = slotOfDay(shiftDays(start, -i), schedule);
    if (slot !== null && slot.at.getTime() <= t) return slot;
  }
  return null;
}

/**
 * A locale for every Luxon date made here: without one Luxon asks Intl for the system's, and
 * Intl's first use loads ICU (~8 MiB resident; issue 26), even for UTC, whose dates need no zone data.
 * Nothing here formats by locale: the locale changes no answer.
 */
const inZone = (zone: string): { zone: string; locale: string } => ({ zone, locale: 'en-US' });

/**
 * A calendar day (midnight UTC, as calendarDay gives) moved by whole days: plain arithmetic, a UTC day
 * being 24 hours, and no Luxon Duration, which would ask for the system's locale all the same.
 */
const shiftDays = (day: DateTime, n: number): DateTime =>
  DateTime.fromMillis(day.toMillis() + n * 86_400_000, inZone('UTC'));

/** The local calendar day of an instant, as midnight UTC: day arithmetic without DST. */
function calendarDay(instant: Date, zone: string): DateTime {
  const local = DateTime.fromJSDate(instant, inZone(zone));
  return DateTime.fromObject({ year: local.year, month: local.month, day: local.day }, inZone('UTC'));
}

/** The local day (YYYY-MM-DD) of an instant in a zone. */
export function localDateOf(instant: Date, zone: string): string {
  return DateTime.fromJSDate(instant, inZone(zone)).toISODate() ?? instant.toISOString().slice(0, 10);
}

type WallTime = { year: number; month: number; day: number; hour: number; minute: number };

/**
 * The earliest instant showing `wanted` on the clocks of `zone`; when the clocks skip it, the first minute
 * after it that they show on the same day; null when none does (a day the zone skipped).
 */
function firstValidMinute(wanted: WallTime, zone: string): DateTime | null {
  const exact = DateTime.fromObject(wanted, inZone(zone));
  if (!exact.isValid) return null;
  if (shows(exact, wanted)) return earliest(exact);
  // In a gap: Luxon moved the time forward by the gap's length. Walk minute by minute to the gap's end.
  const base = DateTime.fromObject({ ...wanted, hour: 0, minute: 0 }, inZone('UTC'));
  for (let m = wanted.hour * 60 + wanted.minute + 1; m < 24 * 60; m++) {
    const wall = DateTime.fromMillis(base.toMillis() + m * 60_000, inZone('UTC'));
    const candidate = DateTime.fromObject(
      { year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute },
      inZone(zone),
    );
    if (shows(candidate, { ...wanted, hour: wall.hour, minute: wall.minute })) return earliest(candidate);
  }
  return null;
}

function shows(dt: DateTime, wall: WallTime): boolean {
  return (
    dt.year === wall.year &&
    dt.month === wall.month &&
    dt.day === wall.day &&
    dt.hour === wall.hour &&
    dt.minute === wall.minute
  );
}

/** Of the instants a repeated local time stands for, the first. */
function earliest(dt: DateTime): DateTime {
  return dt.getPossibleOffsets().reduce((a, b) => (b.toMillis() < a.toMillis() ? b : a), dt);
}
