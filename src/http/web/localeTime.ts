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
