import { IANAZone } from 'luxon';
import { z } from 'zod';
import type { DigestSchedule, SendTime, Weekday } from '../digest/schedule.js';

/**
 * An account's digest settings as a person types them (`tidings account set`), validated by one schema
 * into what the store keeps. Every field is optional: only what is given changes.
 */

const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const LONG_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

export const MAX_ITEMS_LIMIT = 10_000;

/**
 * The zone as an IANA name both Intl and Luxon know, with its usual capitals ("europe/berlin" →
 * "Europe/Berlin"), or null. The name is kept as given otherwise: ICU would turn Asia/Kathmandu into its
 * old name Asia/Katmandu.
 */
export function canonicalZone(value: string): string | null {
  const zone = value.trim();
  // Only IANA names: Intl also takes offsets such as "+05:00", which have no DST rules to follow.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone) || !IANAZone.isValidZone(zone)) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  const lower = zone.toLowerCase();
  return knownZones().get(lower) ?? (resolved.toLowerCase() === lower ? resolved : zone);
}

let zoneNames: Map<string, string> | undefined;

function knownZones(): Map<string, string> {
  zoneNames ??= new Map(Intl.supportedValuesOf('timeZone').map((z) => [z.toLowerCase(), z]));
  return zoneNames;
}

const timezone = z.string().transform((value, ctx) => {
  const zone = canonicalZone(value);
  if (zone === null) {
    ctx.addIssue({
      code: 'custom',
      message: `unknown time zone "${value}" (use an IANA name such as Europe/Berlin or America/New_York)`,
    });
    return z.NEVER;
  }
  return zone;
});

const time = z.string().transform((value, ctx) => {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(value.trim());
  if (m === null) {
    ctx.addIssue({ code: 'custom', message: `must be HH:MM from 00:00 to 23:59, not "${value}"` });
    return z.NEVER;
  }
  return `${(m[1] ?? '').padStart(2, '0')}:${m[2] ?? ''}`;
});

const days = z.string().transform((value, ctx) => {
  const parsed = parseDays(value);
  if (typeof parsed === 'string') {
    ctx.addIssue({ code: 'custom', message: parsed });
    return z.NEVER;
  }
  return formatDayList(parsed);
});

const maxItems = z
  .string()
  .regex(/^\d+$/, { error: 'must be a whole number' })
  .transform(Number)
  .pipe(
    z
      .number()
      .int()
      .min(1, { error: 'must be at least 1' })
      .max(MAX_ITEMS_LIMIT, { error: `must be at most ${MAX_ITEMS_LIMIT}` }),
  );

const email = z.string().transform((value, ctx) => {
  const address = value.trim();
  if (address === '') return null; // an empty address removes it
  if (address.length > 320 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address)) {
    ctx.addIssue({ code: 'custom', message: `not an email address: "${value}"` });
    return z.NEVER;
  }
  return address;
});

const flag = z
  .enum(['true', 'false'], { error: (issue) => `must be true or false, not "${String(issue.input)}"` })
  .transform((v) => v === 'true');

/** What `account set` accepts, by option name. */
export const settingsSchema = z.strictObject({
  timezone: timezone.optional(),
  time: time.optional(),
  days: days.optional(),
  maxItems: maxItems.optional(),
  email: email.optional(),
  emailEnabled: flag.optional(),
  skipEmpty: flag.optional(),
});

export type SettingsInput = z.input<typeof settingsSchema>;
export type SettingsChange = z.output<typeof settingsSchema>;

export class SettingsError extends Error {
  override name = 'SettingsError';
}

const OPTION_NAMES: Record<string, string> = {
  timezone: '--timezone',
  time: '--time',
  days: '--days',
  maxItems: '--max-items',
  email: '--email',
  emailEnabled: '--email-enabled',
  skipEmpty: '--skip-empty',
};

/** Validates every given setting; throws a SettingsError naming each bad option. */
export function parseSettings(input: Record<string, unknown>): SettingsChange {
  const result = settingsSchema.safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => {
    const key = String(i.path[0] ?? '');
    return `${OPTION_NAMES[key] ?? key}: ${i.message}`;
  });
  throw new SettingsError(lines.join('; '));
}

/**
 * "daily", a list ("mon,wed,fri"), ranges ("mon-fri", "fri-mon" wraps) or both ("mon-wed,sat"); names
 * may be spelled out. The days in week order, or why the value is not understood.
 */
export function parseDays(value: string): Weekday[] | string {
  const text = value.trim().toLowerCase();
  if (text === 'daily' || text === 'every day') return [1, 2, 3, 4, 5, 6, 7];
  if (text === '') return 'give at least one day (mon-fri, mon,wed,fri or daily)';
  const chosen = new Set<Weekday>();
  for (const part of text.split(',')) {
    const bounds = part.split('-').map((p) => dayNumber(p.trim()));
    const [from, to] = bounds;
    if (bounds.length > 2 || from === undefined || bounds.includes(null)) {
      return `"${value}" is not a list of days: use mon-fri, mon,wed,fri or daily`;
    }
    const last = to ?? from;
    if (from === null || last === null) return `"${value}" is not a list of days`;
    for (let d = from; ; d = ((d % 7) + 1) as Weekday) {
      chosen.add(d);
      if (d === last) break;
    }
  }
  return [...chosen].sort((a, b) => a - b);
}

function dayNumber(name: string): Weekday | null {
  const short = DAY_NAMES.indexOf(name as (typeof DAY_NAMES)[number]);
  const index = short >= 0 ? short : LONG_NAMES.indexOf(name);
  return index >= 0 ? ((index + 1) as Weekday) : null;
}

/** As stored: "mon,tue,wed". */
export function formatDayList(days: readonly Weekday[]): string {
  return days.map((d) => DAY_NAMES[d - 1]).join(',');
}

/** The stored list, read back; unknown names are ignored and an empty list means every day. */
export function storedDays(stored: string): Set<Weekday> {
  const parsed = parseDays(stored);
  return new Set(typeof parsed === 'string' || parsed.length === 0 ? [1, 2, 3, 4, 5, 6, 7] : parsed);
}

/** Compact, for people: "daily", "mon-fri", "mon,wed,fri", "sat-sun". */
export function describeDays(stored: string): string {
  const list = [...storedDays(stored)].sort((a, b) => a - b);
  if (list.length === 7) return 'daily';
  const first = list[0];
  const last = list[list.length - 1];
  const contiguous = first !== undefined && last !== undefined && last - first === list.length - 1;
  if (contiguous && list.length >= 3) return `${DAY_NAMES[first - 1]}-${DAY_NAMES[last - 1]}`;
  return formatDayList(list);
}

/** "07:00" → { hour: 7, minute: 0 }; a malformed stored value reads as 07:00. */
export function storedTime(stored: string): SendTime {
  const m = /^(\d{1,2}):(\d{2})$/.exec(stored);
  const hour = Number(m?.[1] ?? 7);
  const minute = Number(m?.[2] ?? 0);
  return hour <= 23 && minute <= 59 ? { hour, minute } : { hour: 7, minute: 0 };
}

/** The schedule an account's stored settings describe (an unknown stored zone reads as UTC). */
export function scheduleOf(account: {
  timezone: string;
  digest_time: string;
  digest_days: string;
}): DigestSchedule {
  return {
    zone: canonicalZone(account.timezone) ?? 'UTC',
    time: storedTime(account.digest_time),
    days: storedDays(account.digest_days),
  };
}

/** A new account's schedule settings (the migration's column defaults). */
export const DEFAULT_SCHEDULE = { digest_time: '07:00', digest_days: 'mon,tue,wed,thu,fri,sat,sun' } as const;
