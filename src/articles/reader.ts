import type { FetchError, FetchResult } from '../fetch/fetch.js';
import { type PageReadList, stopwatch } from '../lib/metrics.js';
import { type PageRow, recordPageFailure, recordPageRead } from '../store/pages.js';
import { type ReaderDeps, readerTime } from './deps.js';
import type { ExtractInput, PageExtract } from './extract.js';
import { fetchPage } from './fetchPage.js';
import { MAX_PAGE_ATTEMPTS, isTemporary, nextAttemptAt } from './retry.js';

export type PageOutcome =
  | { status: 'read'; truncated: boolean }
  /** A temporary failure: the page is tried again later. */
  | { status: 'retry'; message: string }
  /** Given up: a permanent failure, or the last attempt. */
  | { status: 'failed'; message: string }
  /** Another worker took the page over (our lease had expired); nothing was written. */
  | { status: 'lease_lost' };

/**
 * The whole reading of one page that `owner` holds a lease on: fetch → extract (with `extract`: a thread
 * of articles/extractPool.ts) → record. Never throws for anything a page or its server does: that ends as
 * the page's recorded error; a page past a limit of articles/limits.ts fails for good. Each outcome is
 * written in one statement, under the lease, so a crash leaves the page as claimed (retried when the
 * lease expires). `list` only labels the metric: both readers read a page the same way.
 */
export async function readPage(
  deps: ReaderDeps,
  page: PageRow,
  owner: string,
  extract: Extractor,
  list: PageReadList = 'queue',
): Promise<PageOutcome> {
  const elapsed = stopwatch();
  let outcome: PageOutcome | undefined;
  try {
    outcome = await read(deps, page, owner, extract);
    return outcome;
  } finally {
    // Counted once, here; a throw (the database, a bug) is an error, and the page is tried again later.
    deps.metrics?.pageRead(outcome?.status ?? 'error', elapsed(), list);
    if (outcome?.status === 'lease_lost') deps.metrics?.leaseLost('reader');
  }
}

/** Extraction of a fetched page: a thread of articles/extractPool.ts (extractPage in tests of this one). */
export type Extractor = (input: ExtractInput) => PageExtract | Promise<PageExtract>;

async function read(
  deps: ReaderDeps,
  page: PageRow,
  owner: string,
  extract: Extractor,
): Promise<PageOutcome> {
  if (page.attempts > MAX_PAGE_ATTEMPTS) {
    // Claimed more often than a page is tried: earlier attempts never ended (the reader crashed or failed
    // on this page). Given up without another fetch, so that it cannot stop the reader for good.
    return recordFailure(deps, page, owner, {
      message: `reading this page did not finish in ${page.attempts - 1} attempts`,
      temporary: false,
      status: page.http_status,
      retryAfter: null,
    });
  }
  const result = await fetchPage(page.url, deps.fetch);
  if (result.kind !== 'ok') return recordFailure(deps, page, owner, failureOf(result));
  const got = await extract({ body: result.body, contentType: result.contentType, url: result.finalUrl });
  if (got.refused !== null) {
    deps.log.warn(
      { pageId: page.id, url: page.url, reason: got.refused },
      'a saved page is past a reading limit',
    );
    // Past a limit: the same page would be again. Failed for good, with the reason.
    const status = result.status;
    return recordFailure(deps, page, owner, {
      message: got.refused,
      temporary: false,
      status,
      retryAfter: null,
    });
  }
  const recorded = await recordPageRead(deps.store.db, page.id, owner, {
    fetchedAt: readerTime(deps).toISOString(),
    httpStatus: result.status,
    finalUrl: result.finalUrl,
    kind: got.kind,
    title: got.title,
    description: got.description,
    siteName: got.siteName,
    author: got.author,
    publishedAt: got.publishedAt,
    language: got.language,
    direction: got.direction,
    canonicalUrl: got.canonicalUrl,
    image: got.image,
    html: got.html,
    text: got.text,
    wordCount: got.wordCount,
    readingMinutes: got.readingMinutes,
    mediaType: got.mediaType,
    byteLength: got.byteLength,
  });
  return recorded ? { status: 'read', truncated: result.truncated } : { status: 'lease_lost' };
}

/** A fetch that did not answer with a body, as the reader sees it: temporary or not, with its status. */
interface Failure {
  message: string;
  temporary: boolean;
  status: number | null;
  retryAfter: number | null;
}

function failureOf(result: Exclude<FetchResult, { kind: 'ok' }>): Failure {
  switch (result.kind) {
    case 'gone':
      return { message: result.message, temporary: false, status: 410, retryAfter: null };
    case 'not_modified':
      // Tidings sends no validators for pages; a 304 anyway is an answer without a page.
      return {
        message: 'the server answered 304 Not Modified without being asked',
        temporary: false,
        status: 304,
        retryAfter: null,
      };
    case 'error':
      return fromError(result);
  }
}

function fromError(e: FetchError): Failure {
  return {
    message: e.message,
    temporary: isTemporary(e),
    status: e.status ?? null,
    retryAfter: e.retryAfter ?? null,
  };
}

async function recordFailure(
  deps: ReaderDeps,
  page: PageRow,
  owner: string,
  failure: Failure,
): Promise<PageOutcome> {
  const now = readerTime(deps);
  const retry = failure.temporary && page.attempts < MAX_PAGE_ATTEMPTS;
  const next = retry
    ? nextAttemptAt(now, page.attempts, failure.retryAfter, deps.random ?? Math.random)
    : null;
  const error =
    retry || !failure.temporary
      ? failure.message
      : `${failure.message} (gave up after ${page.attempts} attempts)`;
  const recorded = await recordPageFailure(deps.store.db, page.id, owner, {
    fetchedAt: now.toISOString(),
    error,
    httpStatus: failure.status,
    nextAttemptAt: next?.toISOString() ?? null,
  });
  if (!recorded) return { status: 'lease_lost' };
  return retry ? { status: 'retry', message: error } : { status: 'failed', message: error };
}
