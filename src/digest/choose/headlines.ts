import { stemmer as danishStem } from '@orama/stemmers/danish';
import { stemmer as dutchStem } from '@orama/stemmers/dutch';
import { stemmer as englishStem } from '@orama/stemmers/english';
import { stemmer as finnishStem } from '@orama/stemmers/finnish';
import { stemmer as frenchStem } from '@orama/stemmers/french';
import { stemmer as germanStem } from '@orama/stemmers/german';
import { stemmer as italianStem } from '@orama/stemmers/italian';
import { stemmer as norwegianStem } from '@orama/stemmers/norwegian';
import { stemmer as portugueseStem } from '@orama/stemmers/portuguese';
import { stemmer as russianStem } from '@orama/stemmers/russian';
import { stemmer as spanishStem } from '@orama/stemmers/spanish';
import { stemmer as swedishStem } from '@orama/stemmers/swedish';
import { stopwords as danishStops } from '@orama/stopwords/danish';
import { stopwords as dutchStops } from '@orama/stopwords/dutch';
import { stopwords as englishStops } from '@orama/stopwords/english';
import { stopwords as finnishStops } from '@orama/stopwords/finnish';
import { stopwords as frenchStops } from '@orama/stopwords/french';
import { stopwords as germanStops } from '@orama/stopwords/german';
import { stopwords as italianStops } from '@orama/stopwords/italian';
import { stopwords as norwegianStops } from '@orama/stopwords/norwegian';
import { stopwords as portugueseStops } from '@orama/stopwords/portuguese';
import { stopwords as russianStops } from '@orama/stopwords/russian';
import { stopwords as spanishStops } from '@orama/stopwords/spanish';
import { stopwords as swedishStops } from '@orama/stopwords/swedish';

/*
 * Whether two headlines tell one story (NewsBlur's rule, issue 24): the same headline once normalised, or
 * at least MIN_SHARED significant words in common that make up at least MIN_OVERLAP of the shorter one's,
 * each having at least MIN_WORDS.
 * A significant word is a word of the headline that is not a stop word of its language, stemmed in that
 * language (Snowball stemmers and stop-word lists from @orama/stemmers and @orama/stopwords). A headline's
 * language is the supported one whose stop words it uses most (English when none): headlines are too
 * short for a statistical guess, and a stop word is what tells them apart.
 */

/** Significant words two headlines must share, at least. */
export const MIN_SHARED = 3;
/**
 * Significant words each headline needs for its words to be compared (NewsBlur's FUZZY_MIN_WORDS): short
 * templated titles ("Episode 12 notes", "Quiet 3 post 1") share three words without telling one story.
 */
export const MIN_WORDS = 5;
/** Of the shorter headline's significant words, the share that must be in the other. */
export const MIN_OVERLAP = 0.6;

interface Language {
  name: string;
  stops: ReadonlySet<string>;
  stem: (word: string) => string;
}

const LANGUAGES: readonly Language[] = [
  ['english', englishStops, englishStem],
  ['german', germanStops, germanStem],
  ['french', frenchStops, frenchStem],
  ['spanish', spanishStops, spanishStem],
  ['italian', italianStops, italianStem],
  ['portuguese', portugueseStops, portugueseStem],
  ['dutch', dutchStops, dutchStem],
  ['swedish', swedishStops, swedishStem],
  ['danish', danishStops, danishStem],
  ['norwegian', norwegianStops, norwegianStem],
  ['finnish', finnishStops, finnishStem],
  ['russian', russianStops, russianStem],
].map(([name, stops, stem]) => ({
  name: name as string,
  stops: new Set(stops as string[]),
  stem: stem as (word: string) => string,
}));

/** What story matching keeps of a headline. */
export interface Headline {
  /** Lower case, accents and punctuation gone, words joined by one space. */
  normalised: string;
  /** Its significant words, stemmed. */
  words: ReadonlySet<string>;
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;
/** Longest headline read: past it a headline is a summary, not a title. */
const MAX_HEADLINE = 400;

/** The words of a headline in lower case, without accents (é → e) and possessive endings. */
function wordsOf(title: string): string[] {
  const folded = title.slice(0, MAX_HEADLINE).normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  return (folded.match(WORD) ?? []).map((w) => w.replace(/['’]s$/u, '').replace(/['’]/gu, ''));
}

function languageOf(words: readonly string[]): Language {
  let best = LANGUAGES[0] as Language;
  let bestHits = 0;
  for (const language of LANGUAGES) {
    let hits = 0;
    for (const w of words) if (language.stops.has(w)) hits++;
    if (hits > bestHits) {
      best = language;
      bestHits = hits;
    }
  }
  return best;
}

/** A headline as story matching reads it. */
export function headlineOf(title: string): Headline {
  const words = wordsOf(title);
  const language = languageOf(words);
  const significant = new Set<string>();
  for (const w of words) {
    if (language.stops.has(w)) continue;
    // Single letters say nothing; numbers ("2026", "50") often say the most.
    if (w.length < 2 && !/\p{N}/u.test(w)) continue;
    significant.add(language.stem(w));
  }
  return { normalised: words.join(' '), words: significant };
}

/** Whether two headlines tell the same story, by the rule above. */
export function sameStory(a: Headline, b: Headline): boolean {
  if (a.normalised !== '' && a.normalised === b.normalised) return true;
  const [small, large] = a.words.size <= b.words.size ? [a.words, b.words] : [b.words, a.words];
  if (small.size < MIN_WORDS) return false;
  let shared = 0;
  for (const w of small) if (large.has(w)) shared++;
  return shared >= MIN_SHARED && shared / small.size >= MIN_OVERLAP;
}
