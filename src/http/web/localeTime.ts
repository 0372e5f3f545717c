import type { Locale, MessageKey, MessageValues } from '../../i18n/locale.js';
import type { SafeHtml } from './html.js';
import { ago, localTime, timeElement } from './time.js';

/** A <time> element in the reader's language: the words shown (the moment in full by default), the moment on hover. */
export const localeTimeElement = (locale: Locale, iso: string, zone: string, words?: string): SafeHtml =>
  timeElement(iso, zone, words ?? localTime(iso, zone, locale), locale);

/** A <time> element saying how long ago (time.ts `ago`), the moment in full on hover. */
export const localeAgoElement = (locale: Locale, iso: string, zone: string, now: Date): SafeHtml =>
  timeElement(iso, zone, ago(iso, now, locale), locale);

/** A message that takes no values (a label), for tables of labels. */
export type LabelKey = { [K in MessageKey]: MessageValues<K> extends [] ? K : never }[MessageKey];
