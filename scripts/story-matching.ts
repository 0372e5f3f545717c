/**
 * npm run conformance:stories — measures story matching (src/digest/choose/headlines.ts) on headlines
 * that are not Tidings' own: the items of the real feeds in ../shared/corpora/miniflux (news sites, blogs,
 * in English, German, French, Russian and Urdu), read with Tidings' parser.
 *
 * - Precision: a feed's items are different stories, so every pair of its headlines that matches is a
 *   false match; across feeds, so is every match that is neither a labelled story (scripts/story-sets.ts)
 *   nor one post in two feeds (the same link).
 * - Recall: of the labelled stories, the pairs of items (different outlets, one event, one day or two)
 *   that match.
 *
 * Rarity (headlines.ts rarityOf) is counted over each file's headlines, and over all of them across feeds.
 * It prints every match and every labelled pair missed, then one line of totals. It skips cleanly where the
 * corpora are absent.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Headline,
  type Rarity,
  headlineOf,
  rarityOf,
  sameStory,
  sharesNames,
} from '../src/digest/choose/headlines.js';
import { parseFeed } from '../src/feeds/parse/parse.js';
import { LABELLED_STORIES } from './story-sets.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const corpora = resolve(repoRoot, process.env['TIDINGS_CORPORA'] ?? '../shared/corpora');
const folder = join(corpora, 'miniflux');
if (!existsSync(folder)) {
  console.log(`story matching: skipped, no corpora at ${folder}`);
  process.exit(0);
}

interface Item {
  file: string;
  index: number;
  title: string;
  url: string | null;
  headline: Headline;
}

const matches = (a: Headline, b: Headline, rare: Rarity): boolean =>
  sameStory(a, b, rare) || sharesNames(a, b, rare);

let pairs = 0;
let within = 0;
const every: Item[] = [];
for (const file of readdirSync(folder)
  .filter((f) => f.endsWith('.xml'))
  .sort()) {
  const feed = parseFeed(readFileSync(join(folder, file)));
  const items = feed.items.map((item, index) => ({ file, index, title: item.title, url: item.url }));
  every.push(...items.map((i) => ({ ...i, headline: headlineOf(i.title) })));
  // Within a feed, one headline each: a feed that repeats a title repeats one story.
  const titles = [...new Set(items.map((i) => i.title).filter((t) => t.trim() !== ''))];
  const headlines = titles.map((t) => headlineOf(t));
  const rare = rarityOf(headlines);
  let filePairs = 0;
  const found: string[] = [];
  for (let a = 0; a < titles.length; a++) {
    for (let b = a + 1; b < titles.length; b++) {
      filePairs++;
      const [ha, hb] = [headlines[a], headlines[b]];
      if (ha !== undefined && hb !== undefined && matches(ha, hb, rare))
        found.push(`  "${titles[a]}" ~ "${titles[b]}"`);
    }
  }
  pairs += filePairs;
  within += found.length;
  console.log(`${file}: ${titles.length} headlines, ${filePairs} pairs, ${found.length} matched`);
  for (const m of found) console.log(m);
}

// Across feeds: the digest joins items of different feeds, so every pair of two files' items counts.
const itemOf = (file: string, index: number): Item => {
  const item = every.find((i) => i.file === file && i.index === index);
  if (item === undefined)
    throw new Error(`scripts/story-sets.ts names ${file} item ${index}, which it lacks`);
  return item;
};
const storyOf = new Map<Item, number>();
LABELLED_STORIES.forEach((story, s) => {
  for (const { file, index } of story.items) storyOf.set(itemOf(file, index), s);
});
const withTitle = every.filter((i) => i.title.trim() !== '');
const pooledRare = rarityOf(withTitle.map((i) => i.headline));
let acrossFalse = 0;
let labelled = 0;
let labelledFound = 0;
let samePost = 0;
let samePostFound = 0;
const missed: string[] = [];
for (let a = 0; a < withTitle.length; a++) {
  for (let b = a + 1; b < withTitle.length; b++) {
    const [x, y] = [withTitle[a], withTitle[b]];
    if (x === undefined || y === undefined || x.file === y.file) continue;
    pairs++;
    const found = matches(x.headline, y.headline, pooledRare);
    const pair = `"${x.title}" ~ "${y.title}"`;
    if (x.url !== null && x.url === y.url) {
      samePost++;
      if (found) samePostFound++;
      else missed.push(`  one post missed: ${pair}`);
    } else if (storyOf.has(x) && storyOf.get(x) === storyOf.get(y)) {
      labelled++;
      if (found) {
        labelledFound++;
        console.log(`  one story (${LABELLED_STORIES[storyOf.get(x) ?? 0]?.story}): ${pair}`);
      } else missed.push(`  missed (${LABELLED_STORIES[storyOf.get(x) ?? 0]?.story}): ${pair}`);
    } else if (found) {
      acrossFalse++;
      console.log(`  FALSE across feeds: ${pair}`);
    }
  }
}
for (const m of missed) console.log(m);
const percent = (n: number, of: number): string => (of === 0 ? '0' : ((n / of) * 100).toFixed(1));
const different = pairs - labelled - samePost;
console.log(
  `story matching: ${within + acrossFalse} false matches in ${different} pairs of different stories ` +
    `(${within} within feeds, ${acrossFalse} across feeds); recall on multi-outlet stories ` +
    `${labelledFound} of ${labelled} pairs (${percent(labelledFound, labelled)} %); ` +
    `one post in two feeds ${samePostFound} of ${samePost}`,
);
