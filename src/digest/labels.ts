/** The dates of a digest as a reader sees them, in the reader's zone. */

// Formatters are costly to create and a digest run formats thousands of times: one per zone.
const timeFormats = new Map<string, Intl.DateTimeFormat>();

/** "Sat 21 Nov, 18:05" in `timezone`. */
export function timeLabel(iso: string, timezone: string): string {
  let format = timeFormats.get(timezone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone: timezone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    timeFormats.set(timezone, format);
  }
  return format.format(new Date(iso));
}

// Made at the first label, not at start: a formatter loads ICU's calendar data (MiBs resident; issue 26).
const dayFormats: { long?: Intl.DateTimeFormat; short?: Intl.DateTimeFormat } = {};
const dayFormat = (withYear: boolean): Intl.DateTimeFormat =>
  withYear
    ? (dayFormats.long ??= new Intl.DateTimeFormat('en-GB', {
        timeZone: 'UTC',
        weekday: 'long',
        day: 'numeric',
        month: 'long',
        year: 'numeric',
      }))
    : (dayFormats.short ??= new Intl.DateTimeFormat('en-GB', {
        timeZone: 'UTC',
        weekday: 'long',
        day: 'numeric',
        month: 'long',
      }));

/** A calendar day (YYYY-MM-DD, already local) spelled out; the string itself when it is not such a day. */
export function dayLabel(localDate: string, withYear: boolean): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(localDate);
  if (m === null) return localDate;
  const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (Number.isNaN(day.getTime())) return localDate;
  return dayFormat(withYear).format(day).replace(',', '');
}
