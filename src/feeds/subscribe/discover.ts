import type { RefusalFacts } from '../../errors.js';
import type { NetworkPolicy } from '../../fetch/address.js';
import { decodeFeedBytes } from '../parse/decode.js';
import { formatDuration } from '../../fetch/failure.js';
import type { FetchOk, FetchOptions, FetchResult } from '../../fetch/fetch.js';
import { fetchFeed } from '../fetchFeed.js';
import { feedParser } from '../parse/load.js';
import { type Feed, FeedParseError } from '../parse/model.js';
import { type FeedLink, feedLinks } from './links.js';

export interface DiscoverOptions {
  policy: NetworkPolicy;
  /** The most body bytes to read from each response, the page's and each candidate's; 10 MiB by default. */
  maxBytes?: number;
  /** Timeouts and User-Agent for every request discovery makes. */
  fetchOptions?: Pick<FetchOptions, 'connectTimeoutMs' | 'requestTimeoutMs' | 'userAgent'>;
  /** The whole discovery, every fetch included; DISCOVERY_DEADLINE_MS by default. */
  deadlineMs?: number;
}

/** Discovery may fetch a page, 10 linked feeds and 7 common paths, 30 s each at most: this bounds the whole. */
export const DISCOVERY_DEADLINE_MS = 45_000;

/** The options of one discovery, with the signal its deadline aborts. */
type Run = DiscoverOptions & { signal: AbortSignal };

/** A feed discovery fetched and read. */
export interface FeedCandidate {
  /**
   * The URL to subscribe to: where the redirects led when every one was permanent, else the URL as given or
   * linked (a temporary redirect is followed on each fetch, never stored).
   */
  url: string;
  /** The feed's own title, else the link's title attribute, else the URL. */
  title: string;
  format: Feed['format'];
  feed: Feed;
}

/** No feed: `message` in English (the API's, the CLI's), `facts` for a transport that words it itself. */
export type DiscoveryResult =
  | { kind: 'found'; candidates: FeedCandidate[] }
  | { kind: 'none'; message: string; facts: RefusalFacts }
  | { kind: 'error'; message: string; facts: RefusalFacts };

/** A page may link to many feeds (one per tag, per comment thread); only the first few are fetched. */
export const MAX_LINKED_CANDIDATES = 10;

/** Requests in flight at once while confirming candidates: a few, to be gentle with one small site. */
export const CANDIDATE_CONCURRENCY = 4;

/**
 * Where publishing tools put their feed when the page does not link to it, tried on the page's origin when
 * no linked feed can be read: WordPress and Substack (/feed), Jekyll (/feed.xml), Hugo (/index.xml), Ghost
 * and Tumblr (/rss), and the generic names.
 */
export const COMMON_FEED_PATHS: readonly string[] = [
  '/feed',
  '/rss.xml',
  '/atom.xml',
  '/index.xml',
  '/feed.json',
  '/feed.xml',
  '/rss',
];

/**
 * Finds the feeds behind a URL: the URL itself when it is a feed; else the feeds a web page links to with
 * <link rel="alternate">; else those at COMMON_FEED_PATHS on the page's origin. Every candidate is fetched
 * and parsed before it is offered. Never throws for network or content trouble: `error` when the URL
 * itself cannot be fetched, or nothing was found by the deadline (every fetch still running is then
 * cancelled); `none` (with the reasons) when the URL leads to no feed.
 */
export async function discoverFeeds(input: string, opts: DiscoverOptions): Promise<DiscoveryResult> {
  const url = startUrl(input);
  if (url === null) return badInput(input);
  const deadlineMs = opts.deadlineMs ?? DISCOVERY_DEADLINE_MS;
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    deadline.abort();
  }, deadlineMs);
  try {
    const result = await discover(url, { ...opts, signal: deadline.signal });
    // Feeds confirmed in time are offered; otherwise what was cut short is no answer.
    if (!deadline.signal.aborted || result.kind === 'found') return result;
    return {
      kind: 'error',
      message:
        `looking for a feed at ${url} took longer than ${formatDuration(deadlineMs)}, so Tidings gave up: ` +
        'the site answers too slowly; try again later, or give the address of the feed itself',
      facts: { reason: 'feed_search_slow', url, seconds: Math.ceil(deadlineMs / 1000) },
    };
  } finally {
    clearTimeout(timer);
  }
}

async function discover(url: string, opts: Run): Promise<DiscoveryResult> {
  const page = await fetchFeed(url, fetchOptions(opts));
  if (page.kind !== 'ok') {
    const failure = page.kind === 'error' ? page.code : page.kind;
    const status = page.kind === 'error' ? (page.status ?? 0) : 0;
    const facts: RefusalFacts = { reason: 'feed_unreachable', url, failure, status };
    return { kind: 'error', message: failureWords(page), facts };
  }
  const direct = await readFeed(page);
  if (!(direct instanceof FeedParseError)) return found([candidate(url, page, direct, '')]);

  const html = decodeFeedBytes(page.body, page.contentType ?? undefined).text;
  if (!looksLikeHtml(page.contentType, html)) {
    return {
      kind: 'none',
      message: `${url} is not a feed (${direct.message}), nor a web page linking to one`,
      facts: { reason: 'feed_not_feed', url },
    };
  }
  // Each URL is fetched once: a page may link to itself, or to /feed, which is also a common path.
  const tried = new Set([url, page.finalUrl]);
  const untried = (link: FeedLink): boolean => !tried.has(link.url);

  const links = feedLinks(html, page.finalUrl).filter(untried).slice(0, MAX_LINKED_CANDIDATES);
  for (const link of links) tried.add(link.url);
  const linked = await confirm(links, opts);
  if (linked.candidates.length > 0) return found(linked.candidates);

  const { origin } = new URL(page.finalUrl);
  const guesses = COMMON_FEED_PATHS.map((path) => ({ url: `${origin}${path}`, type: '', title: '' }));
  const guessed = await confirm(guesses.filter(untried), opts);
  if (guessed.candidates.length > 0) return found(guessed.candidates);
  return {
    kind: 'none',
    message: noFeedMessage(url, links.length, linked.misses[0]),
    facts: { reason: 'feed_none_found', url, links: links.length, paths: COMMON_FEED_PATHS.join(', ') },
  };
}

/** "example.com/blog" is taken for https://example.com/blog, as a browser's address bar would. */
function startUrl(input: string): string | null {
  const trimmed = input.trim();
  if (trimmed === '') return null;
  const withScheme = /^[a-z][a-z\d+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  try {
    return new URL(withScheme).href;
  } catch {
    return null;
  }
}

function badInput(input: string): DiscoveryResult {
  const typed = input.trim().slice(0, 200);
  if (typed === '') {
    const message = 'no address given: enter the URL of a feed or of a web page';
    return { kind: 'error', message, facts: { reason: 'feed_address_missing' } };
  }
  const message = `"${typed}" is not a web address`;
  return { kind: 'error', message, facts: { reason: 'feed_address_invalid', typed } };
}

function fetchOptions(opts: Run): FetchOptions {
  return { ...opts.fetchOptions, policy: opts.policy, maxBytes: opts.maxBytes, signal: opts.signal };
}

/** Why a fetch gave no body to read. Discovery never sends validators, so a 304 is the server's mistake. */
function failureWords(result: Exclude<FetchResult, FetchOk>): string {
  if (result.kind !== 'not_modified') return result.message;
  return `${new URL(result.finalUrl).host} answered 304 Not Modified to a request that was not conditional`;
}

async function readFeed(response: FetchOk): Promise<Feed | FeedParseError> {
  const { parseFeed } = await feedParser();
  try {
    return parseFeed(response.body, {
      url: response.finalUrl,
      contentType: response.contentType ?? undefined,
    });
  } catch (err) {
    if (err instanceof FeedParseError) return err;
    throw err;
  }
}

function candidate(requested: string, response: FetchOk, feed: Feed, linkTitle: string): FeedCandidate {
  const url = response.permanentUrl ?? requested;
  return { url, title: feed.title || linkTitle || url, format: feed.format, feed };
}

function found(candidates: FeedCandidate[]): DiscoveryResult {
  return { kind: 'found', candidates };
}

const HTML_TYPE = /^\s*(?:text\/html|application\/xhtml\+xml)\s*(?:;|$)/i;
const HTML_START = /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head)[\s>]/i;

/** By the Content-Type, or by the first element for servers that send HTML as text/plain or as nothing. */
function looksLikeHtml(contentType: string | null, text: string): boolean {
  return HTML_TYPE.test(contentType ?? '') || HTML_START.test(text.slice(0, 4096));
}

interface Miss {
  url: string;
  reason: string;
}

interface Confirmed {
  /** In the order of the links, each URL once. */
  candidates: FeedCandidate[];
  misses: Miss[];
}

/** Fetches and parses each link, a few at a time; keeps those that are feeds. */
async function confirm(links: readonly FeedLink[], opts: Run): Promise<Confirmed> {
  const probes = await mapLimit(links, CANDIDATE_CONCURRENCY, (link) => probe(link, opts));
  const confirmed: Confirmed = { candidates: [], misses: [] };
  for (const result of probes) {
    if (!('feed' in result)) confirmed.misses.push(result);
    // Two links may lead to one feed: /feed and /feed/, say, both redirected permanently to /feed/.
    else if (!confirmed.candidates.some((c) => c.url === result.url)) confirmed.candidates.push(result);
  }
  return confirmed;
}

async function probe(link: FeedLink, opts: Run): Promise<FeedCandidate | Miss> {
  const response = await fetchFeed(link.url, fetchOptions(opts));
  if (response.kind !== 'ok') return { url: link.url, reason: failureWords(response) };
  const feed = await readFeed(response);
  if (feed instanceof FeedParseError) return { url: link.url, reason: feed.message };
  return candidate(link.url, response, feed, link.title);
}

/** `fn` over `items` with at most `limit` calls in flight, the results in the order of the items. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  const queue = items.entries(); // shared by the workers: each takes the next item when it is free
  const worker = async (): Promise<void> => {
    for (const [index, item] of queue) results[index] = await fn(item);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function noFeedMessage(url: string, linkCount: number, firstMiss: Miss | undefined): string {
  const paths = COMMON_FEED_PATHS.join(', ');
  const links =
    linkCount === 0 || firstMiss === undefined
      ? 'the page links to none'
      : `the page links to ${linkCount === 1 ? 'one, which is not' : `${linkCount}, none of them`} a ` +
        `readable feed (${firstMiss.url}: ${firstMiss.reason})`;
  return `no feed found at ${url} (${links}, and none of ${paths} answered with a feed)`;
}
