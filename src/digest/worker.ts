import { type Worker, startLoop, workerId } from '../lib/workers.js';
import { type BuildOutcome, buildDueDigests } from './build.js';
import { type DeliveryOutcome, deliverDueDigests } from './deliver.js';
import type { DigestDeps } from './deps.js';
import { type EreaderOutcome, deliverDueEreaderCopies } from './ereader.js';
import { pruneExpiredLinks } from './linkLifetimes.js';

export interface DigestPass {
  builds: BuildOutcome[];
  deliveries: DeliveryOutcome[];
  /** The EPUB copies mailed to e-reader addresses (ereader.ts), apart from the emails. */
  ereader: EreaderOutcome[];
}

/** One pass: build the digests that are due, then send the emails and e-reader copies that are due (of one account, or all). */
export async function runDigestPass(
  deps: DigestDeps,
  opts: { accountId?: number; owner?: string } = {},
): Promise<DigestPass> {
  const builds = await buildDueDigests(deps, opts);
  const deliveries = await deliverDueDigests(deps, opts);
  const ereader = await deliverDueEreaderCopies(deps, opts);
  return { builds, deliveries, ereader };
}

/** Counts by status, for a log line or a summary. */
export function tallyPass(pass: DigestPass): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of pass.builds) counts[o.status] = (counts[o.status] ?? 0) + 1;
  for (const o of pass.deliveries) {
    const key = `email_${o.status}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  for (const o of pass.ereader) {
    const key = `ereader_${o.status}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/**
 * Every `intervalMs` (30 s), a pass, until stopped; a failed pass is logged and the next one tries again.
 * Each pass then forgets the emails' signed links that have expired (linkLifetimes.ts), of every account.
 */
export function startDigestWorker(deps: DigestDeps, opts: { intervalMs?: number } = {}): Worker {
  const owner = workerId();
  const intervalMs = opts.intervalMs ?? 30_000;
  return startLoop({
    name: 'digest scheduler',
    pass: async () => {
      const pass = await runDigestPass(deps, { owner });
      const expired = await pruneExpiredLinks(deps.store.db, deps.now());
      if (pass.builds.length + pass.deliveries.length + pass.ereader.length + expired > 0) {
        deps.log.info(
          { ...tallyPass(pass), ...(expired > 0 ? { links_expired: expired } : {}) },
          'digest pass',
        );
      }
    },
    sleepMs: () => intervalMs,
    log: deps.log,
    failed: 'digest pass failed; retrying shortly',
    onStop: () => deps.mailer?.close(),
  });
}
