/**
 * Reads the dates feeds actually contain: RFC 822/2822 with the usual deviations (no weekday, two-digit
 * years, named zones, single-digit days, a dot after the month, extra whitespace) and ISO 8601 / RFC 3339
 * with or without zone, seconds or time. A date without a zone is taken as UTC. Returns null for anything
 * else, including impossible dates such as 31 February.
 */
export function parseFeedDate(raw: string | undefined): Date | null {
  if (raw === undefined) return null;
  const exact = isDigit(raw.charCodeAt(0)) ? exactRfc3339(raw) : exactRfc822(raw);
  if (exact !== null) return exact;
  const text = raw.trim().replace(/\s+/g, ' ');
  if (text === '') return null;
  return parseIso(text) ?? parseRfc822(text) ?? parseUsStyle(text);
}

/*
 * The shapes almost every feed uses, read without regular expressions or intermediate strings:
 * "2024-05-01T12:00:00Z" (also with ".000" and a "+02:00" zone) and "Wed, 01 May 2024 12:00:00 +0000"
 * (or "GMT"). Each returns null for anything else, an impossible field included, and the general readers
 * below then decide; where these read a date, the general readers read the same one.
 */

function exactRfc3339(s: string): Date | null {
  if (s.charCodeAt(4) !== 0x2d || s.charCodeAt(7) !== 0x2d || s.charCodeAt(10) !== 0x54 /* T */) return null;
  if (s.charCodeAt(13) !== 0x3a || s.charCodeAt(16) !== 0x3a) return null;
  // Exactly three digits of fraction: fraction() makes the same milliseconds of them.
  const hasMs = s.charCodeAt(19) === 0x2e;
  const zone = hasMs ? 23 : 19;
  let offset: number;
  if (s.charCodeAt(zone) === 0x5a /* Z */ && s.length === zone + 1) offset = 0;
  else if (s.charCodeAt(zone + 3) === 0x3a && s.length === zone + 6)
    offset = numericOffset(s, zone, zone + 4);
  else return null;
  return exactInstant(
    digits(s, 0, 4),
    digits(s, 5, 2),
    digits(s, 8, 2),
    digits(s, 11, 2),
    digits(s, 14, 2),
    digits(s, 17, 2),
    hasMs ? digits(s, 20, 3) : 0,
    offset,
  );
}

/** "Www, DD Mon YYYY HH:MM:SS " then "GMT" or a numeric zone "+HHMM" / "-HHMM". */
function exactRfc822(s: string): Date | null {
  if (s.length !== 29 && s.length !== 31) return null;
  if (s.charCodeAt(3) !== 0x2c || s.charCodeAt(4) !== 0x20 || s.charCodeAt(7) !== 0x20) return null;
  if (s.charCodeAt(11) !== 0x20 || s.charCodeAt(16) !== 0x20 || s.charCodeAt(25) !== 0x20) return null;
  if (s.charCodeAt(19) !== 0x3a || s.charCodeAt(22) !== 0x3a) return null;
  if (!isLetter(s.charCodeAt(0)) || !isLetter(s.charCodeAt(1)) || !isLetter(s.charCodeAt(2))) return null;
  let offset: number;
  if (s.length === 31) offset = numericOffset(s, 26, 29);
  else if (s.endsWith('GMT')) offset = 0;
  else return null;
  const month = MONTH_ABBREVIATIONS.get(s.slice(8, 11));
  if (month === undefined) return null;
  const year = digits(s, 12, 4);
  const day = digits(s, 5, 2);
  return exactInstant(year, month, day, digits(s, 17, 2), digits(s, 20, 2), digits(s, 23, 2), 0, offset);
}

/** Minutes east of UTC of "+HH" at `at` and "MM" at `minutesAt`, as zoneOffset() reads them; NaN if not. */
function numericOffset(s: string, at: number, minutesAt: number): number {
  const sign = s.charCodeAt(at);
  const minutes = digits(s, at + 1, 2) * 60 + digits(s, minutesAt, 2);
  if ((sign !== 0x2b && sign !== 0x2d) || !(minutes <= 18 * 60)) return NaN;
  return sign === 0x2d ? -minutes : minutes;
}

/** instantOf(), once no field (nor the offset) is NaN, which a character that is not a digit makes it. */
function exactInstant(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
  offsetMinutes: number,
): Date | null {
  if (Number.isNaN(year + month + day + hour + minute + second + ms + offsetMinutes)) return null;
  return instantOf(year, month, day, hour, minute, second, ms, offsetMinutes);
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isLetter = (c: number): boolean => (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;

/** The number `length` ASCII digits at `from` spell, or NaN. */
function digits(s: string, from: number, length: number): number {
  let n = 0;
  for (let i = from; i < from + length; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return NaN;
    n = n * 10 + c - 0x30;
  }
  return n;
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
  return instantOf(f.year, f.month, f.day, f.hour, f.minute, f.second, f.ms, offsetMinutes);
}

function instantOf(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
  offsetMinutes: number,
): Date | null {
  const valid =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 60; // a leap second is read as the next minute's first
  if (!valid) return null;
  const days = daysFromCivil(year >= 0 && year <= 99 ? 1900 + year : year, month, day);
  const time = ((hour * 60 + minute) * 60 + second) * 1000 + ms;
  return new Date(days * 86_400_000 + time - offsetMinutes * 60_000);
}

/**
 * Days from 1970-01-01 to a valid date of the proleptic Gregorian calendar (H. Hinnant's days_from_civil):
 * what Date.UTC computes, without the call. The caller maps years 0–99 to 1900–1999 as Date.UTC does.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in `month` (1–12) of `year`, the year read as Date.UTC reads it (0–99 are 1900–1999). */
function daysInMonth(year: number, month: number): number {
  const y = year >= 0 && year <= 99 ? 1900 + year : year;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return month === 2 && leap ? 29 : (MONTH_DAYS[month - 1] ?? 0);
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

/** 1–12 for "Jan" … "Dec" as RFC 822 writes them: what monthNumber() reads them as. */
const MONTH_ABBREVIATIONS: ReadonlyMap<string, number> = new Map(
  MONTHS.map((name, i): [string, number] => [`${name[0]?.toUpperCase() ?? ''}${name.slice(1, 3)}`, i + 1]),
);

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
