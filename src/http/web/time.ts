import { DateTime } from 'luxon';
import { type SafeHtml, html } from './html.js';

const UNITS: readonly [number, string][] = [
  [365 * 24 * 60, 'year'],
  [30 * 24 * 60, 'month'],
  [7 * 24 * 60, 'week'],
  [24 * 60, 'day'],
  [60, 'hour'],
  [1, 'minute'],
];

/** How long ago, in words: "just now", "1 minute ago", "3 hours ago", "2 days ago". */
export function ago(iso: string, now: Date): string {
  const minutes = Math.floor((now.getTime() - Date.parse(iso)) / 60_000);
  if (!Number.isFinite(minutes) || minutes < 1) return 'just now';
  for (const [size, unit] of UNITS) {
    if (minutes >= size) {
      const n = Math.floor(minutes / size);
      return `${n} ${unit}${n === 1 ? '' : 's'} ago`;
    }
  }
  return 'just now';
}

/** A moment in the reader's zone, as words: "Tuesday 3 June 2025, 07:00". */
export function localTime(iso: string, zone: string): string {
  return DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone).toFormat('cccc d LLLL yyyy, HH:mm');
}

/** A <time> element: the words shown, the exact moment (in the reader's zone) on hover and for machines. */
export function timeElement(iso: string, zone: string, words: string): SafeHtml {
  return html`<time datetime="${iso}" title="${localTime(iso, zone)}">${words}</time>`;
}

/** How long until, in words: "in 40 minutes", "in 2 hours"; "soon" for a moment already past or close. */
export function fromNow(iso: string, now: Date): string {
  const minutes = Math.floor((Date.parse(iso) - now.getTime()) / 60_000);
  if (!Number.isFinite(minutes) || minutes < 1) return 'soon';
  for (const [size, unit] of UNITS) {
    if (minutes >= size) {
      const n = Math.floor(minutes / size);
      return `in ${n} ${unit}${n === 1 ? '' : 's'}`;
    }
  }
  return 'soon';
}

/** The end of "Your next digest …": "is due <time> (zone)", or "is not scheduled yet" without a slot. */
export function dueWords(next: { at: Date } | null, zone: string): SafeHtml {
  if (next === null) return html`is not scheduled yet`;
  const iso = next.at.toISOString();
  return html`is due ${timeElement(iso, zone, localTime(iso, zone))} (${zone})`;
}
