/** The dates of a digest as a reader of English sees them, in the reader's zone (Locale writes them). */
import { ENGLISH } from '../i18n/locale.js';

/** "Sat 21 Nov, 18:05" in `timezone`. */
export function timeLabel(iso: string, timezone: string): string {
  return ENGLISH.time(iso, timezone);
}

/** A calendar day (YYYY-MM-DD, already local) spelled out; the string itself when it is not such a day. */
export function dayLabel(localDate: string, withYear: boolean): string {
  return ENGLISH.day(localDate, withYear);
}
