import { readFileSync } from 'node:fs';
import type { Selectable } from 'kysely';
import type { ReaderDeps } from '../articles/deps.js';
import type { Store } from '../store/db.js';
import type { PagesTable } from '../store/schema.js';
import { silentLogger } from './harness.js';

/** The page server of the reader's tests listens here: allowed, while 127.0.0.1 stays refused. */
export const PAGE_TEST_HOST = '127.0.0.2';

/** A fixture page of src/articles/testdata. */
export const pageFixture = (name: string): Buffer =>
  readFileSync(new URL(`../articles/testdata/${name}`, import.meta.url));

/** A clock the test moves: reads `at`, changed by `advance`. */
export function testClock(start = new Date('2026-11-23T08:00:00.000Z')): {
  now: () => Date;
  advance: (ms: number) => void;
} {
  let at = start.getTime();
  return {
    now: () => new Date(at),
    advance: (ms) => {
      at += ms;
    },
  };
}

/** Deps for the page reader with quick timeouts, allowing only PAGE_TEST_HOST among private addresses. */
export function testReaderDeps(
  store: Store,
  overrides: { now?: () => Date; requestTimeoutMs?: number; maxBytes?: number } = {},
): ReaderDeps {
  return {
    store,
    log: silentLogger,
    fetch: {
      policy: { allowPrivate: false, isAllowed: (address) => address === PAGE_TEST_HOST },
      connectTimeoutMs: 2000,
      requestTimeoutMs: overrides.requestTimeoutMs ?? 5000,
      ...(overrides.maxBytes === undefined ? {} : { maxBytes: overrides.maxBytes }),
    },
    random: () => 0.5,
    ...(overrides.now === undefined ? {} : { now: overrides.now }),
  };
}

/** Saves a URL to an account's queue as the API does (one helper for the digest's and the reader's tests). */
export { saveUrl } from './digestPipeline.js';

export type PageRowOf = Selectable<PagesTable>;

/** The page a URL's queue item of this account is linked to; throws when it has none. */
export async function pageOf(store: Store, accountId: number, url: string): Promise<PageRowOf> {
  const row = await store.db
    .selectFrom('queue_items as q')
    .innerJoin('pages as p', 'p.id', 'q.page_id')
    .selectAll('p')
    .where('q.account_id', '=', accountId)
    .where('q.url', '=', url)
    .executeTakeFirst();
  if (row === undefined) throw new Error(`no page linked for ${url}`);
  return row;
}
