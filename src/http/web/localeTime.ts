import { DateTime } from 'luxon';
import type { Locale, MessageKey, MessageValues } from '../../i18n/locale.js';
import { type SafeHtml, html } from './html.js';

const clocks = new Map<string, Intl.DateTimeFormat>();

/**
 * A moment in the reader's zone and language, day and time in full: "Tuesday 3 June 2025, 07:00" in
 * English (as time.ts's `localTime` writes it), the day by the Locale, the hour by Intl in its digits.
 */
export function localeTime(locale: Locale, iso: string, zone: string): string {
  const at = DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone);
  if (!at.isValid) return iso;
  const key = `${locale.lang} ${zone}`;
  let clock = clocks.get(key);
  if (clock === undefined) {
    clock = new Intl.DateTimeFormat(locale.lang === 'en-XA' ? 'en-GB' : locale.lang, {
      timeZone: zone,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    clocks.set(key, clock);
  }
  return locale.t('web.settings.dayAndTime', {
    day: locale.day(at.toISODate(), true),
    time: clock.format(new Date(iso)),
  });
}

/** A <time> element in the reader's language: the words shown, the moment in full on hover. */
export function localeTimeElement(locale: Locale, iso: string, zone: string, words?: string): SafeHtml {
  const full = localeTime(locale, iso, zone);
  return html`<time datetime="${iso}" title="${full}">${words ?? full}</time>`;
}

/** A message that takes no values (a label), for tables of labels. */
export type LabelKey = { [K in MessageKey]: MessageValues<K> extends [] ? K : never }[MessageKey];

const UNITS: readonly [number, 'year' | 'month' | 'week' | 'day' | 'hour' | 'minute'][] = [
  [365 * 24 * 60, 'year'],
  [30 * 24 * 60, 'month'],
  [7 * 24 * 60, 'week'],
  [24 * 60, 'day'],
  [60, 'hour'],
  [1, 'minute'],
];

/** How long ago, in the reader's words: "just now", "1 minute ago", "3 hours ago" (time.ts `ago`'s rule). */
export function localeAgo(locale: Locale, iso: string, now: Date): string {
  const minutes = Math.floor((now.getTime() - Date.parse(iso)) / 60_000);
  const unit = Number.isFinite(minutes) && minutes >= 1 ? UNITS.find(([size]) => minutes >= size) : undefined;
  if (unit === undefined) return locale.t('web.settings.justNow');
  return locale.t('web.settings.ago', { unit: unit[1], n: Math.floor(minutes / unit[0]) });
}

/** A <time> element saying how long ago, the moment in full on hover. */
export const localeAgoElement = (locale: Locale, iso: string, zone: string, now: Date): SafeHtml =>
  localeTimeElement(locale, iso, zone, localeAgo(locale, iso, now));
