/**
 * Digest quality benchmark: `npm run bench:digest-quality [-- --days N] [--engine sqlite|postgres]
 * [--seed N]` (issue 24, point 8). Simulates N days (10 by default) of a reader with 60 feeds at a real
 * reader's volume (about 165 items a day; ten big stories a day carried by 2 to 4 sites each, under their
 * own URLs and headlines; 4 links saved through the API each morning) through the real pipeline with an
 * injected clock (bench/digest-quality-sim.ts), with the account's default settings, and prints, for days
 * 4 to N, what the reader got, against the issue's targets:
 *
 * - saved links in that day's digest: % of that morning's saves that are entries of that day's e-mail;
 * - age of the e-mail's feed entries, hours from publication to the build (p50, p90);
 * - the three busiest feeds' share of the e-mail's entries;
 * - stories shown more than once (by the scenario's story ids: an entry whose story was an entry of an
 *   earlier e-mail, or earlier in the same one);
 * - backlog change: the queue after the build minus after the day before's;
 * - new feed items on the digest's web pages: % of the items published since the previous digest (and
 *   fetched by this build; those not yet fetched are counted apart) whose link is on its web pages;
 * - entries and the HTML part's bytes per e-mail, as sent (transfer-encoded).
 *
 * An entry is a digest_items row with shown = 1 and story_of null (migration 0025); each entry's link is
 * also looked for in the e-mail's text part (mismatches are printed). Exits 0 when every target is met on
 * every day, 1 when one is missed, 2 when the benchmark itself failed; the per-day figures are also
 * written to .bench/digest-quality-ENGINE.json. The database (a fresh one, dropped after) and the servers
 * are removed whatever happens. See BENCHMARKS.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../src/store/db.js';
import { type DayFigures, figuresOf, percentile } from './digest-quality-measure.js';
import { DAY, makeScenario } from './digest-quality-scenario.js';
import { simulate } from './digest-quality-sim.js';
import { runBench } from './processes.js';
import { fmt, load, log } from './report.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Monday 2 March 2026, 00:00 UTC: day 0 (the simulation's clock; the data's dates follow it). */
const START = Date.UTC(2026, 2, 2);
/** Days before this one are the warm-up: the figures are of days FIRST_DAY to N. */
const FIRST_DAY = 4;
/** Gmail clips a message whose HTML is larger than 102 KB. */
const CLIP_BYTES = 102 * 1024;

interface Options {
  days: number;
  engine: Engine;
  seed: number;
}

function options(argv: readonly string[]): Options {
  const o: Options = { days: 10, engine: 'sqlite', seed: 24 };
  for (let i = 0; i < argv.length; i++) {
    const [name, value] = [argv[i], argv[i + 1]];
    if (name === '--engine' && (value === 'sqlite' || value === 'postgres')) o.engine = value;
    else if ((name === '--days' || name === '--seed') && /^\d{1,4}$/.test(value ?? '')) {
      o[name === '--days' ? 'days' : 'seed'] = Number(value);
    } else throw new Error(`usage: bench/digest-quality.ts [--days N] [--engine sqlite|postgres] [--seed N]`);
    i++;
  }
  if (o.days < FIRST_DAY || o.days > 60) throw new Error(`--days must be ${FIRST_DAY} to 60`);
  return o;
}

const pct = (n: number, of: number): string => (of === 0 ? '–' : `${fmt((100 * n) / of)} %`);
const hours = (h: number): string => (Number.isNaN(h) ? '–' : fmt(h));
const kb = (bytes: number): string => `${fmt(bytes / 1024, 1)} KB`;
const sum = (days: DayFigures[], pick: (d: DayFigures) => number): number =>
  days.reduce((a, d) => a + pick(d), 0);

interface Target {
  what: string;
  /** The figure over the days (as printed) and whether every day met the target. */
  figure: string;
  target: string;
  pass: boolean;
}

function targets(days: DayFigures[]): Target[] {
  const worst = <T>(pick: (d: DayFigures) => T, cmp: (a: T, b: T) => boolean): T | undefined =>
    days.map(pick).reduce<T | undefined>((w, v) => (w === undefined || cmp(v, w) ? v : w), undefined);
  const savedWorst =
    worst(
      (d) => (d.saves === 0 ? 100 : (100 * d.savedInEmail) / d.saves),
      (a, b) => a < b,
    ) ?? 0;
  const p90s = days.map((d) => percentile(d.ages, 90));
  const p90Worst = Math.max(...p90s.map((p) => (Number.isNaN(p) ? 0 : p)));
  const allAges = days.flatMap((d) => d.ages);
  const newAges = days.flatMap((d) => d.arrivedAges);
  const top3Worst =
    worst(
      (d) => d.top3,
      (a, b) => a > b,
    ) ?? 0;
  const repeats = sum(days, (d) => d.repeats);
  const backlogWorst =
    worst(
      (d) => d.backlogChange,
      (a, b) => a > b,
    ) ?? 0;
  const newWorst =
    worst(
      (d) => (d.newItems === 0 ? 100 : (100 * d.newOnWeb) / d.newItems),
      (a, b) => a < b,
    ) ?? 0;
  const entriesWorst =
    worst(
      (d) => d.entries,
      (a, b) => a > b,
    ) ?? 0;
  const htmlWorst =
    worst(
      (d) => d.htmlBytes,
      (a, b) => a > b,
    ) ?? 0;
  return [
    {
      what: "saved links in that day's e-mail",
      figure: `worst day ${fmt(savedWorst)} %; ${sum(days, (d) => d.savedInEmail)} of ${sum(days, (d) => d.saves)} in all`,
      target: '100 %',
      pass: savedWorst >= 100,
    },
    {
      what: 'age of the feed entries shown (hours)',
      figure:
        `p90 worst day ${hours(p90Worst)} h; all days p50 ${hours(percentile(allAges, 50))} h, ` +
        `p90 ${hours(percentile(allAges, 90))} h (of every feed item that arrived since the previous digest: ` +
        `p50 ${hours(percentile(newAges, 50))} h, p90 ${hours(percentile(newAges, 90))} h)`,
      target: 'p90 ≤ 30 h',
      pass: p90Worst <= 30,
    },
    {
      what: "three busiest feeds' share of the entries",
      figure: `worst day ${fmt(top3Worst)} %`,
      target: '≤ 40 %',
      pass: top3Worst <= 40,
    },
    { what: 'stories shown more than once', figure: `${repeats} in all`, target: '0', pass: repeats === 0 },
    {
      what: 'backlog change per day',
      figure: `worst day ${backlogWorst > 0 ? '+' : ''}${backlogWorst}; queue ${days.at(-1)?.queueAfter ?? 0} after the last build`,
      target: '≤ 0',
      pass: backlogWorst <= 0,
    },
    {
      what: "new feed items on that digest's web pages",
      figure: `worst day ${fmt(newWorst)} %; ${pct(
        sum(days, (d) => d.newOnWeb),
        sum(days, (d) => d.newItems),
      )} in all`,
      target: '100 %',
      pass: newWorst >= 100,
    },
    { what: 'entries per e-mail', figure: `most ${entriesWorst}`, target: '≤ 60', pass: entriesWorst <= 60 },
    {
      what: "e-mail's HTML part as sent",
      figure: `largest ${kb(htmlWorst)}`,
      target: `< ${kb(CLIP_BYTES)}`,
      pass: htmlWorst < CLIP_BYTES,
    },
  ];
}

function table(days: DayFigures[]): void {
  log(
    '| day | saved in e-mail | age p50 h | age p90 h | top-3 feeds | repeats | backlog Δ (queue) | ' +
      'new items on web | entries | HTML | items (web pages) | Also in / +N more lines | text mismatches |',
  );
  log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const d of days) {
    log(
      `| ${d.day} | ${pct(d.savedInEmail, d.saves)} | ${hours(percentile(d.ages, 50))} | ` +
        `${hours(percentile(d.ages, 90))} | ${fmt(d.top3)} % | ${d.repeats} | ` +
        `${d.backlogChange > 0 ? '+' : ''}${d.backlogChange} (${d.queueAfter}) | ` +
        `${pct(d.newOnWeb, d.newItems)} (${d.newOnWeb}/${d.newItems}${d.notYetFetched > 0 ? `, ${d.notYetFetched} not yet fetched` : ''}) | ` +
        `${d.entries} | ${kb(d.htmlBytes)} | ${d.items} (${d.webPages}) | ${d.alsoInLines} / ${d.moreLines} | ${d.textMismatches} |`,
    );
  }
}

async function main(): Promise<number> {
  const o = options(process.argv.slice(2));
  log(`Tidings digest quality benchmark, ${new Date().toISOString()}`);
  log(
    `machine: ${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}; ` +
      `load average ${load()}`,
  );
  const scenario = makeScenario(o.seed, o.days, START);
  const items = scenario.feeds.flatMap((f) => f.items);
  const inRun = items.filter((i) => i.published > START && i.published <= START + o.days * DAY);
  const stories = new Set(inRun.filter((i) => i.story !== i.id).map((i) => i.story));
  log(
    `scenario: seed ${o.seed}, ${o.days} days from ${new Date(START).toISOString().slice(0, 10)}, engine ${o.engine}; ` +
      `${scenario.feeds.length} feeds (4 news, 12 daily, 44 blogs), ${fmt(inRun.length / o.days)} items a day, ` +
      `${fmt(stories.size / o.days)} big stories a day on 2–4 sites, ${scenario.saves.length / o.days} saves each morning; ` +
      'default settings (digest at 07:00 UTC)\n',
  );
  const result = await simulate(o.engine, scenario, log);
  log(
    `\n${o.days} days simulated in ${fmt(result.seconds)} s: ${fmt(result.polls)} poll passes, ` +
      `${fmt(result.documents)} feed documents served and ${fmt(result.notModified)} 304s\n`,
  );
  const figures = (await figuresOf(scenario, result.captures, result.arrived)).filter(
    (d) => d.day >= FIRST_DAY,
  );
  if (figures.length === 0) throw new Error(`no digest was built on day ${FIRST_DAY} or later`);
  log(`Per day, days ${FIRST_DAY}–${o.days} (${o.engine}):\n`);
  table(figures);
  log(`\nTargets, default settings, days ${FIRST_DAY}–${o.days} (each day must meet its target):\n`);
  let ok = true;
  for (const t of targets(figures)) {
    ok &&= t.pass;
    log(`- ${t.what}: ${t.figure} (target ${t.target}) ${t.pass ? 'PASS' : 'MISS'}`);
  }
  const mismatches = figures.reduce((a, d) => a + d.textMismatches, 0);
  mkdirSync(join(ROOT, '.bench'), { recursive: true });
  const file = join(ROOT, '.bench', `digest-quality-${o.engine}.json`);
  const perDay = figures.map(({ ages, arrivedAges, ...d }) => ({
    ...d,
    ageP50: percentile(ages, 50),
    ageP90: percentile(ages, 90),
    newItemsAgeP90: percentile(arrivedAges, 90),
  }));
  writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), ...o, perDay }, null, 2)}\n`);
  log(`- entries whose link is not in the e-mail's text part: ${mismatches} (checked, not a target)`);
  log(`\nper-day figures written to ${file}`);
  log(`\nload average at the end: ${load()}`);
  log(ok ? '\nAll targets met.' : '\nFAIL: a target was missed.');
  return ok ? 0 : 1;
}

await runBench('bench:digest-quality', main);
