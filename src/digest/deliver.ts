import { stopwatch } from '../lib/metrics.js';
import { workerId } from '../lib/workers.js';
import { type Digest, type DeliveryUpdate, claimDueDeliveries, recordDelivery } from '../store/digests.js';
import { RETRY_WINDOW_MS, afterFailure } from './backoff.js';
import { DIGEST_LANES, type DigestDeps } from './deps.js';
import { EMAIL_ITEMS } from './limits.js';
import { type LoadedDigest, loadClaimedDigests } from './load.js';
import { mediaLinksOf, withMediaLinks } from './media.js';
import { MailError, type MailMessage, type Mailer, asMailError } from './mail.js';
import { digestSubject } from './render/common.js';
import { withActionLinks } from './actionLinks.js';
import { mintActionTokens } from './actionTokens.js';
import { fitEmail } from './render/fit.js';
import { renderText } from './render/text.js';
import { emailPaused, mintUnsubscribeTokens, unsubscribeUrl } from './unsubscribe.js';

/**
 * Emailing built digests. A digest's delivery is a small state machine kept in its row:
 *
 *   pending ──claim──▶ sending ──250──▶ sent
 *      ▲                  │ 4xx, dropped, timeout (within 24 h of the build)
 *      └──── backoff ─────┘ 5xx, or still failing 24 h on ──▶ failed
 *
 * A claim is a lease: a worker that dies mid-send leaves `sending`, which another worker takes over once the
 * lease has run out. Every attempt sends the digest's stored Message-ID, so the only way a reader could get
 * two copies (a crash after the server accepted the message and before `sent` was committed) is one that
 * mail systems recognise as the same message. A `sent` digest is never claimed again.
 */

/** Retries stop this long after the digest was built (backoff.ts); re-exported for its tests. */
export { RETRY_WINDOW_MS };

export type DeliveryOutcome =
  | { status: 'sent'; digestId: number; accountId: number }
  | { status: 'retrying'; digestId: number; accountId: number; nextAttemptAt: string; error: string }
  | { status: 'failed'; digestId: number; accountId: number; error: string }
  /** Email was turned off or paused (or the address removed) between build and send: not sent, not retried. */
  | { status: 'not_emailed'; digestId: number; accountId: number }
  /** Another worker took the digest over (this one's lease ran out): its outcome is that worker's. */
  | { status: 'lease_lost'; digestId: number; accountId: number }
  /** The attempt broke down before an outcome was recorded: logged; retried once the lease runs out. */
  | { status: 'error'; digestId: number; accountId: number; message: string };

/**
 * Emails claimed at once: loaded, and their unsubscribe tokens made, in a handful of statements for the
 * batch; each is then sent and recorded on its own (one statement each, before the next is sent).
 */
const EMAIL_BATCH = 25;

/**
 * Sends every email that is due now (or only account `accountId`'s): pending digests whose next attempt
 * has come and digests a crashed worker left mid-send. Does nothing without SMTP configured. On PostgreSQL
 * several claims are in flight at once (DIGEST_LANES), each claimed digest leased to this worker alone.
 */
export async function deliverDueDigests(
  deps: DigestDeps,
  opts: { accountId?: number; owner?: string; batch?: number } = {},
): Promise<DeliveryOutcome[]> {
  const mailer = deps.mailer;
  if (mailer === null) return [];
  const owner = opts.owner ?? workerId();
  const outcomes: DeliveryOutcome[] = [];
  const seen = new Set<number>();
  const lane = async (): Promise<void> => {
    for (;;) {
      const t = deps.now();
      const claimed = await claimDueDeliveries(deps.store.db, deps.store.engine, {
        owner,
        now: t.toISOString(),
        leaseUntil: new Date(t.getTime() + deps.leaseMs).toISOString(),
        limit: opts.batch ?? EMAIL_BATCH,
        ...(opts.accountId === undefined ? {} : { accountId: opts.accountId }),
      });
      const fresh = claimed.filter((d) => !seen.has(d.id));
      if (fresh.length === 0) return;
      for (const d of fresh) seen.add(d.id);
      outcomes.push(...(await deliverClaimed(deps, mailer, fresh, owner)));
    }
  };
  // As builds (build.ts): several claims in flight on PostgreSQL, each its emails one after the other.
  const lanes = deps.store.engine === 'postgres' && opts.accountId === undefined ? DIGEST_LANES : 1;
  await Promise.all(Array.from({ length: lanes }, lane));
  return outcomes;
}

/** What an email of a claimed digest is made of: the digest as loaded, and its unsubscribe link's token. */
interface Prepared {
  loaded: LoadedDigest | undefined;
  /** null when the email is not to be sent (email off or paused, the account gone). */
  token: string | null;
  /** The email's actions token; null as `token` is. */
  actions: string | null;
}

/**
 * Emails a batch of claimed digests: loaded together and their unsubscribe tokens made together (a
 * handful of statements for the batch), then each sent and its outcome recorded in turn, before the next
 * is sent. A failure to load the batch leaves each digest's lease to run out.
 */
async function deliverClaimed(
  deps: DigestDeps,
  mailer: Mailer,
  digests: readonly Digest[],
  owner: string,
): Promise<DeliveryOutcome[]> {
  const elapsed = stopwatch();
  const failed = (digest: Digest, err: unknown): DeliveryOutcome => {
    // The database, or a bug: the lease runs out and a later pass tries again.
    deps.log.error({ err, digestId: digest.id }, 'delivering a digest failed');
    const message = err instanceof Error ? err.message : String(err);
    return { status: 'error', digestId: digest.id, accountId: digest.account_id, message };
  };
  let prepared: Map<number, Prepared>;
  try {
    prepared = await prepare(deps, digests);
  } catch (err) {
    const share = elapsed() / digests.length;
    return digests.map((digest) => {
      deps.metrics?.digestEmailed('error', share);
      return failed(digest, err);
    });
  }
  const outcomes: DeliveryOutcome[] = [];
  for (const digest of digests) {
    const one = stopwatch();
    const outcome = await deliverOne(deps, mailer, digest, owner, prepared.get(digest.id)).catch(
      (err: unknown) => failed(digest, err),
    );
    deps.metrics?.digestEmailed(outcome.status, one());
    if (outcome.status === 'lease_lost') deps.metrics?.leaseLost('digest_email');
    outcomes.push(outcome);
  }
  return outcomes;
}

async function prepare(deps: DigestDeps, digests: readonly Digest[]): Promise<Map<number, Prepared>> {
  const now = deps.now();
  const media = await mediaLinksOf(deps.media);
  const loaded = new Map(
    [...(await loadClaimedDigests(deps.store.db, digests, deps.baseUrl, EMAIL_ITEMS, { now }))].map(
      ([id, l]) => [
        id,
        // Its pictures through the media proxy: opening the email asks no third party (digest/media.ts).
        { ...l, view: withMediaLinks(l.view, media) },
      ],
    ),
  );
  const emailed = digests.filter((d) => {
    const account = loaded.get(d.id)?.account;
    return account?.email != null && account.email_enabled && !emailPaused(account, now);
  });
  // Each email its own unsubscribe link: only its hash is kept (digest/unsubscribe.ts).
  const tokens = await mintUnsubscribeTokens(
    deps.store.db,
    emailed.map((d) => d.account_id),
    now,
  );
  // And its own link for its actions (keep, fewer, more, mute: digest/actionTokens.ts), hash kept alike.
  const actions = await mintActionTokens(
    deps.store.db,
    emailed.map((d) => ({ accountId: d.account_id, digestId: d.id })),
    now,
  );
  const prepared = new Map<number, Prepared>(
    digests.map((d) => [d.id, { loaded: loaded.get(d.id), token: null, actions: null }]),
  );
  emailed.forEach((d, i) => {
    const p = prepared.get(d.id);
    if (p === undefined) return;
    p.token = tokens[i] ?? null;
    p.actions = actions[i] ?? null;
  });
  return prepared;
}

async function deliverOne(
  deps: DigestDeps,
  mailer: Mailer,
  digest: Digest,
  owner: string,
  prepared: Prepared | undefined,
): Promise<DeliveryOutcome> {
  const ids = { digestId: digest.id, accountId: digest.account_id };
  const record = async (update: DeliveryUpdate, outcome: DeliveryOutcome): Promise<DeliveryOutcome> =>
    (await recordDelivery(deps.store.db, digest.id, owner, update))
      ? outcome
      : { status: 'lease_lost', ...ids };

  const loaded = prepared?.loaded;
  const to = loaded?.account.email ?? null;
  if (loaded === undefined || to === null || !loaded.account.email_enabled) {
    return record(
      { delivery: 'not_emailed', error: 'email was turned off before the digest was sent' },
      { status: 'not_emailed', ...ids },
    );
  }
  if (emailPaused(loaded.account, deps.now())) {
    return record(
      { delivery: 'not_emailed', error: 'email was paused before the digest was sent' },
      { status: 'not_emailed', ...ids },
    );
  }
  const token = prepared?.token ?? null;
  if (token === null) {
    return record(
      { delivery: 'not_emailed', error: 'the account was deleted before the digest was sent' },
      { status: 'not_emailed', ...ids },
    );
  }
  const unsubscribe = unsubscribeUrl(deps.baseUrl, token);
  const linked = withActionLinks(loaded.view, deps.baseUrl, prepared?.actions ?? null);
  const { view, html } = fitEmail({ ...linked, links: { ...linked.links, unsubscribe } });
  const message: MailMessage = {
    to,
    subject: digestSubject(view),
    html,
    text: renderText(view),
    messageId: digest.message_id,
    unsubscribeUrl: unsubscribe,
  };
  try {
    await mailer.send(message);
  } catch (err) {
    const failure = asMailError(err);
    if (!(err instanceof MailError)) deps.log.error({ err, digestId: digest.id }, 'digest email failed');
    return recordFailure(deps, digest, failure, record);
  }
  const sentAt = deps.now().toISOString();
  deps.log.info({ digestId: digest.id, accountId: digest.account_id }, 'digest emailed');
  return record({ delivery: 'sent', sentAt }, { status: 'sent', ...ids });
}

/** A temporary failure is retried with backoff until 24 h after the build; a permanent one is final. */
async function recordFailure(
  deps: DigestDeps,
  digest: Digest,
  failure: MailError,
  record: (update: DeliveryUpdate, outcome: DeliveryOutcome) => Promise<DeliveryOutcome>,
): Promise<DeliveryOutcome> {
  const ids = { digestId: digest.id, accountId: digest.account_id };
  deps.log.warn(
    { digestId: digest.id, attempt: digest.attempts, temporary: failure.temporary, reason: failure.message },
    'digest email not sent',
  );
  const after = afterFailure(
    failure,
    { createdAt: digest.created_at, attempts: digest.attempts },
    deps.now().getTime(),
    deps.random,
  );
  if (after.final) {
    return record(
      { delivery: 'failed', error: after.error },
      { status: 'failed', ...ids, error: after.error },
    );
  }
  const { nextAttemptAt, error } = after;
  return record(
    { delivery: 'pending', nextAttemptAt, error },
    { status: 'retrying', ...ids, nextAttemptAt, error },
  );
}
