import { availableParallelism } from 'node:os';
import * as z from 'zod';
import {
  type InboundImapConfig,
  type InboundSmtpConfig,
  inboundFields,
  inboundWays,
} from './configInbound.js';
import { ConfigError, EXPECTED, problemOf } from './configProblems.js';
import { type TrustProxy, trustProxyFromEnv } from './configProxy.js';
import { isEmailAddress, parseMailbox } from './lib/email.js';

export { ConfigError } from './configProblems.js';
export type { TrustProxy } from './configProxy.js';

export type { InboundImapConfig, InboundSmtpConfig } from './configInbound.js';

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], {
    error: EXPECTED.boolean,
  })
  .transform((v) => v === 'true' || v === '1' || v === 'yes' || v === 'on');

/**
 * TIDINGS_PUBLISH, as the compose files (deploy/) publish the container's port: `[HOST:]PORT` on the host,
 * as `docker run -p HOST:PORT:8080` takes it. Tidings only uses it for its default TIDINGS_BASE_URL.
 */
const publishFromEnv = z.string().transform((raw, ctx): { host: string; port: number } => {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):)?(\d{1,5})$/.exec(raw.trim());
  const port = Number(m?.[2]);
  if (m === null || port < 1 || port > 65535) {
    ctx.addIssue({ code: 'custom', message: EXPECTED.publish });
    return z.NEVER;
  }
  return { host: m[1]?.replace(/^\[|\]$/g, '') ?? '127.0.0.1', port };
});

/**
 * Where this machine reaches a listener (`tidings healthcheck`, the default base URL): an all-interfaces
 * address is reached on loopback; IPv6 in brackets.
 */
export function localOrigin(address: { host: string; port: number }): string {
  const host = address.host === '0.0.0.0' ? '127.0.0.1' : address.host === '::' ? '::1' : address.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/**
 * The most feeds one account may follow, and the most feeds one OPML import may list (docs/operating.md,
 * "Resource limits"). Both bound the work one request can ask for; named here because the web app's
 * configuration may leave them out.
 */
export const DEFAULT_MAX_SUBSCRIPTIONS = 2_000;
export const DEFAULT_MAX_OPML_OUTLINES = 2_000;

/**
 * The whole configuration, read from the environment once in main and passed down.
 * Every variable is documented in the README's configuration table.
 */
export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.string().min(1).default('./data/tidings.db'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).optional(),
  DATABASE_CA_FILE: z.string().min(1).optional(),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  DATABASE_STARTUP_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  DATABASE_DIRECT_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//i, { error: EXPECTED.postgresUrl })
    .optional(),
  DATABASE_LISTEN: booleanFromEnv.default(true),
  LOG_LEVEL: logLevel.default('info'),
  TIDINGS_WORKER: booleanFromEnv.default(true),
  TIDINGS_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  TIDINGS_PUBLISH: publishFromEnv.optional(),
  TIDINGS_TRUST_PROXY: trustProxyFromEnv.optional(),
  TIDINGS_QUEUE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  TIDINGS_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_MAX_SUBSCRIPTIONS),
  TIDINGS_MAX_OPML_OUTLINES: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_MAX_OPML_OUTLINES),
  TIDINGS_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  TIDINGS_ALLOW_PRIVATE_NETWORKS: booleanFromEnv.default(false),
  TIDINGS_MEDIA_PROXY: booleanFromEnv.default(true),
  // Its shape here; whether Tidings speaks it, src/i18n/locale.ts setOperatorLanguage (i18n is above lib).
  TIDINGS_LANGUAGE: z
    .string()
    .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, {
      error: EXPECTED.language,
    })
    .max(35)
    .default('en'),
  TIDINGS_FEED_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 ** 3)
    .default(10 * 1024 * 1024),
  TIDINGS_PAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 ** 3)
    .default(5 * 1024 * 1024),
  TIDINGS_READER_THREADS: z.coerce.number().int().min(0).max(16).optional(),
  TIDINGS_READING_LIST_PACE: z.coerce.number().int().min(0).max(600).default(20),
  TIDINGS_FEED_BACKFILL_HOURS: z.coerce
    .number()
    .int()
    .min(0)
    .max(24 * 365)
    .default(24),
  TIDINGS_SMTP_URL: z.url({ protocol: /^smtps?$/, error: EXPECTED.smtpUrl }).optional(),
  TIDINGS_MAIL_FROM: z
    .string()
    .refine((value) => parseMailbox(value) !== null, {
      error: EXPECTED.mailFrom,
    })
    .optional(),
  TIDINGS_UNSUBSCRIBE_MAILTO: z
    .string()
    .refine((value) => /^[^\s@<>,?"]+@[^\s@<>,?"]+$/.test(value) && parseMailbox(value) !== null, {
      error: EXPECTED.bareAddress,
    })
    .optional(),
  TIDINGS_INBOUND_DOMAIN: z
    .string()
    .transform((v) => v.trim().toLowerCase())
    .refine((v) => isEmailAddress(`x@${v}`), {
      error: EXPECTED.mailDomain,
    })
    .optional(),
  TIDINGS_INBOUND_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    // A parsing thread's heap (newsletters/limits.ts PARSE_HEAP_MB) must stay far above any one string
    // of a message: V8 ends the whole process, not the thread, on a single allocation past it.
    .max(25 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  TIDINGS_INBOUND_SECRET: z
    .string()
    .regex(/^[\x21-\x7e]{16,}$/, { error: EXPECTED.secret })
    .optional(),
  TIDINGS_INBOUND_DAILY_LIMIT: z.coerce.number().int().min(1).max(100_000).default(500),
  ...inboundFields,
  TIDINGS_METRICS: booleanFromEnv.default(false),
  TIDINGS_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  TIDINGS_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  TIDINGS_METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{16,}$/, { error: EXPECTED.secret })
    .optional(),
});

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** PostgreSQL connections each serve or worker process opens at most (defaultPoolSize). */
  databasePoolSize: number;
  /** PEM file of the CAs that sign PostgreSQL's certificate; null: the system's (or the URL's sslrootcert). */
  databaseCaFile: string | null;
  /** PostgreSQL statement_timeout of every session but the migrations'; 0: none. */
  databaseStatementTimeoutMs: number;
  /** How long serve and worker keep trying an unreachable database at start before exiting 1; 0: once. */
  databaseStartupTimeoutMs: number;
  /**
   * A URL that reaches PostgreSQL itself, not through PgBouncer in transaction mode, for what needs a session
   * of its own: migrations (Kysely's lock is held by the session) and LISTEN. null: DATABASE_URL.
   */
  databaseDirectUrl: string | null;
  /** PostgreSQL: cache keys and queue versions, kept fresh by LISTEN/NOTIFY (store/changeFeed.ts). */
  databaseListen: boolean;
  logLevel: z.infer<typeof logLevel>;
  worker: boolean;
  /**
   * Public base URL, used in printed curl lines and links; defaults to http://TIDINGS_PUBLISH (where a
   * container's port is published), else http://HOST:PORT.
   */
  baseUrl: string;
  /** Whose X-Forwarded-For is believed for the client's address (see TrustProxy); false: nobody's. */
  trustProxy: TrustProxy;
  queueLimit: number;
  /** The most feeds one account may follow (subscribing and importing refuse beyond it). */
  maxSubscriptions: number;
  /** The most feeds one OPML file may list to be imported. */
  maxOpmlOutlines: number;
  shutdownTimeoutMs: number;
  /** Let feed fetching reach loopback and private addresses (off: a feed URL must not probe the network). */
  allowPrivateNetworks: boolean;
  /**
   * Remote images in digests, their web pages and feed, the reading view and the queue are served through
   * Tidings' media proxy (src/http/media.ts; docs/privacy.md); false: linked where they are.
   */
  mediaProxy: boolean;
  /** The language of accounts that chose none (docs/languages.md): a code of src/i18n/languages.ts. */
  language: string;
  /** Largest feed body accepted, after decompression. */
  feedMaxBytes: number;
  /** The most of a saved page the reader reads, after decompression; a larger page is read up to here. */
  pageMaxBytes: number;
  /**
   * Threads that extract saved pages beside the one that fetches them: by default 2 on a machine with
   * more than one core, else 1 (defaultReaderThreads); 0 is taken as 1, never the main thread.
   */
  readerThreads: number;
  /**
   * Pages of reading-list links each worker process starts reading a minute, at most, one at a time
   * (articles/pacedReader.ts); 0: the reading list's pages are not read.
   */
  readingListPagesPerMinute: number;
  /** On subscribing, items published this many hours back are queued; older ones are only remembered. */
  feedBackfillHours: number;
  /** SMTP server digests are emailed through (may carry a password: never log it); null: no email. */
  smtpUrl: string | null;
  /** The From of digest emails; set whenever smtpUrl is. */
  mailFrom: string | null;
  /**
   * A mailbox offered as the mailto: of digest emails' List-Unsubscribe, beside the https link; null: the
   * link only. Tidings does not read mail: whoever reads this mailbox turns email off by hand.
   */
  unsubscribeMailto: string | null;
  /** Prometheus metrics on a listener of their own; null: off (TIDINGS_METRICS unset or false). */
  metrics: MetricsConfig | null;
  /** Newsletters by e-mail (docs/newsletters.md). */
  inbound: InboundConfig;
  /** Mail taken in over SMTP by serve and worker (TIDINGS_INBOUND_SMTP_PORT); null: off. */
  inboundSmtp: InboundSmtpConfig | null;
  /** The mailbox watched over IMAP by the workers (TIDINGS_INBOUND_IMAP_URL); null: off. */
  inboundImap: InboundImapConfig | null;
}

/** Newsletters by e-mail: where they are addressed, and the bounds of what is taken in. */
export interface InboundConfig {
  /** The domain of every account's address (TOKEN@domain), lower-cased; null: no address is given out. */
  domain: string | null;
  /** The largest message taken in, in bytes, whichever way it comes. */
  maxBytes: number;
  /** The bearer secret of POST /inbound/email (never log it); null: the route answers 404. */
  secret: string | null;
  /** Messages one account takes in within 24 hours; past it they are refused until the window moves on. */
  dailyLimit: number;
}

export interface MetricsConfig {
  /** Where GET /metrics is served: 127.0.0.1 by default, never the public listener. */
  host: string;
  port: number;
  /** When set, a scrape must send `Authorization: Bearer <token>` (a secret: never log it). */
  token: string | null;
}

/**
 * Page extraction threads when TIDINGS_READER_THREADS is not set: two where there is a core to spare
 * (measured in BENCHMARKS.md, "Reading pages": 2 threads on 2 cores read ~20–30 % more pages a second at
 * the same peak memory), one on one core: pages are always parsed in a thread with a capped heap, never on the
 * thread that answers requests (articles/enrich.ts starts at least one, so 0 means 1).
 */
export function defaultReaderThreads(cores: number): number {
  return cores > 1 ? 2 : 1;
}

/**
 * PostgreSQL connections per process when DATABASE_POOL_SIZE is not set: twice the cores (a connection
 * waits on the network and on the server about as long as it works), at least 10 (node-postgres's own
 * default, which the benches were measured with) and at most 20, so that four processes (three serve and
 * a worker) stay under PostgreSQL's default max_connections of 100.
 */
export function defaultPoolSize(cores: number): number {
  return Math.min(20, Math.max(10, 2 * cores));
}

/** Parses the environment (only the variables named in the schema); throws ConfigError listing every problem. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  const parsed = configSchema.safeParse(picked);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map(problemOf));
  }
  const c = parsed.data;
  if (c.TIDINGS_SMTP_URL !== undefined && c.TIDINGS_MAIL_FROM === undefined) {
    throw new ConfigError([
      {
        variable: 'TIDINGS_MAIL_FROM',
        message: 'required when TIDINGS_SMTP_URL is set (the From of digest emails)',
        facts: { reason: 'required_with', other: 'TIDINGS_SMTP_URL' },
      },
    ]);
  }
  if (c.TIDINGS_METRICS && c.TIDINGS_METRICS_PORT !== 0 && c.TIDINGS_METRICS_PORT === c.PORT) {
    throw new ConfigError([
      {
        variable: 'TIDINGS_METRICS_PORT',
        message: `the metrics are served on a listener of their own; choose a port other than PORT (${c.PORT})`,
        facts: { reason: 'same_port', port: c.PORT },
      },
    ]);
  }
  if (c.DATABASE_DIRECT_URL !== undefined && !/^postgres(ql)?:\/\//i.test(c.DATABASE_URL)) {
    throw new ConfigError([
      {
        variable: 'DATABASE_DIRECT_URL',
        message: 'only for PostgreSQL; DATABASE_URL is not a postgres:// URL',
        facts: { reason: 'direct_url_needs_postgres' },
      },
    ]);
  }
  const ways = inboundWays(c, c.HOST);
  if ('problem' in ways) throw new ConfigError([ways.problem]);
  const reachedAt = c.TIDINGS_PUBLISH ?? { host: c.HOST, port: c.PORT };
  return {
    port: c.PORT,
    host: c.HOST,
    databaseUrl: c.DATABASE_URL,
    databasePoolSize: c.DATABASE_POOL_SIZE ?? defaultPoolSize(availableParallelism()),
    databaseCaFile: c.DATABASE_CA_FILE ?? null,
    databaseStatementTimeoutMs: c.DATABASE_STATEMENT_TIMEOUT_MS,
    databaseStartupTimeoutMs: c.DATABASE_STARTUP_TIMEOUT_MS,
    databaseDirectUrl: c.DATABASE_DIRECT_URL ?? null,
    databaseListen: c.DATABASE_LISTEN,
    logLevel: c.LOG_LEVEL,
    worker: c.TIDINGS_WORKER,
    baseUrl: (c.TIDINGS_BASE_URL ?? localOrigin(reachedAt)).replace(/\/+$/, ''),
    trustProxy: c.TIDINGS_TRUST_PROXY ?? false,
    queueLimit: c.TIDINGS_QUEUE_LIMIT,
    maxSubscriptions: c.TIDINGS_MAX_SUBSCRIPTIONS,
    maxOpmlOutlines: c.TIDINGS_MAX_OPML_OUTLINES,
    shutdownTimeoutMs: c.TIDINGS_SHUTDOWN_TIMEOUT_MS,
    allowPrivateNetworks: c.TIDINGS_ALLOW_PRIVATE_NETWORKS,
    mediaProxy: c.TIDINGS_MEDIA_PROXY,
    language: c.TIDINGS_LANGUAGE,
    feedMaxBytes: c.TIDINGS_FEED_MAX_BYTES,
    pageMaxBytes: c.TIDINGS_PAGE_MAX_BYTES,
    readerThreads: c.TIDINGS_READER_THREADS ?? defaultReaderThreads(availableParallelism()),
    readingListPagesPerMinute: c.TIDINGS_READING_LIST_PACE,
    feedBackfillHours: c.TIDINGS_FEED_BACKFILL_HOURS,
    smtpUrl: c.TIDINGS_SMTP_URL ?? null,
    mailFrom: c.TIDINGS_MAIL_FROM ?? null,
    unsubscribeMailto: c.TIDINGS_UNSUBSCRIBE_MAILTO ?? null,
    metrics: c.TIDINGS_METRICS
      ? { host: c.TIDINGS_METRICS_HOST, port: c.TIDINGS_METRICS_PORT, token: c.TIDINGS_METRICS_TOKEN ?? null }
      : null,
    inbound: {
      domain: c.TIDINGS_INBOUND_DOMAIN ?? null,
      maxBytes: c.TIDINGS_INBOUND_MAX_BYTES,
      secret: c.TIDINGS_INBOUND_SECRET ?? null,
      dailyLimit: c.TIDINGS_INBOUND_DAILY_LIMIT,
    },
    inboundSmtp: ways.smtp,
    inboundImap: ways.imap,
  };
}
