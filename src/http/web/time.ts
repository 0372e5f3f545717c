import { DateTime } from 'luxon';
import { ENGLISH, type Locale } from '../../i18n/locale.js';
import { type SafeHtml, html } from './html.js';

type Unit = 'year' | 'month' | 'week' | 'day' | 'hour' | 'minute';

const UNITS: readonly [number, Unit][] = [
  [365 * 24 * 60, 'year'],
  [30 * 24 * 60, 'month'],
  [7 * 24 * 60, 'week'],
  [24 * 60, 'day'],
  [60, 'hour'],
  [1, 'minute'],
];

/** The largest unit of a span of minutes and how many of it; null under a minute. */
function spanOf(minutes: number): { unit: Unit; n: number } | null {
  if (!Number.isFinite(minutes) || minutes < 1) return null;
  for (const [size, unit] of UNITS) {
    if (minutes >= size) return { unit, n: Math.floor(minutes / size) };
  }
  return null;
}

/** How long ago, in words: "just now", "1 minute ago", "3 hours ago", "2 days ago". */
export function ago(iso: string, now: Date, locale: Locale = ENGLISH): string {
  const span = spanOf(Math.floor((now.getTime() - Date.parse(iso)) / 60_000));
  return span === null ? locale.t('web.time.justNow') : locale.t('web.time.ago', span);
}

/** A moment in the reader's zone, as words: "Tuesday 3 June 2025, 07:00" in English. */
export function localTime(iso: string, zone: string, locale: Locale = ENGLISH): string {
  const at = DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone);
  if (!at.isValid) return iso;
  return locale.t('web.time.at', {
    day: locale.day(at.toFormat('yyyy-MM-dd'), true),
    time: at.toFormat('HH:mm'),
  });
}

/** A <time> element: the words shown, the exact moment (in the reader's zone) on hover and for machines. */
export function timeElement(iso: string, zone: string, words: string, locale: Locale = ENGLISH): SafeHtml {
  return html`<time datetime="${iso}" title="${localTime(iso, zone, locale)}">${words}</time>`;
}

/** How long until, in words: "in 40 minutes", "in 2 hours"; "soon" for a moment already past or close. */
export function fromNow(iso: string, now: Date, locale: Locale = ENGLISH): string {
  const span = spanOf(Math.floor((Date.parse(iso) - now.getTime()) / 60_000));
  return span === null ? locale.t('web.time.soon') : locale.t('web.time.in', span);
}

/**
 * When the next digest is due, as the values of a message that says it in one sentence (a `select` on
 * `due`: "yes" with `at`, the <time> element as HTML — give it to `locale.html` among its HTML values — and
 * `zone`; "no" when it is not scheduled).
 */
export function dueValues(
  next: { at: Date } | null,
  zone: string,
  locale: Locale,
): { due: 'yes' | 'no'; at: string; zone: string } {
  if (next === null) return { due: 'no', at: '', zone };
  const iso = next.at.toISOString();
  return { due: 'yes', at: timeElement(iso, zone, localTime(iso, zone, locale), locale).value, zone };
}
