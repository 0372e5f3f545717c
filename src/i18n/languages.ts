import type { Catalogue } from './compiled/en.js';
import { messages as en } from './compiled/en.js';
import { messages as enXA } from './compiled/en-XA.js';
import { messages as ar } from './compiled/ar.js';
import { messages as de } from './compiled/de.js';
import { messages as es } from './compiled/es.js';
import { messages as fr } from './compiled/fr.js';
import { messages as it } from './compiled/it.js';
import { messages as nl } from './compiled/nl.js';
import { messages as pl } from './compiled/pl.js';
import { messages as ptBR } from './compiled/pt-BR.js';

/**
 * The languages Tidings speaks: each a catalogue (src/i18n/messages/CODE.json, compiled by `npm run
 * i18n:compile`) and how its text runs and its dates and numbers are written. docs/translating.md says how
 * to add one.
 */
export interface Language {
  /** BCP 47, as stored in accounts.language and given to `--language`. */
  code: string;
  /** The language's name in itself, for a chooser. */
  name: string;
  dir: 'ltr' | 'rtl';
  /** The locale Intl formats its dates, numbers and plurals with. */
  intl: string;
  /** Thousands separators in numbers, where the locale puts them (Spanish from five digits on). */
  grouping: boolean;
  messages: Catalogue;
  /** en-XA: Intl's output (month and day names) is made pseudo too, so no English word is left. */
  pseudo?: boolean;
}

export const LANGUAGES: readonly Language[] = [
  // English's dates are British ("Sunday 22 November"), and its numbers unseparated ("10000 links"),
  // as they were before the catalogues: the contract lines and tests read them byte for byte.
  { code: 'en', name: 'English', dir: 'ltr', intl: 'en-GB', grouping: false, messages: en },
  // Right to left; Intl writes its digits as the locale asks (Arabic-Indic for "ar").
  { code: 'ar', name: 'العربية', dir: 'rtl', intl: 'ar', grouping: true, messages: ar },
  // "Sonntag, 22. November 2026", "12.345 Links".
  { code: 'de', name: 'Deutsch', dir: 'ltr', intl: 'de', grouping: true, messages: de },
  // "domingo, 22 de noviembre de 2026"; four digits stay whole, as the RAE writes: "1234", "12.345".
  { code: 'es', name: 'Español', dir: 'ltr', intl: 'es', grouping: true, messages: es },
  // "dimanche 22 novembre 2026", "12 345 liens" (a narrow no-break space between thousands).
  { code: 'fr', name: 'Français', dir: 'ltr', intl: 'fr', grouping: true, messages: fr },
  // "domenica 22 novembre 2026", "12.345 link" (and "1234": ICU's Italian groups from five digits).
  { code: 'it', name: 'Italiano', dir: 'ltr', intl: 'it', grouping: true, messages: it },
  // "10.000 links", "domingo, 22 de novembro de 2026"; 0 and 1 are both singular in CLDR's pt.
  { code: 'pt-BR', name: 'Português (Brasil)', dir: 'ltr', intl: 'pt-BR', grouping: true, messages: ptBR },
  // "10.000 links", "zondag 22 november 2026".
  { code: 'nl', name: 'Nederlands', dir: 'ltr', intl: 'nl', grouping: true, messages: nl },
  // "10 000 linków" (a no-break space, and none in four digits: "1000"), "niedziela, 22 listopada 2026".
  { code: 'pl', name: 'Polski', dir: 'ltr', intl: 'pl', grouping: true, messages: pl },
  {
    code: 'en-XA',
    name: 'Ƥŝéûðö (en-XA)',
    dir: 'ltr',
    intl: 'en-GB',
    grouping: false,
    messages: enXA,
    pseudo: true,
  },
];

export const DEFAULT_LANGUAGE = 'en';

/** The codes, for a message that lists them. */
export const LANGUAGE_CODES: readonly string[] = LANGUAGES.map((l) => l.code);

/**
 * The language a code names: exact (case aside), else its primary language ("de-AT" → "de"); undefined
 * when Tidings does not speak it.
 */
export function languageOf(code: string): Language | undefined {
  const wanted = code.trim().toLowerCase().replace(/_/g, '-');
  if (wanted === '' || wanted.length > 35) return undefined;
  const exact = LANGUAGES.find((l) => l.code.toLowerCase() === wanted);
  if (exact !== undefined) return exact;
  const primary = wanted.split('-')[0];
  return LANGUAGES.find((l) => l.code.toLowerCase() === primary);
}
