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
 * Whether two headlines tell one story (after NewsBlur's rule, issue 24): the same headline once normalised,
 * or at least MIN_SHARED significant words in common that make up at least MIN_OVERLAP of the shorter one's
 * (NewsBlur asks 0.6; 0.5 joined the different wordings of one story in bench:digest-quality with no more
 * false matches among the corpora's real headlines: npm run conformance:stories),
 * each having at least MIN_WORDS; a shorter headline, of MIN_SHARED words or more, only when the two also
 * share a name and are not two numbers of a series (shortEnough, issue 33).
 * A significant word is a word of the headline that is not a stop word of its language, stemmed in that
 * language (Snowball stemmers and stop-word lists from @orama/stemmers and @orama/stopwords). A headline's
 * language is the supported one whose stop words it uses most (English when none): headlines are too
 * short for a statistical guess, and a stop word is what tells them apart.
 */

/** Significant words two headlines must share, at least. */
export const MIN_SHARED = 3;
/**
 * Significant words each headline needs for its words alone to join it (NewsBlur's FUZZY_MIN_WORDS): short
 * templated titles ("Episode 12 show notes", "Episode 13 show notes") share three words without telling one
 * story. A shorter headline needs more (shortEnough).
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
  /** Its names, in lower case and not stemmed: capitalised words and numbers. */
  names: ReadonlySet<string>;
  /** Its names as written together: "Red Dead Redemption 2" is one, "Storm Celine" one, "Quebec" another. */
  entities: readonly (readonly string[])[];
  /** The initials of its runs of capitalised words ("Reserve Bank of Australia": "rba"). */
  acronyms: ReadonlySet<string>;
  /**
   * Its first word when that is a name only by its capital ("Fix …", "Bump …"), lower case; null otherwise.
   * Two headlines that both open with it do not share a name by it (sharesNames).
   */
  initial: string | null;
}

/**
 * Names two headlines must share for a second rule to join them: headlines of one story told by different
 * sites often share little but its names ("Quebec braces as Storm Celine arrives" / "Thousands without
 * power after Celine batters Quebec"). Names join them only where each is rare among the items compared
 * (sharesNames): a name in many headlines that day ("Trump", "Apple") tells no story apart.
 */
export const MIN_SHARED_NAMES = 2;

// A version or a figure with separators is one word ("3.0.1", "185.000"): its parts alone ("0", "1") would
// be names that any two release notes share.
const WORD = /[\p{L}\p{N}]+(?:[.,]\p{N}+)*(?:['’][\p{L}]+)?/gu;
/** Longest headline read: past it a headline is a summary, not a title. */
const MAX_HEADLINE = 400;

/** What keeps two words of a name together: a space, or a hyphen between them ("British-Airways-Kunden"). */
const JOINING = /^(?:\s*|[-‐‑])$/u;

/**
 * The words of a headline without accents (é → e) and possessive endings, as written; and for each word,
 * whether punctuation sets it apart from the one before ("Augsburg: Fujitsu", "Kunden (BA)", "news – Apple"):
 * no name runs across it (issue 33).
 */
function rawWordsOf(title: string): { raw: string[]; apart: boolean[] } {
  const folded = title.slice(0, MAX_HEADLINE).normalize('NFKD').replace(/\p{M}/gu, '');
  const raw: string[] = [];
  const apart: boolean[] = [];
  let end = 0;
  for (const match of folded.matchAll(WORD)) {
    apart.push(raw.length > 0 && !JOINING.test(folded.slice(end, match.index)));
    end = match.index + match[0].length;
    raw.push(match[0].replace(/['’]s$/u, '').replace(/['’]/gu, ''));
  }
  return { raw, apart };
}

/** A name: a capitalised word or acronym ("Quebec", "ISRO"), or one with a digit ("7", "2026"). */
const isName = (word: string): boolean => /^\p{Lu}/u.test(word) || /\p{N}/u.test(word);

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
  const { raw, apart } = rawWordsOf(title);
  const words = raw.map((w) => w.toLowerCase());
  const language = languageOf(words);
  const significant = new Set<string>();
  const names = new Set<string>();
  const entities: string[][] = [];
  let entity: string[] = [];
  words.forEach((w, i) => {
    const name = isName(raw[i] ?? '') && !language.stops.has(w);
    if ((!name || apart[i] === true) && entity.length > 0) {
      entities.push(entity);
      entity = [];
    }
    if (language.stops.has(w)) return;
    // Single letters say nothing; numbers ("2026", "50") often say the most.
    if (w.length < 2 && !/\p{N}/u.test(w)) return;
    significant.add(language.stem(w));
    if (name) {
      names.add(w);
      entity.push(w);
    }
  });
  if (entity.length > 0) entities.push(entity);
  // "Reserve Bank of Australia" is also "RBA": a run of capitalised words gives its initials.
  const acronyms = new Set(acronymsOf(raw, apart, language));
  // A headline's first word is capitalised by its place: "Quebec braces…" names Quebec, "Fix the linter…"
  // names nothing. Kept as a name (the other headline may carry it mid-sentence), but marked.
  const first = raw[0] ?? '';
  const initial =
    /^\p{Lu}\p{Ll}*$/u.test(first) && names.has(first.toLowerCase()) ? first.toLowerCase() : null;
  return { normalised: words.join(' '), words: significant, names, entities, acronyms, initial };
}

/**
 * The initials of each run of two or more capitalised words (stop words inside a run skipped; punctuation
 * ends one), lower case.
 */
function acronymsOf(raw: readonly string[], apart: readonly boolean[], language: Language): string[] {
  const found: string[] = [];
  let run = '';
  const close = (): void => {
    if (run.length >= 3) found.push(run);
    run = '';
  };
  for (const [i, word] of raw.entries()) {
    if (apart[i] === true) close();
    if (/^\p{Lu}\p{Ll}/u.test(word)) run += word.charAt(0).toLowerCase();
    // A run is of three letters or more ("Max Planck" is a name, not "MP").
    else if (!(run !== '' && language.stops.has(word.toLowerCase()))) close();
  }
  close();
  return found;
}

/**
 * Whether two headlines share MIN_SHARED_NAMES names that are each rare: `rare(name)` says whether few of
 * the headlines compared carry it.
 */
export function sharesNames(a: Headline, b: Headline, rare: Rarity): boolean {
  // Entities, not words: "Red Dead Redemption 2" in two headlines is one name shared, not four; an entity
  // matches one of the other headline's that has a rare name of it ("Storm Celine" and "Celine").
  const used = new Set<number>();
  let shared = 0;
  for (const e of a.entities) {
    const match = b.entities.findIndex(
      (f, i) =>
        !used.has(i) &&
        e.some((name) => rare.name(name) && f.includes(name) && !(name === a.initial && name === b.initial)),
    );
    if (match === -1) continue;
    used.add(match);
    if (++shared >= MIN_SHARED_NAMES) return true;
  }
  return false;
}

/** Which words and names are rare among the headlines compared (few carry them): they tell a story apart. */
export interface Rarity {
  word(stem: string): boolean;
  name(name: string): boolean;
}

/** A word or name is rare among a digest's items when at most this many of their headlines carry it… */
export const RARE_ITEMS = 8;
/** …or this share of them, in a larger digest. */
export const RARE_SHARE = 0.02;

/** The rarity of words and names among these headlines (RARE_ITEMS, RARE_SHARE). */
export function rarityOf(headlines: readonly Headline[]): Rarity {
  const carrying = new Map<string, number>();
  const count = (key: string): void => {
    carrying.set(key, (carrying.get(key) ?? 0) + 1);
  };
  for (const h of headlines) {
    for (const w of h.words) count(`w ${w}`);
    for (const n of h.names) count(`n ${n}`);
  }
  const below = Math.max(RARE_ITEMS, RARE_SHARE * headlines.length);
  return {
    word: (stem) => (carrying.get(`w ${stem}`) ?? 0) <= below,
    name: (name) => (carrying.get(`n ${name}`) ?? 0) <= below,
  };
}

/** Every word rare: two headlines compared alone. */
export const ALONE: Rarity = { word: () => true, name: () => true };

/**
 * Whether two headlines tell the same story by their words (the rule above); among many headlines, the
 * words they share must include one that is rare among them (`rare`), so that a day of templated titles
 * ("… bans allotments for summer") is not one story.
 */
export function sameStory(a: Headline, b: Headline, rare: Rarity = ALONE): boolean {
  if (a.normalised !== '' && a.normalised === b.normalised) return true;
  const [small, large] = a.words.size <= b.words.size ? [a.words, b.words] : [b.words, a.words];
  if (small.size < MIN_SHARED || (small.size < MIN_WORDS && !shortEnough(a, b))) return false;
  let shared = 0;
  let rareShared = false;
  for (const w of small) {
    if (!large.has(w)) continue;
    shared++;
    rareShared ||= rare.word(w);
  }
  // An acronym one headline spells out counts as a (rare) word both have.
  const spelledOut = (x: Headline, y: Headline): number =>
    [...x.acronyms].filter((acronym) => y.words.has(acronym) && !x.words.has(acronym)).length;
  const acronyms = spelledOut(a, b) + spelledOut(b, a);
  shared += acronyms;
  rareShared ||= acronyms > 0;
  return rareShared && shared >= MIN_SHARED && shared / small.size >= MIN_OVERLAP;
}

/**
 * Whether a headline of fewer than MIN_WORDS significant words may be joined by its words (issue 33): two
 * outlets' short headlines of one announcement ("Corvane unveils new chip plan" / "Corvane's chip plan:
 * what we know") share three words and the name of who made it. NewsBlur counts "what" and "know" as
 * words (its stop list is some seventy function words), so it compares these two; our stop lists are
 * fuller (180 English words), and the second has four. Short headlines say little, so two of them must
 * also share a name (a capitalised word or a number: who or what the story is about), and must not be two
 * numbers of a series: each with a number the other lacks ("Episode 12 show notes" / "Episode 13 show
 * notes").
 */
function shortEnough(a: Headline, b: Headline): boolean {
  let sharedName = false;
  for (const name of a.names) sharedName ||= b.names.has(name);
  return sharedName && !(numberOnlyIn(a, b) && numberOnlyIn(b, a));
}

/** Whether `h` names a number that `other` does not. */
function numberOnlyIn(h: Headline, other: Headline): boolean {
  for (const name of h.names) if (/\p{N}/u.test(name) && !other.names.has(name)) return true;
  return false;
}
