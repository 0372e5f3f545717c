/**
 * The synthetic text of bench/search.ts: Zipf-distributed vocabularies of Latin-looking words, of Chinese/
 * Japanese words (2 to 4 characters, written without spaces) and of Thai words (3 to 6 code points,
 * without spaces between words), all drawn from one seeded generator so that every run writes the same
 * corpus.
 */

/** mulberry32: the same corpus every run. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
export const random = prng(13);
export const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

/** A word of `list` drawn with Zipf frequencies (s = 1): rank r is drawn in proportion to 1 / (r + 1). */
function zipf(list: readonly string[]): () => string {
  let sum = 0;
  const cumulative = list.map((_, r) => (sum += 1 / (r + 1)));
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] ?? 0) < x) lo = mid + 1;
      else hi = mid;
    }
    return list[lo] ?? '';
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'su',
  'ta',
  'ri',
  'vo',
  'de',
  'pa',
  'go',
  'zu',
  'shi',
  'ber',
  'tan',
];
/** 50,000 Latin-looking words, rank 0 the most frequent. */
export const latinWords = Array.from({ length: 50_000 }, (_, i) => {
  let w = '';
  for (let n = i + SYLLABLES.length; n > 0; n = Math.floor(n / SYLLABLES.length)) {
    w += SYLLABLES[n % SYLLABLES.length] ?? '';
  }
  return w;
});
const latinWord = zipf(latinWords);
export const latinSentence = (n: number): string => Array.from({ length: n }, latinWord).join(' ');

/** 300 kanji spread over the CJK block (東 and 京 among them) and the 40 first hiragana and katakana. */
export const cjkCharacters = [
  ...Array.from({ length: 298 }, (_, k) => String.fromCodePoint(0x4e00 + k * 69)),
  '東',
  '京',
  ...Array.from({ length: 40 }, (_, k) => String.fromCodePoint(0x3042 + k)),
  ...Array.from({ length: 40 }, (_, k) => String.fromCodePoint(0x30a2 + k)),
];
/** The query of the benchmark before the trigram index, kept so that runs compare: a word of rank 100. */
export const TOKYO = '東京';
/** 5,000 words of 2, 3 or 4 characters; TOKYO is rank 100 (in about 3,500 items of 100,000). */
export const cjkWords = Array.from({ length: 5_000 }, (_, i) =>
  i === 100 ? TOKYO : Array.from({ length: 2 + (i % 3) }, () => pick(cjkCharacters)).join(''),
);
const cjkWord = zipf(cjkWords);
export const cjkSentence = (n: number): string => Array.from({ length: n }, cjkWord).join('');

const THAI_CONSONANTS = Array.from({ length: 46 }, (_, k) => String.fromCodePoint(0x0e01 + k));
const THAI_VOWELS = ['ะ', 'า', 'ิ', 'ี', 'ุ', 'ู', 'เ', 'แ', 'โ', 'ไ'];
const THAI_TONES = ['', '่', '้', ''];
/** 2,000 syllable pairs and triples of 3 to 6 code points. */
export const thaiWords = Array.from({ length: 2_000 }, (_, i) =>
  Array.from(
    { length: 1 + (i % 2) },
    () => pick(THAI_CONSONANTS) + pick(THAI_VOWELS) + pick(THAI_TONES) + pick(THAI_CONSONANTS),
  ).join(''),
);
const thaiWord = zipf(thaiWords);
/** Thai words run together, with a space between phrases of five. */
export const thaiSentence = (n: number): string =>
  Array.from({ length: n }, (_, i) => thaiWord() + (i % 5 === 4 ? ' ' : ''))
    .join('')
    .trim();
