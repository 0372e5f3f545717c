import { escapeHtml } from '../lib/escape.js';
import type { Catalogue } from './compiled/en.js';
import { ConfigError } from '../config.js';
import { DEFAULT_LANGUAGE, LANGUAGE_CODES, type Language, catalogueOf, languageOf } from './languages.js';
import { pseudoText } from './pseudo.js';
import { type Runtime, runtimeFor } from './runtime.js';

export type MessageKey = keyof Catalogue;
/** The values a message takes: none, or an object of its placeholders. */
export type MessageValues<K extends MessageKey> =
  Parameters<Catalogue[K]> extends [] ? [] : [Parameters<Catalogue[K]>[0]];

/**
 * One language as a reader sees it: its code and direction for `lang` and `dir`, its messages, and its
 * way of writing numbers, lists, durations and dates (in a given zone). Made once per language
 * (`localeOf`); its Intl formatters are made at first use (ICU's data costs MiBs resident: issue 26).
 */
export class Locale {
  readonly lang: string;
  readonly dir: 'ltr' | 'rtl';
  readonly #language: Language;
  readonly #runtime: Runtime;
  #list: Intl.ListFormat | undefined;
  readonly #times = new Map<string, Intl.DateTimeFormat>();
  readonly #longDates = new Map<string, Intl.DateTimeFormat>();
  readonly #days: { long?: Intl.DateTimeFormat; short?: Intl.DateTimeFormat } = {};

  constructor(language: Language) {
    this.#language = language;
    this.lang = language.code;
    this.dir = language.dir;
    this.#runtime = runtimeFor(language.intl, language.grouping);
  }

  /** A message, as plain text. */
  t<K extends MessageKey>(key: K, ...values: MessageValues<K>): string {
    const message = catalogueOf(this.#language)[key] as (d: unknown, r: Runtime) => string;
    return message(values[0] ?? {}, this.#runtime);
  }

  /**
   * A message as HTML: its own text escaped, each of `html`'s values put in as it is (markup the caller
   * made and escaped: a link), the others escaped. The message stays one sentence whatever goes in it.
   */
  html<K extends MessageKey>(key: K, values: MessageValues<K>[0], html: readonly string[] = []): string {
    // The marks are private-use characters; a value that holds them (a feed's title) loses them first.
    const marked: Record<string, unknown> = Object.fromEntries(
      Object.entries(values as Record<string, unknown>).map(([k, v]) => [
        k,
        typeof v === 'string' ? v.replace(/[\uE000\uE001]/g, '') : v,
      ]),
    );
    const pieces = new Map<string, string>();
    html.forEach((name, i) => {
      const mark = `\uE000${i}\uE001`;
      pieces.set(mark, String(marked[name]));
      marked[name] = mark;
    });
    const message = catalogueOf(this.#language)[key] as (d: unknown, r: Runtime) => string;
    const text = escapeHtml(message(marked, this.#runtime));
    return pieces.size === 0 ? text : text.replace(/\uE000\d+\uE001/g, (m) => pieces.get(m) ?? '');
  }

  number(n: number): string {
    return this.#runtime.number(n);
  }

  /**
   * "a, b, c" in the language's way (English and its pseudo-locale: commas, no "and": the contract lines
   * read it). A conjunction list ("a、b和c", "a وb وc"): Intl's "unit" lists are for measures, and run
   * Chinese names together.
   */
  list(items: readonly string[]): string {
    if (this.#language.code === DEFAULT_LANGUAGE || this.#language.pseudo === true) return items.join(', ');
    this.#list ??= new Intl.ListFormat(this.#language.intl, { type: 'conjunction', style: 'long' });
    return this.#list.format(items);
  }

  /** "6 min read"; null for null (a page without text to time). */
  minRead(minutes: number | null): string | null {
    return minutes === null ? null : this.t('time.minRead', { minutes });
  }

  /** "about 12 minutes". */
  aboutMinutes(minutes: number): string {
    return this.t('time.aboutMinutes', { minutes });
  }

  /** A moment in `timezone`: "Sat 21 Nov, 18:05" in English. */
  time(iso: string, timezone: string): string {
    let format = this.#times.get(timezone);
    if (format === undefined) {
      format = new Intl.DateTimeFormat(this.#language.intl, {
        timeZone: timezone,
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
      this.#times.set(timezone, format);
    }
    return this.#intlText(format.format(new Date(iso)));
  }

  /** The date of a moment in `timezone`, spelled out: "3 June 2025" in English; null when `iso` is none. */
  date(iso: string, timezone: string): string | null {
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) return null;
    return this.#intlText(this.#longDate(timezone).format(ms));
  }

  /** A calendar day (YYYY-MM-DD) as `date` writes it: "12 March 2024"; the string itself when it is not one. */
  calendarDate(localDate: string): string {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(localDate);
    const day = m === null ? null : new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
    if (day === null || Number.isNaN(day.getTime())) return localDate;
    return this.#intlText(this.#longDate('UTC').format(day));
  }

  /** The formatter of `date` in a zone, made once per zone; a zone Intl does not know writes UTC's. */
  #longDate(timezone: string): Intl.DateTimeFormat {
    let format = this.#longDates.get(timezone);
    if (format === undefined) {
      const options = { day: 'numeric', month: 'long', year: 'numeric' } as const;
      try {
        format = new Intl.DateTimeFormat(this.#language.intl, { ...options, timeZone: timezone });
      } catch {
        format = this.#longDate('UTC');
      }
      this.#longDates.set(timezone, format);
    }
    return format;
  }

  /** A calendar day (YYYY-MM-DD, already local) spelled out; the string itself when it is not such a day. */
  day(localDate: string, withYear: boolean): string {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(localDate);
    if (m === null) return localDate;
    const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
    if (Number.isNaN(day.getTime())) return localDate;
    const options: Intl.DateTimeFormatOptions = {
      timeZone: 'UTC',
      weekday: 'long',
      day: 'numeric',
      month: 'long',
    };
    const format = withYear
      ? (this.#days.long ??= new Intl.DateTimeFormat(this.#language.intl, { ...options, year: 'numeric' }))
      : (this.#days.short ??= new Intl.DateTimeFormat(this.#language.intl, options));
    const text = format.format(day);
    // English as it always was: "Sunday 22 November 2026", without en-GB's comma after the weekday.
    return this.#intlText(this.#language.intl === 'en-GB' ? text.replace(',', '') : text);
  }

  /**
   * Text that opens a heading or a title, its first letter a capital as the language writes one: Intl's
   * French, Spanish and Italian days are lower case ("dimanche 22 novembre" → "Dimanche 22 novembre").
   */
  capitalized(text: string): string {
    const first = text.codePointAt(0);
    if (first === undefined) return text;
    const letter = String.fromCodePoint(first);
    return letter.toLocaleUpperCase(this.#language.intl) + text.slice(letter.length);
  }

  #intlText(text: string): string {
    return this.#language.pseudo === true ? pseudoText(text) : text;
  }
}

const locales = new Map<string, Locale>();
let operatorLanguage: string = DEFAULT_LANGUAGE;

/**
 * TIDINGS_LANGUAGE, set once by the process at start (src/cli/context.ts, serve, worker): the language of
 * accounts that chose none. English until then (tests).
 */
export function setOperatorLanguage(code: string): void {
  const language = languageOf(code);
  if (language === undefined) {
    const codes = LANGUAGE_CODES.filter((c) => c !== 'en-XA').join(', ');
    throw new ConfigError([
      {
        variable: 'TIDINGS_LANGUAGE',
        message: `"${code}" is not a language Tidings speaks: one of ${codes}`,
        facts: { reason: 'language_unknown', typed: code, codes },
      },
    ]);
  }
  operatorLanguage = language.code;
}

/**
 * The Locale of a language code (an account's); null or undefined: the operator's default; English for a
 * code Tidings does not speak.
 */
export function localeOf(code: string | null | undefined): Locale {
  const language = languageOf(code ?? operatorLanguage) ?? englishLanguage();
  let locale = locales.get(language.code);
  if (locale === undefined) {
    locale = new Locale(language);
    locales.set(language.code, locale);
  }
  return locale;
}

function englishLanguage(): Language {
  const en = languageOf(DEFAULT_LANGUAGE);
  if (en === undefined) throw new Error('English has no catalogue');
  return en;
}

/** English: the contract language, and what English-only callers (the web pages, for now) write in. */
export const ENGLISH = localeOf(DEFAULT_LANGUAGE);
