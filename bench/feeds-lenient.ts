/**
 * npm run bench:lenient — what the recovering parse (src/feeds/parse/lenient.ts) costs. The same RSS
 * document of 50 items is parsed well-formed (the strict path only) and broken (`&nbsp;` in every title,
 * bare `&` in every link, the last tag cut short: the strict parse fails, then the lenient one runs).
 * Reported as the ratio of the broken document's parse time to the well-formed one's, the median of
 * interleaved rounds, so that the machine's noise hits both alike. No bar: the lenient path runs only for
 * documents the strict parse refuses, which were refused outright before.
 */
import { parseFeed } from '../src/feeds/parse/parse.js';

const ROUNDS = 15;
const RUNS = 40;

function document(broken: boolean): Buffer {
  const space = broken ? '&nbsp;' : '&#160;';
  const amp = broken ? '&' : '&amp;';
  const items = Array.from(
    { length: 50 },
    (_, i) =>
      `<item><title>Story${space}number ${i}</title><link>https://bench.example/${i}?a=1${amp}b=2</link>` +
      `<guid>https://bench.example/${i}</guid><pubDate>Tue, 01 Jul 2025 10:00:00 GMT</pubDate>` +
      `<description>${'A paragraph of the story, escaped &lt;p&gt; as feeds do. '.repeat(20)}</description></item>`,
  );
  const end = broken ? '</channel></rss' : '</channel></rss>';
  return Buffer.from(
    `<?xml version="1.0"?><rss version="2.0"><channel><title>Bench</title>${items.join('')}${end}`,
  );
}

function msPerParse(bytes: Buffer): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < RUNS; i++) parseFeed(bytes);
  return Number(process.hrtime.bigint() - start) / 1e6 / RUNS;
}

const strict = document(false);
const broken = document(true);
if (parseFeed(strict).lenient || !parseFeed(broken).lenient)
  throw new Error('the documents are not as meant');
for (let i = 0; i < 10; i++) {
  parseFeed(strict);
  parseFeed(broken);
}
const ratios: number[] = [];
const times: [number, number][] = [];
for (let round = 0; round < ROUNDS; round++) {
  const s = msPerParse(strict);
  const b = msPerParse(broken);
  times.push([s, b]);
  ratios.push(b / s);
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
console.log(
  `document: ${strict.length} bytes well-formed, ${broken.length} bytes broken; ${ROUNDS} rounds of ${RUNS} parses`,
);
console.log(`well-formed (strict only): median ${median(times.map((t) => t[0])).toFixed(2)} ms per parse`);
console.log(
  `broken (strict fails, then lenient): median ${median(times.map((t) => t[1])).toFixed(2)} ms per parse`,
);
console.log(
  `broken / well-formed: median ratio ${median(ratios).toFixed(2)} (rounds: ${ratios.map((r) => r.toFixed(2)).join(' ')})`,
);
