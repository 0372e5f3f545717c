/**
 * Reads the dates feeds actually contain: RFC 822/2822 with the usual deviations (no weekday, two-digit
 * years, named zones, single-digit days, a dot after the month, extra whitespace) and ISO 8601 / RFC 3339
 * with or without zone, seconds or time. A date without a zone is taken as UTC. Returns null for anything
 * else, including impossible dates such as 31 February.
 */
export function parseFeedDate(raw: string | undefined): Date | null {
  if (raw === undefined) return null;
  const text = raw.trim().replace(/\s+/g, ' ');
  if (text === '') return null;
  return parseIso(text) ?? parseRfc822(text) ?? parseUsStyle(text);
}

const ISO =
  /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2}):?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)? ?(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

function parseIso(text: string): Date | null {
  const m = ISO.exec(text);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  return instant(
    { year: Number(y), month: Number(mo), day: Number(d), ...clock(h, mi, s), ms: fraction(frac) },
    zoneOffset(zone),
  );
}

// [weekday,] day month year [hh:mm[:ss]] [zone] [(comment)]
const RFC822 =
  /^(?:[a-z]{2,9}\.?,? )?(\d{1,2})[ -]([a-z]{3,9})\.?[ -](\d{2}|\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2}))?)? ?([a-z]{1,5}|[+-]\d{2}:?\d{2})?(?: \(.*\))?$/i;

function parseRfc822(text: string): Date | null {
  const m = RFC822.exec(text.replace(/,(?=\S)/, ', '));
  if (m === null) return null;
  const [, d, monthName, y, h, mi, s, zone] = m;
  const month = monthNumber(monthName);
  if (month === null) return null;
  return instant({ year: fullYear(y), month, day: Number(d), ...clock(h, mi, s), ms: 0 }, zoneOffset(zone));
}

// [weekday,] month day[,] year [hh:mm[:ss]] [zone], as in "Jan 2, 2006 15:04 PST" or JavaScript's toString.
const US_STYLE =
  /^(?:[a-z]{2,9},? )?([a-z]{3,9})\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2}))?)? ?(?:GMT(?=[+-]))?([a-z]{1,5}|[+-]\d{2}:?\d{2})?(?: \(.*\))?$/i;

function parseUsStyle(text: string): Date | null {
  const m = US_STYLE.exec(text);
  if (m === null) return null;
  const [, monthName, d, y, h, mi, s, zone] = m;
  const month = monthNumber(monthName);
  if (month === null) return null;
  return instant({ year: Number(y), month, day: Number(d), ...clock(h, mi, s), ms: 0 }, zoneOffset(zone));
}

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

function clock(h?: string, mi?: string, s?: string): Pick<Fields, 'hour' | 'minute' | 'second'> {
  return { hour: Number(h ?? 0), minute: Number(mi ?? 0), second: Number(s ?? 0) };
}

function fraction(digits: string | undefined): number {
  return digits === undefined ? 0 : Math.round(Number(`0.${digits}`) * 1000);
}

/** The instant, or null when a field is out of range (Date.UTC would silently roll 31 Feb into March). */
function instant(f: Fields, offsetMinutes: number | null): Date | null {
  if (offsetMinutes === null) return null;
  const valid =
    f.month >= 1 &&
    f.month <= 12 &&
    f.day >= 1 &&
    f.day <= daysInMonth(f.year, f.month) &&
    f.hour <= 23 &&
    f.minute <= 59 &&
    f.second <= 60; // a leap second is read as the next minute's first
  if (!valid) return null;
  const utc = Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second, f.ms);
  return new Date(utc - offsetMinutes * 60_000);
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** RFC 2822 §4.3: two-digit years below 50 are 20xx, the others 19xx. */
function fullYear(y: string | undefined): number {
  const n = Number(y);
  if (y?.length === 4) return n;
  return n < 50 ? 2000 + n : 1900 + n;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** 1–12 for an English month name or an abbreviation of at least three letters ("Sept" too), else null. */
function monthNumber(name: string | undefined): number | null {
  const lower = name?.toLowerCase() ?? '';
  if (lower.length < 3) return null;
  const index = MONTHS.findIndex((month) => month.startsWith(lower));
  return index === -1 ? null : index + 1;
}

/**
 * Offsets in minutes east of UTC for the zone names RFC 822 defines plus those common in feeds. Ambiguous
 * abbreviations (IST, CST outside the US…) take their RFC 822 or most common meaning.
 */
const NAMED_ZONES: Readonly<Record<string, number>> = {
  z: 0,
  ut: 0,
  utc: 0,
  gmt: 0,
  wet: 0,
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
  akst: -540,
  akdt: -480,
  hst: -600,
  bst: 60,
  west: 60,
  cet: 60,
  met: 60,
  cest: 120,
  mest: 120,
  eet: 120,
  eest: 180,
  msk: 180,
  ist: 330,
  jst: 540,
  kst: 540,
  aest: 600,
  aedt: 660,
  nzst: 720,
  nzdt: 780,
};

/**
 * Minutes east of UTC; 0 when there is no zone. An unknown name is taken as UTC too: a date off by a few
 * hours is more useful than none (RFC 2822 §4.3 says the same of unknown military zones).
 */
function zoneOffset(zone: string | undefined): number | null {
  if (zone === undefined) return 0;
  const numeric = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (numeric === null) return NAMED_ZONES[zone.toLowerCase()] ?? 0;
  const [, sign, hh, mm] = numeric;
  const minutes = Number(hh) * 60 + Number(mm ?? 0);
  if (minutes > 18 * 60) return null;
  return sign === '-' ? -minutes : minutes;
}
