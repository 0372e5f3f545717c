/**
 * The feedparser part of npm run conformance: Python feedparser's own test documents, each with its
 * expectation in a comment at the top ("Expect: not bozo and feed['title'] == 'Example'").
 *
 * A case is a document whose expectation is a conjunction of simple equalities on what Tidings models —
 * the feed title, the first entry's title, link, id (guid) and dates — with nothing else in it but
 * "bozo" / "not bozo" (whether feedparser had to read it leniently, not scored). Titles are compared as
 * plain text, links with their host in lower case, dates to the second in UTC. A case passes when all
 * its equalities do.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Feed, FeedItem } from '../src/feeds/parse/parse.js';
import { foldWhitespace, htmlToText } from '../src/lib/text.js';
import type { Check, FileResult } from './conformanceTypes.js';

type Outcome = { feed: Feed } | { error: string };

interface Equality {
  field: string;
  expected: string;
  actual: (feed: Feed) => string;
}

interface Field {
  read: (feed: Feed) => string;
  /** How feedparser's value is normalised: its titles are HTML, Tidings' plain text already. */
  norm: (s: string) => string;
  /** How Tidings' value is; the same as norm unless given. */
  ours?: (s: string) => string;
}

const entry = (feed: Feed): FeedItem | undefined => feed.items[0];
const shown = (value: string | null | undefined): string => value ?? '(null)';

/** What each scored path reads in Tidings' model, and how both sides are normalised. */
const title = (read: (feed: Feed) => string): Field => ({ read, norm: htmlToText, ours: foldWhitespace });
const FIELDS: Readonly<Record<string, Field>> = {
  'feed.title': title((f) => f.title),
  'feed.title_detail.value': title((f) => f.title),
  'entries[0].title': title((f) => shown(entry(f)?.title)),
  'entries[0].title_detail.value': title((f) => shown(entry(f)?.title)),
  'entries[0].link': { read: (f) => shown(entry(f)?.url), norm: lowerHost },
  'entries[0].id': { read: (f) => shown(entry(f)?.id), norm: (s) => s.trim() },
  'entries[0].guid': { read: (f) => shown(entry(f)?.id), norm: (s) => s.trim() },
  'entries[0].published_parsed': { read: (f) => utc(entry(f)?.published), norm: String },
  'entries[0].created_parsed': { read: (f) => utc(entry(f)?.published), norm: String },
  'entries[0].updated_parsed': {
    read: (f) => utc(entry(f)?.updated ?? entry(f)?.published),
    norm: String,
  },
};

function lowerHost(value: string): string {
  try {
    return new URL(value.trim()).href;
  } catch {
    return value.trim();
  }
}

function utc(date: Date | null | undefined): string {
  return date ? date.toISOString().slice(0, 19) : '(null)';
}

/** feedparser's time tuple (year, month, day, hour, minute, second, …) as an ISO date to the second. */
function tupleDate(tuple: string): string | null {
  const parts = tuple.split(',').map((p) => Number(p.trim()));
  if (parts.length < 6 || parts.some((n) => !Number.isInteger(n))) return null;
  const [y = 0, mo = 1, d = 1, h = 0, mi = 0, s = 0] = parts;
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s)).toISOString().slice(0, 19);
}

/** A Python string literal's value: u'…', '…' or "…", with its backslash escapes. */
function pythonString(literal: string): string | null {
  const m = /^u?(['"])([^]*)\1$/.exec(literal);
  if (m === null) return null;
  return (m[2] ?? '').replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_all, esc: string) =>
    esc.length > 1
      ? String.fromCharCode(parseInt(esc.slice(1), 16))
      : (({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[esc] ?? esc),
  );
}

/** Splits "a and b and c" at the top level: not inside quotes or brackets. */
function conjuncts(expression: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i] ?? '';
    if (quote !== null) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (depth === 0 && expression.startsWith(' and ', i)) {
      parts.push(expression.slice(start, i).trim());
      start = i + 5;
      i += 4;
    }
  }
  parts.push(expression.slice(start).trim());
  return parts;
}

/** "feed['title_detail']['value']" or "feed.title" as "feed.title_detail.value". */
function pathOf(lhs: string): string {
  return lhs.replace(/\['([a-z_]+)'\]/g, '.$1').replace(/^entries\[0\]/, 'entries[0]');
}

/** The document's scored equalities, or null when its expectation is not only simple equalities on them. */
export function equalities(expectation: string): Equality[] | null {
  const found: Equality[] = [];
  for (const clause of conjuncts(expectation)) {
    if (clause === 'bozo' || clause === 'not bozo') continue;
    const m = /^([\w[\]'.]+)\s*==\s*([^]+)$/.exec(clause);
    if (m === null) return null;
    const field = pathOf(m[1] ?? '');
    const spec = FIELDS[field];
    if (spec === undefined) return null;
    const rhs = (m[2] ?? '').trim();
    const raw = field.endsWith('_parsed') ? tupleDate(rhs.replace(/^\(|\)$/g, '')) : pythonString(rhs);
    if (raw === null) return null;
    const ours = spec.ours ?? spec.norm;
    found.push({ field, expected: spec.norm(raw), actual: (feed) => ours(spec.read(feed)) });
  }
  return found.length === 0 ? null : found;
}

function documents(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return documents(path);
      return name.endsWith('.xml') ? [path] : [];
    });
}

const EXPECT = /^\s*Expect:\s*(.+?)\s*(?:-->)?\s*$/m;

/**
 * Where feedparser's own test server serves the document (its "http_…_docuri" tests resolve against it),
 * or the Content-Location its "Header:" line sends.
 */
function documentUrl(root: string, path: string, head: string): string {
  const location = /^\s*Header:\s*Content-Location:\s*(\S+)/im.exec(head)?.[1];
  return location ?? `http://127.0.0.1:8097/tests/${relative(root, path)}`;
}

export function runFeedparser(corpora: string, parse: (path: string, url: string) => Outcome): FileResult[] {
  const root = join(corpora, 'feedparser/tests');
  if (!existsSync(root)) return []; // an older copy of the corpora, without feedparser's: nothing to score
  return documents(root).flatMap((path) => {
    const head = readFileSync(path, 'latin1').slice(0, 4096);
    const expectation = EXPECT.exec(head)?.[1];
    const wanted = expectation === undefined ? null : equalities(expectation);
    if (wanted === null) return [];
    const file = relative(corpora, path);
    const group = `feedparser ${relative(root, path).split('/')[0] ?? ''}`;
    const outcome = parse(path, documentUrl(root, path, head));
    const checks: Check[] =
      'error' in outcome
        ? [{ file, field: 'parse', expected: 'a feed', actual: outcome.error, pass: false }]
        : wanted.map(({ field, expected, actual }) => {
            const got = actual(outcome.feed);
            return { file, field, expected, actual: got, pass: got === expected };
          });
    return [{ group, file, checks }];
  });
}
