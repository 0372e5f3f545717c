import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { MediaSigner } from '../fetch/mediaKey.js';
import type { Metrics } from '../lib/metrics.js';
import type { Store } from '../store/db.js';
import type { EpubBuilds } from './epub/builds.js';
import { type EpubImageSource, epubImageSource } from './epub/images.js';
import { type Mailer, createMailer } from './mail.js';

/** What building and delivering digests needs. */
export interface DigestDeps {
  store: Store;
  log: Logger;
  /** The clock: injected so that tests can stand anywhere in the calendar. */
  now: () => Date;
  /** null when this instance has no SMTP configured: digests are still built, their delivery says so. */
  mailer: Mailer | null;
  /** The From of digest emails; its domain is the Message-IDs'. */
  mailFrom: string | null;
  /** Public base URL (links in digests). */
  baseUrl: string;
  /** How long a claimed account or email stays this worker's. */
  leaseMs: number;
  /** Jitter of delivery retries; Math.random unless a test fixes it. */
  random: () => number;
  /** The largest EPUB attached to an e-reader copy (limits.ts: EREADER_MAX_BYTES unless a test lowers it). */
  ereaderMaxBytes?: number;
  /** Where e-reader copies' EPUBs are made: the process's builds (epub/builds.ts) unless a test gives its own. */
  epubBuilds?: EpubBuilds;
  /** Where builds and emails are counted; nothing is counted without it. */
  metrics?: Metrics | undefined;
  /**
   * How the email writes remote images: the media proxy's signed links (lib/mediaUrl.ts) unless
   * TIDINGS_MEDIA_PROXY=off; without it (tests), linked where they are.
   */
  media?: MediaSigner | undefined;
  /** Where the e-reader copies' EPUBs fetch their images to embed (epub/images.ts); none without it (tests). */
  epubImages?: EpubImageSource | undefined;
}

export const DIGEST_LEASE_MS = 5 * 60_000;

/**
 * Batches of builds, and of emails, in flight at once on PostgreSQL, each on a connection of the pool:
 * accounts do not wait for each other's round trips. SQLite's one connection takes one at a time.
 */
export const DIGEST_LANES = 4;

export function digestDeps(config: Config, store: Store, log: Logger, metrics?: Metrics): DigestDeps {
  return {
    store,
    log,
    metrics,
    now: () => new Date(),
    mailer: createMailer(config),
    mailFrom: config.mailFrom,
    baseUrl: config.baseUrl,
    leaseMs: DIGEST_LEASE_MS,
    random: Math.random,
    media: new MediaSigner(store.db, () => ({ baseUrl: config.baseUrl, proxy: config.mediaProxy })),
    epubImages: epubImageSource(() => ({ allowPrivate: config.allowPrivateNetworks })),
  };
}
