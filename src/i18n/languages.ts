import { createRequire } from 'node:module';
import type { Catalogue } from './compiled/en.js';
import { load as en } from './compiled/en.js';

/**
 * Every other language's compiled catalogue, read from its own file at its first use (Node ≥ 20.19
 * requires an ES module synchronously): a serve that speaks only English never holds the other ten's
 * source text, 1.8 MiB of heap at idle (issue 36). `npm run build` puts a copy of the files beside the
 * bundle (scripts/bundle.mjs), where this same relative path finds them.
 */
const requireHere = createRequire(import.meta.url);
function compiled(file: string): () => Catalogue {
  return () => (requireHere(`./compiled/${file}.js`) as { load: () => Catalogue }).load();
}

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
  /**
   * Other tags that name this language exactly, as browsers send them ("zh-CN" for "zh-Hans"); matched
   * case aside, in `languageOf` and in Accept-Language.
   */
  also?: readonly string[];
  /** Its messages, made at the first call (catalogueOf keeps them): a language never spoken costs nothing. */
  load: () => Catalogue;
  /** en-XA: Intl's output (month and day names) is made pseudo too, so no English word is left. */
  pseudo?: boolean;
}

export const LANGUAGES: readonly Language[] = [
  // English's dates are British ("Sunday 22 November"), and its numbers unseparated ("10000 links"),
  // as they were before the catalogues: the contract lines and tests read them byte for byte.
  { code: 'en', name: 'English', dir: 'ltr', intl: 'en-GB', grouping: false, load: en },
  // Right to left; Intl writes its digits as the locale asks: "ar" has Western digits in Node 20's ICU
  // (CLDR 47: 12,345 and 28 نوفمبر 2026); "ar-EG" or "ar-SA" would write Arabic-Indic ones (١٢٬٣٤٥).
  { code: 'ar', name: 'العربية', dir: 'rtl', intl: 'ar', grouping: true, load: compiled('ar') },
  // "Sonntag, 22. November 2026", "12.345 Links".
  { code: 'de', name: 'Deutsch', dir: 'ltr', intl: 'de', grouping: true, load: compiled('de') },
  // "domingo, 22 de noviembre de 2026"; four digits stay whole, as the RAE writes: "1234", "12.345".
  { code: 'es', name: 'Español', dir: 'ltr', intl: 'es', grouping: true, load: compiled('es') },
  // "dimanche 22 novembre 2026", "12 345 liens" (a narrow no-break space between thousands).
  { code: 'fr', name: 'Français', dir: 'ltr', intl: 'fr', grouping: true, load: compiled('fr') },
  // "domenica 22 novembre 2026", "12.345 link" (and "1234": ICU's Italian groups from five digits).
  { code: 'it', name: 'Italiano', dir: 'ltr', intl: 'it', grouping: true, load: compiled('it') },
  // Japanese and Chinese: "2026年11月28日土曜日", "11月28日周六 18:05"; numbers 12,345.
  { code: 'ja', name: '日本語', dir: 'ltr', intl: 'ja', grouping: true, load: compiled('ja') },
  // Simplified Chinese, as mainland China and Singapore write it; Traditional (zh-TW, zh-HK, zh-Hant) is
  // another language, not offered for it.
  {
    code: 'zh-Hans',
    name: '简体中文',
    dir: 'ltr',
    intl: 'zh-Hans',
    grouping: true,
    load: compiled('zh-Hans'),
    also: ['zh', 'zh-CN', 'zh-SG', 'zh-MY', 'zh-Hans-CN', 'zh-Hans-SG', 'zh-Hans-MY'],
  },
  // "10.000 links", "domingo, 22 de novembro de 2026"; 0 and 1 are both singular in CLDR's pt. A plain
  // "pt" is this one too (the only Portuguese Tidings speaks); "pt-PT" is not: European Portuguese differs.
  {
    code: 'pt-BR',
    name: 'Português (Brasil)',
    dir: 'ltr',
    intl: 'pt-BR',
    grouping: true,
    load: compiled('pt-BR'),
    also: ['pt'],
  },
  // "10.000 links", "zondag 22 november 2026".
  { code: 'nl', name: 'Nederlands', dir: 'ltr', intl: 'nl', grouping: true, load: compiled('nl') },
  // "10 000 linków" (a no-break space, and none in four digits: "1000"), "niedziela, 22 listopada 2026".
  { code: 'pl', name: 'Polski', dir: 'ltr', intl: 'pl', grouping: true, load: compiled('pl') },
  {
    code: 'en-XA',
    name: 'Ƥŝéûðö (en-XA)',
    dir: 'ltr',
    intl: 'en-GB',
    grouping: false,
    load: compiled('en-XA'),
    pseudo: true,
  },
];

export const DEFAULT_LANGUAGE = 'en';

const loaded = new Map<string, Catalogue>();

/** A language's messages, made once, when first asked for. */
export function catalogueOf(language: Language): Catalogue {
  let messages = loaded.get(language.code);
  if (messages === undefined) {
    messages = language.load();
    loaded.set(language.code, messages);
  }
  return messages;
}

/** The codes, for a message that lists them. */
export const LANGUAGE_CODES: readonly string[] = LANGUAGES.map((l) => l.code);

/**
 * The codes and the other tags (`also`) Tidings answers to, for Accept-Language. A bare "zh" is left out:
 * Negotiator would match a browser's "zh-TW" to it (a browser's plain "zh" still matches "zh-CN").
 */
export const LANGUAGE_TAGS: readonly string[] = LANGUAGES.flatMap((l) => [
  l.code,
  ...(l.also ?? []).filter((tag) => tag.includes('-')),
]);

/**
 * The language a code names: exact (case aside, its code or one of its `also`), else the code it narrows
 * ("de-AT" → "de", "zh-Hans-HK" → "zh-Hans"); undefined when Tidings does not speak it ("zh-TW": no
 * language's code is "zh").
 */
export function languageOf(code: string): Language | undefined {
  const wanted = code.trim().toLowerCase().replace(/_/g, '-');
  if (wanted === '' || wanted.length > 35) return undefined;
  const exact = LANGUAGES.find(
    (l) => l.code.toLowerCase() === wanted || (l.also ?? []).some((a) => a.toLowerCase() === wanted),
  );
  if (exact !== undefined) return exact;
  const subtags = wanted.split('-');
  for (let n = subtags.length - 1; n > 0; n--) {
    const shorter = subtags.slice(0, n).join('-');
    const language = LANGUAGES.find((l) => l.code.toLowerCase() === shorter);
    if (language !== undefined) return language;
  }
  return undefined;
}
