/**
 * npm run conformance:stories — measures story matching (src/digest/choose/headlines.ts) on headlines
 * that are not Tidings' own: the items of the real feeds in ../shared/corpora/miniflux (news sites, blogs,
 * in English, French, Russian and Urdu), read with Tidings' parser. A feed's items are different stories,
 * so every pair of its headlines that matches is a false match: the script prints how many pairs there
 * were, how many matched, and each match, per file; then the pairs across feeds, where a match may be true
 * (one post in two formats, one story told by two sites). Rarity (headlines.ts rarityOf) is counted over
 * each file's headlines, and over all of them across feeds. It skips cleanly where the corpora are absent.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { headlineOf, rarityOf, sameStory, sharesNames } from '../src/digest/choose/headlines.js';
import { parseFeed } from '../src/feeds/parse/parse.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const corpora = resolve(repoRoot, process.env['TIDINGS_CORPORA'] ?? '../shared/corpora');
const folder = join(corpora, 'miniflux');
if (!existsSync(folder)) {
  console.log(`story matching: skipped, no corpora at ${folder}`);
  process.exit(0);
}

let pairs = 0;
let matched = 0;
const everyHeadline: { file: string; title: string }[] = [];
for (const file of readdirSync(folder)
  .filter((f) => f.endsWith('.xml'))
  .sort()) {
  const feed = parseFeed(readFileSync(join(folder, file)));
  const titles = [...new Set(feed.items.map((i) => i.title).filter((t) => t.trim() !== ''))];
  const headlines = titles.map((t) => headlineOf(t));
  const rare = rarityOf(headlines);
  everyHeadline.push(...titles.map((title) => ({ file, title })));
  let filePairs = 0;
  const matches: string[] = [];
  for (let a = 0; a < titles.length; a++) {
    for (let b = a + 1; b < titles.length; b++) {
      filePairs++;
      const ha = headlines[a];
      const hb = headlines[b];
      if (ha !== undefined && hb !== undefined && (sameStory(ha, hb, rare) || sharesNames(ha, hb, rare)))
        matches.push(`  "${titles[a]}" ~ "${titles[b]}"`);
    }
  }
  pairs += filePairs;
  matched += matches.length;
  console.log(`${file}: ${titles.length} headlines, ${filePairs} pairs, ${matches.length} matched`);
  for (const m of matches) console.log(m);
}
// Across feeds too: the digest joins items of different feeds, so every pair of two files' headlines counts.
const pooled = everyHeadline.map((h) => ({ ...h, headline: headlineOf(h.title) }));
const pooledRare = rarityOf(pooled.map((p) => p.headline));
for (let a = 0; a < pooled.length; a++) {
  for (let b = a + 1; b < pooled.length; b++) {
    const ha = pooled[a];
    const hb = pooled[b];
    if (ha === undefined || hb === undefined || ha.file === hb.file) continue;
    pairs++;
    if (
      sameStory(ha.headline, hb.headline, pooledRare) ||
      sharesNames(ha.headline, hb.headline, pooledRare)
    ) {
      matched++;
      console.log(`  across feeds: "${ha.title}" ~ "${hb.title}"`);
    }
  }
}
const rate = pairs === 0 ? 0 : (matched / pairs) * 100;
console.log(`story matching: ${matched} of ${pairs} pairs of different items matched (${rate.toFixed(3)} %)`);
