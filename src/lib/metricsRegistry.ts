import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type {
  DigestBuildOutcome,
  DigestEmailOutcome,
  FeedFetchOutcome,
  LeaseWorker,
  Metrics,
  MetricsProbes,
  PageReadList,
  PageReadOutcome,
  SaveOutcome,
  SaveSource,
} from './metrics.js';

/*
 * Metrics in prom-client, the registry Prometheus scrapes. Only processes with TIDINGS_METRICS load this
 * module (and prom-client): the rest of Tidings knows only the Metrics interface of metrics.ts.
 */

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Fetches and SMTP conversations: up to their 30 s timeouts and a little past. */
const REMOTE_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];
const BUILD_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);

export interface PrometheusMetricsOptions {
  probes?: MetricsProbes;
  /** A probe that failed (its gauge is left out of that scrape). */
  onProbeError?: (probe: keyof MetricsProbes, err: unknown) => void;
}

/** The metrics of one process, in a registry of its own (never prom-client's global one). */
export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly http: Histogram<'method' | 'route' | 'status'>;
  private readonly saves: Counter<'source' | 'outcome'>;
  private readonly feedFetches: Histogram<'outcome' | 'reason'>;
  private readonly digestBuilds: Histogram<'outcome'>;
  private readonly digestEmails: Histogram<'outcome'>;
  private readonly pageReads: Histogram<'outcome' | 'list'>;
  private readonly leaseLosses: Counter<'worker'>;

  constructor(options: PrometheusMetricsOptions = {}) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.http = new Histogram({
      name: 'tidings_http_request_duration_seconds',
      help: 'HTTP requests answered, by method, route pattern and status, with their latency',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.saves = new Counter({
      name: 'tidings_saves_total',
      help: 'Saves offered to a queue, by source and outcome (added, title_updated, already_queued, or the refusal)',
      labelNames: ['source', 'outcome'],
      registers,
    });
    this.feedFetches = new Histogram({
      name: 'tidings_feed_fetch_duration_seconds',
      help: 'Feed fetches (fetch, parse, store), by outcome and, for errors, reason, with their duration',
      labelNames: ['outcome', 'reason'],
      buckets: REMOTE_BUCKETS,
      registers,
    });
    this.digestBuilds = new Histogram({
      name: 'tidings_digest_build_duration_seconds',
      help: 'Digest builds, by outcome, with their duration',
      labelNames: ['outcome'],
      buckets: BUILD_BUCKETS,
      registers,
    });
    this.digestEmails = new Histogram({
      name: 'tidings_digest_email_duration_seconds',
      help: 'Attempts to email a digest, by outcome, with their duration',
      labelNames: ['outcome'],
      buckets: REMOTE_BUCKETS,
      registers,
    });
    this.pageReads = new Histogram({
      name: 'tidings_page_read_duration_seconds',
      help: 'Pages read by the page reader (fetch, extract, record), by outcome and list (queue or reading_list), with their duration',
      labelNames: ['outcome', 'list'],
      buckets: REMOTE_BUCKETS,
      registers,
    });
    this.leaseLosses = new Counter({
      name: 'tidings_lease_losses_total',
      help: 'Work abandoned because its lease had passed to another worker, by worker',
      labelNames: ['worker'],
      registers,
    });
    for (const worker of ['poller', 'digest_build', 'digest_email', 'reader'] as const)
      this.leaseLosses.inc({ worker }, 0);
    scrapeGauges(this.registry, options);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text (reads the scrape-time gauges). */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  httpRequest(r: { method: string; route: string; status: number; seconds: number }): void {
    const method = METHODS.has(r.method) ? r.method : 'other';
    this.http.observe({ method, route: r.route, status: String(r.status) }, r.seconds);
  }

  saved(source: SaveSource, outcome: SaveOutcome, count = 1): void {
    if (count > 0) this.saves.inc({ source, outcome }, count);
  }

  feedFetched(outcome: FeedFetchOutcome, reason: string | null, seconds: number): void {
    this.feedFetches.observe(reason === null ? { outcome } : { outcome, reason }, seconds);
  }

  digestBuilt(outcome: DigestBuildOutcome, seconds: number): void {
    this.digestBuilds.observe({ outcome }, seconds);
  }

  digestEmailed(outcome: DigestEmailOutcome, seconds: number): void {
    this.digestEmails.observe({ outcome }, seconds);
  }

  pageRead(outcome: PageReadOutcome, seconds: number, list: PageReadList): void {
    this.pageReads.observe({ outcome, list }, seconds);
  }

  leaseLost(worker: LeaseWorker): void {
    this.leaseLosses.inc({ worker });
  }
}

/** The gauges read at scrape time, each from its probe; a probe that fails leaves its gauges out. */
function scrapeGauges(registry: Registry, options: PrometheusMetricsOptions): void {
  const { probes = {}, onProbeError = () => undefined } = options;
  const registers = [registry];
  /** Runs a probe once per scrape for the gauges that share it; null when it failed. */
  const shared = <T>(name: keyof MetricsProbes, probe: () => Promise<T>): (() => Promise<T | null>) => {
    let running: Promise<T | null> | null = null;
    return () => {
      running ??= probe()
        .catch((err: unknown) => {
          onProbeError(name, err);
          return null;
        })
        .finally(() => {
          running = null;
        });
      return running;
    };
  };
  const gauge = <T>(
    config: { name: string; help: string; labelNames?: string[] },
    read: () => Promise<T | null>,
    set: (gauge: Gauge, value: T) => void,
  ): void => {
    const g: Gauge = new Gauge({
      ...config,
      registers,
      collect: async () => {
        const value = await read();
        g.reset();
        // reset() leaves a gauge without labels at 0: a failed probe must show no value, not a false one.
        if (value === null) g.remove({});
        else set(g, value);
      },
    });
  };
  const { queues, feeds, pool, pendingSaves } = probes;
  if (queues !== undefined) {
    const read = shared('queues', queues);
    gauge({ name: 'tidings_queue_items', help: 'Items waiting in all queues' }, read, (g, v) =>
      g.set(v.items),
    );
    gauge(
      { name: 'tidings_queue_items_longest', help: 'Items waiting in the longest queue of an account' },
      read,
      (g, v) => g.set(v.longest),
    );
  }
  if (feeds !== undefined) {
    const read = shared('feeds', feeds);
    gauge({ name: 'tidings_feeds_due', help: 'Active feeds whose fetch is due' }, read, (g, v) =>
      g.set(v.due),
    );
    gauge({ name: 'tidings_feeds_overdue', help: 'Active feeds due for more than 5 minutes' }, read, (g, v) =>
      g.set(v.overdue),
    );
  }
  if (pool !== undefined) {
    const read = shared('pool', () => Promise.resolve(pool()));
    gauge(
      {
        name: 'tidings_db_pool_connections',
        help: 'Database pool connections (PostgreSQL), by state: in_use or idle',
        labelNames: ['state'],
      },
      read,
      (g, v) => {
        g.set({ state: 'in_use' }, v.total - v.idle);
        g.set({ state: 'idle' }, v.idle);
      },
    );
    gauge(
      { name: 'tidings_db_pool_waiting', help: 'Queries waiting for a database connection (PostgreSQL)' },
      read,
      (g, v) => g.set(v.waiting),
    );
  }
  if (pendingSaves !== undefined) {
    gauge(
      {
        name: 'tidings_save_writer_pending',
        help: 'Saves accepted and not yet committed by the group-commit writer',
      },
      shared('pendingSaves', () => Promise.resolve(pendingSaves())),
      (g, v) => g.set(v),
    );
  }
}
