/**
 * npm run conformance — scores the feed parser (src/feeds/parse.ts) against expectations someone else
 * wrote, read from ../shared/corpora beside the repository (never copied into it):
 *
 * - gofeed's translator tests: each input has a .json twin in gofeed's unified model. Every field the
 *   twin states and Tidings models is one check: feed title, link and feed link; the item count; and
 *   per item title, link, guid, published, updated, authors, content, description and first enclosure.
 *   Fields Tidings does not model (categories, images, language, copyright…) are not scored.
 * - miniflux's files: legacy encodings and large feeds. The corpus has no expectation files, so the
 *   checks are that each parses, has as many items as the document has <item>/<entry> elements, has no
 *   mis-decoded titles, and shows one title read from the file by hand (written out below).
 *
 * It prints field-level and file-level pass rates per format and overall, and the worst mismatches.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Feed, parseFeed } from '../src/feeds/parse/parse.js';
import { foldWhitespace, htmlToText, truncate } from '../src/lib/text.js';
import { SUMMARY_LIMIT } from '../src/feeds/parse/entry.js';
import { runFeedparser } from './conformanceFeedparser.js';
import type { Check, FileResult } from './conformanceTypes.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Beside the repository; TIDINGS_CORPORA names another place (a git worktree has no sibling "shared"). */
const corpora = resolve(repoRoot, process.env['TIDINGS_CORPORA'] ?? '../shared/corpora');

/**
 * Expectations that are gofeed's own behaviour rather than what a feed means; each is left out of the
 * score, with the reason. Keyed by "file field".
 */
const LAST_LINK_REASON =
  'gofeed takes the last of several <link> elements, here an Atom-style <link href> outside the Atom ' +
  "namespace; Tidings takes the first, RSS's own <link>";
const EXCLUDED: Readonly<Record<string, string>> = {
  'gofeed/testdata/translator/rss/feed_item_links_-_rss_channel_item_links.xml item[0].link':
    LAST_LINK_REASON,
  'gofeed/testdata/translator/rss/feed_links_-_rss_channel_links.xml feed.link': LAST_LINK_REASON,
  'gofeed/testdata/translator/rss/feed_links_-_rdf_channel_links.xml feed.link': LAST_LINK_REASON,
  'gofeed/testdata/translator/rss/feed_item_fallbacks_-_rss_channel_item_extensions.xml item[0].updated':
    'gofeed copies dc:date into both published and updated; Tidings reads it as the publication date and ' +
    'leaves updated null, since nothing says the item changed',
  'gofeed/testdata/translator/rss/feed_item_fallbacks_-_rss_channel_item_extensions.xml item[0].authors':
    'dc:author is not a Dublin Core element (DCMES has creator and contributor); feedsmith ignores it',
  'gofeed/testdata/translator/rss/feed_item_category_-_rss_channel_item_custom.xml items.length':
    'the item holds only unknown elements: RSS 2.0 requires a title or a description, and an item with ' +
    'nothing to show or identify is dropped',
};

// ---------------------------------------------------------------- gofeed's unified model

interface GofeedPerson {
  name?: string;
  email?: string;
}

interface GofeedItem {
  title?: string;
  link?: string;
  guid?: string;
  description?: string;
  content?: string;
  publishedParsed?: string;
  updatedParsed?: string;
  authors?: GofeedPerson[];
  enclosures?: { url?: string }[];
}

interface GofeedFeed {
  title?: string;
  link?: string;
  feedLink?: string;
  items?: GofeedItem[];
}

const text = (value: string): string => htmlToText(value);
const summary = (value: string): string => truncate(htmlToText(value), SUMMARY_LIMIT);

function url(value: string): string {
  try {
    return new URL(value.trim()).href;
  } catch {
    return value.trim();
  }
}

function instant(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? `invalid: ${value}` : date.toISOString();
}

function people(persons: GofeedPerson[]): string {
  return persons.map((p) => p.name ?? p.email ?? '').join(', ');
}

/** The translator's pairs: X.xml with X.json for RSS and Atom, X.json with X_expected.json for JSON. */
function gofeedPairs(dir: string): { input: string; twin: string }[] {
  const files = readdirSync(dir).sort();
  return files.flatMap((name) => {
    if (name.endsWith('_expected.json')) return [];
    const twin = name.endsWith('.json')
      ? name.replace(/\.json$/, '_expected.json')
      : name.replace(/\.xml$/, '.json');
    if (twin === name || !files.includes(twin)) return [];
    return [{ input: join(dir, name), twin: join(dir, twin) }];
  });
}

function gofeedChecks(file: string, expected: GofeedFeed, feed: Feed): Check[] {
  const checks: Check[] = [];
  const check = (
    field: string,
    want: string | undefined,
    got: string | null,
    norm: (s: string) => string,
  ) => {
    if (want === undefined) return;
    const e = norm(want);
    const a = got === null ? '(null)' : norm(got);
    checks.push({ file, field, expected: e, actual: a, pass: e === a });
  };
  check('feed.title', expected.title, feed.title, text);
  check('feed.link', expected.link, feed.siteUrl, url);
  check('feed.feedLink', expected.feedLink, feed.feedUrl, url);
  const items = expected.items ?? [];
  check('items.length', String(items.length), String(feed.items.length), String);
  items.forEach((want, i) => {
    const got = feed.items[i];
    const at = (field: string) => `item[${i}].${field}`;
    check(at('title'), want.title, got?.title ?? null, text);
    check(at('link'), want.link, got?.url ?? null, url);
    check(at('guid'), want.guid, got?.id ?? null, (s) => s.trim());
    check(at('published'), want.publishedParsed, got?.published?.toISOString() ?? null, instant);
    check(at('updated'), want.updatedParsed, got?.updated?.toISOString() ?? null, instant);
    check(at('authors'), want.authors && people(want.authors), got?.author ?? null, foldWhitespace);
    check(at('content'), want.content, got?.contentHtml ?? null, text);
    check(at('description'), want.description, got?.summary ?? null, summary);
    check(at('enclosure'), want.enclosures?.[0]?.url, got?.enclosure?.url ?? null, url);
  });
  return checks;
}

function runGofeed(): FileResult[] {
  const root = join(corpora, 'gofeed/testdata/translator');
  return ['rss', 'atom', 'json'].flatMap((format) =>
    gofeedPairs(join(root, format)).map(({ input, twin }) => {
      const file = relative(corpora, input);
      const expected = JSON.parse(readFileSync(twin, 'utf8')) as GofeedFeed;
      const outcome = tryParse(input);
      const checks =
        'error' in outcome
          ? [{ file, field: 'parse', expected: 'a feed', actual: outcome.error, pass: false }]
          : gofeedChecks(file, expected, outcome.feed);
      return { group: `gofeed ${format}`, file, checks };
    }),
  );
}

// ---------------------------------------------------------------- miniflux

/** One title per file, read by hand from the file's bytes in its real encoding. */
const MINIFLUX_TITLES: Readonly<Record<string, string>> = {
  'encoding_ISO-8859-1.xml': 'Machine Learning: Von KI erstelltes Porträt für 432.500 US.Dollar versteigert',
  'encoding_WINDOWS-1251.xml': 'Цитата #17703',
  // No XML declaration and not UTF-8: only the windows-1252 fallback reads it.
  'no_encoding_ISO-8859-1.xml': "La criminalité liée surtout à... l'ennui ?",
  'rdf_UTF8.xml': 'Mega-Deal: IBM übernimmt Red Hat',
  'urdu_UTF8.xml':
    'امریکی عسکری امداد کی بندش کی وجوہات: انڈیا سے جنگ، جوہری پروگرام اور اب دہشت گردوں کی پشت پناہی',
  'small_atom.xml': 'Parse podcast categories',
  'large_atom.xml': 'Using vale with vim',
  'large_rss.xml': 'Using vale with vim',
};

/** U+FFFD, or UTF-8 read as a single-byte charset ("Ã¼", "Ð¦"): signs of a wrong decoding. */
const MISDECODED = /\ufffd|[ÃÂÐÑØÙ][\u0080-\u00bf]/;

function minifluxChecks(file: string, name: string, bytes: Buffer, feed: Feed): Check[] {
  const entries = (bytes.toString('latin1').match(/<(item|entry)[\s>]/g) ?? []).length;
  const titles = feed.items.map((i) => i.title);
  const misdecoded = titles.filter((t) => MISDECODED.test(t));
  const want = MINIFLUX_TITLES[name];
  const checks: Check[] = [
    {
      file,
      field: 'items.length',
      expected: String(entries),
      actual: String(titles.length),
      pass: entries === titles.length,
    },
    {
      file,
      field: 'titles decoded',
      expected: '0 mis-decoded',
      actual: misdecoded[0] ?? '0 mis-decoded',
      pass: misdecoded.length === 0,
    },
  ];
  if (want !== undefined) {
    const found = titles.includes(want);
    checks.push({
      file,
      field: 'known title',
      expected: want,
      actual: found ? want : (titles[0] ?? '(none)'),
      pass: found,
    });
  }
  return checks;
}

function runMiniflux(): { results: FileResult[]; timings: string[] } {
  const dir = join(corpora, 'miniflux');
  const timings: string[] = [];
  const results = readdirSync(dir)
    .filter((name) => name.endsWith('.xml'))
    .sort()
    .map((name) => {
      const input = join(dir, name);
      const file = relative(corpora, input);
      const bytes = readFileSync(input);
      const outcome = tryParse(input);
      if (name.startsWith('large_'))
        timings.push(`${name}: ${timeParse(bytes)} per parse (${bytes.length} bytes)`);
      const checks =
        'error' in outcome
          ? [{ file, field: 'parse', expected: 'a feed', actual: outcome.error, pass: false }]
          : minifluxChecks(file, name, bytes, outcome.feed);
      return { group: 'miniflux', file, checks };
    });
  return { results, timings };
}

/** Mean time of one parse, after a few unmeasured runs so the JIT has compiled the hot paths. */
function timeParse(bytes: Buffer): string {
  const runs = 20;
  for (let i = 0; i < 5; i++) parseFeed(bytes);
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) parseFeed(bytes);
  return `${(Number(process.hrtime.bigint() - start) / 1e6 / runs).toFixed(2)} ms`;
}

// ---------------------------------------------------------------- scoring

function tryParse(path: string, url?: string): { feed: Feed } | { error: string } {
  try {
    return { feed: parseFeed(readFileSync(path), { url }) };
  } catch (err) {
    return { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

function withoutExclusions(results: FileResult[]): { kept: FileResult[]; excluded: string[] } {
  const excluded: string[] = [];
  const kept = results.map((r) => ({
    ...r,
    checks: r.checks.filter((c) => {
      const reason = EXCLUDED[`${c.file} ${c.field}`];
      if (reason !== undefined) excluded.push(`${c.file} ${c.field}: ${reason}`);
      return reason === undefined;
    }),
  }));
  return { kept, excluded };
}

const percent = (n: number, of: number): string => (of === 0 ? '-' : `${((100 * n) / of).toFixed(1)}%`);

function rateLine(label: string, results: FileResult[]): string {
  const checks = results.flatMap((r) => r.checks);
  const passed = checks.filter((c) => c.pass).length;
  const files = results.filter((r) => r.checks.every((c) => c.pass)).length;
  return `${label.padEnd(22)} fields ${String(passed).padStart(4)}/${String(checks.length).padEnd(4)} ${percent(passed, checks.length).padStart(6)}   files ${String(files).padStart(3)}/${String(results.length).padEnd(3)} ${percent(files, results.length).padStart(6)}`;
}

const clip = (s: string): string => (s.length > 100 ? `${s.slice(0, 97)}...` : s);

function main(): void {
  if (!existsSync(corpora)) {
    console.log('skipped: ../shared/corpora not found');
    return;
  }
  const miniflux = runMiniflux();
  const all = [...runGofeed(), ...miniflux.results, ...runFeedparser(corpora, tryParse)];
  const { kept, excluded } = withoutExclusions(all);
  const groups = [...new Set(kept.map((r) => r.group))];
  console.log(
    'Feed parser conformance (a field check passes when the value matches; a file when all its checks do)\n',
  );
  for (const group of groups)
    console.log(
      rateLine(
        group,
        kept.filter((r) => r.group === group),
      ),
    );
  console.log(
    rateLine(
      'feedparser',
      kept.filter((r) => r.group.startsWith('feedparser')),
    ),
    ' <- cases: documents whose expectation is simple equalities (scripts/conformanceFeedparser.ts)',
  );
  console.log(rateLine('overall', kept));
  console.log(rateLine('(all checks)', all), ' <- before the exclusions listed below');
  const failures = kept.flatMap((r) => r.checks.filter((c) => !c.pass));
  if (failures.length > 0) {
    console.log(`\nMismatches (${failures.length}, worst first: files failing most checks):`);
    const perFile = new Map<string, number>();
    for (const f of failures) perFile.set(f.file, (perFile.get(f.file) ?? 0) + 1);
    failures.sort((a, b) => (perFile.get(b.file) ?? 0) - (perFile.get(a.file) ?? 0));
    for (const f of failures.slice(0, 25)) {
      console.log(
        `  ${f.file} ${f.field}\n    expected ${clip(JSON.stringify(f.expected))}\n    actual   ${clip(JSON.stringify(f.actual))}`,
      );
    }
  }
  if (excluded.length > 0)
    console.log(`\nExcluded from the score (${excluded.length}):\n  ${excluded.join('\n  ')}`);
  console.log(`\nThroughput:\n  ${miniflux.timings.join('\n  ')}`);
}

main();
