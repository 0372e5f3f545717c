import { type Locale, localeOf } from '../i18n/locale.js';
import { workerId } from '../lib/workers.js';
import { accountById } from '../store/accounts.js';
import type { Digest } from '../store/digests.js';
import { type EreaderUpdate, claimDueEreaderCopies, recordEreaderCopy } from '../store/ereaderDeliveries.js';
import { afterFailure } from './backoff.js';
import type { DeliveryOutcome } from './deliver.js';
import type { DigestDeps } from './deps.js';
import { EPUB_MEDIA_TYPE } from './epub/book.js';
import { isEpubBuildError } from './epub/builds.js';
import { type DigestEpub, digestEpub } from './epub/load.js';
import { EREADER_MAX_BYTES } from './limits.js';
import { type MailMessage, type Mailer, asMailError } from './mail.js';

/**
 * Mailing each digest's EPUB to the account's e-reader address (Send-to-Kindle and the like): one message,
 * the book attached, tracked in the digest's `ereader_*` columns as the email is in `delivery` (deliver.ts:
 * the same lease, backoff and 24-hour window), but apart from it, so that a failure of either never sends
 * the other again. Every attempt sends the same Message-ID (the email's, marked as the e-reader's).
 */

/** As the email's outcomes (`not_emailed`: the address was removed before sending); `sent` says whether the file was attached. */
export type EreaderOutcome =
  | Exclude<DeliveryOutcome, { status: 'sent' }>
  | { status: 'sent'; digestId: number; accountId: number; attached: boolean };

/** Copies claimed at once; each is built and sent on its own (an EPUB is a few hundred KB to a few MB). */
const EREADER_BATCH = 10;

/** Sends every e-reader copy that is due (or only account `accountId`'s); nothing without SMTP. */
export async function deliverDueEreaderCopies(
  deps: DigestDeps,
  opts: { accountId?: number; owner?: string } = {},
): Promise<EreaderOutcome[]> {
  const mailer = deps.mailer;
  if (mailer === null) return [];
  const owner = opts.owner ?? workerId();
  const outcomes: EreaderOutcome[] = [];
  const seen = new Set<number>();
  for (;;) {
    const t = deps.now();
    const claimed = await claimDueEreaderCopies(deps.store.db, deps.store.engine, {
      owner,
      now: t.toISOString(),
      leaseUntil: new Date(t.getTime() + deps.leaseMs).toISOString(),
      limit: EREADER_BATCH,
      ...(opts.accountId === undefined ? {} : { accountId: opts.accountId }),
    });
    const fresh = claimed.filter((d) => !seen.has(d.id));
    if (fresh.length === 0) return outcomes;
    for (const digest of fresh) {
      seen.add(digest.id);
      outcomes.push(
        await sendOne(deps, mailer, digest, owner).catch((err: unknown): EreaderOutcome => {
          // The database, or a bug: the lease runs out and a later pass tries again.
          deps.log.error({ err, digestId: digest.id }, 'sending a digest to the e-reader failed');
          const message = err instanceof Error ? err.message : String(err);
          return { status: 'error', digestId: digest.id, accountId: digest.account_id, message };
        }),
      );
    }
  }
}

async function sendOne(
  deps: DigestDeps,
  mailer: Mailer,
  digest: Digest,
  owner: string,
): Promise<EreaderOutcome> {
  const ids = { digestId: digest.id, accountId: digest.account_id };
  const record = async (update: EreaderUpdate, outcome: EreaderOutcome): Promise<EreaderOutcome> =>
    (await recordEreaderCopy(deps.store.db, digest.id, owner, update))
      ? outcome
      : { status: 'lease_lost', ...ids };

  // The address as it is now: one removed since the build stops the copy.
  const account = await accountById(deps.store.db, digest.account_id);
  const to = account?.ereader_email ?? null;
  let epub: DigestEpub | null = null;
  try {
    // Made in the process's EPUB thread (epub/builds.ts), waiting for its turn behind downloads.
    epub =
      to === null
        ? null
        : await digestEpub(deps.store.db, digest.account_id, digest.id, deps.baseUrl, {
            queue: 'unbounded',
            ...(deps.epubBuilds === undefined ? {} : { builds: deps.epubBuilds }),
            images: deps.epubImages,
          });
  } catch (err) {
    // Its thread crashed or passed a limit: retried with backoff as a temporary failure to send would be.
    if (!isEpubBuildError(err)) throw err;
    return retryOrFail(deps, digest, record, { temporary: true, message: err.message });
  }
  if (to === null || epub === null) {
    const error = 'the e-reader address was removed before the digest was sent';
    return record({ state: 'not_emailed', error }, { status: 'not_emailed', ...ids });
  }
  const message = ereaderMessage(
    epub,
    to,
    digest.message_id,
    deps.ereaderMaxBytes ?? EREADER_MAX_BYTES,
    localeOf(account?.language),
  );
  try {
    await mailer.send(message);
  } catch (err) {
    return retryOrFail(deps, digest, record, asMailError(err));
  }
  const attached = message.attachments !== undefined;
  deps.log.info({ ...ids, attached, bytes: epub.bytes.length }, 'digest sent to the e-reader');
  return record({ state: 'sent', sentAt: deps.now().toISOString() }, { status: 'sent', ...ids, attached });
}

/** A copy not sent (the file not made, or the message refused): tried again later, or given up. */
function retryOrFail(
  deps: DigestDeps,
  digest: Digest,
  record: (update: EreaderUpdate, outcome: EreaderOutcome) => Promise<EreaderOutcome>,
  failure: { temporary: boolean; message: string },
): Promise<EreaderOutcome> {
  const ids = { digestId: digest.id, accountId: digest.account_id };
  deps.log.warn(
    {
      digestId: digest.id,
      attempt: digest.ereader_attempts,
      temporary: failure.temporary,
      reason: failure.message,
    },
    'digest e-reader copy not sent',
  );
  const after = afterFailure(
    failure,
    { createdAt: digest.created_at, attempts: digest.ereader_attempts },
    deps.now().getTime(),
    deps.random,
  );
  if (after.final) {
    return record({ state: 'failed', error: after.error }, { status: 'failed', ...ids, error: after.error });
  }
  const { nextAttemptAt, error } = after;
  return record(
    { state: 'pending', nextAttemptAt, error },
    { status: 'retrying', ...ids, nextAttemptAt, error },
  );
}

/**
 * The message: text only, the EPUB attached when it is at most `maxBytes`, else a line saying it was too
 * large and its download link. Its Message-ID is the email's with `ereader.` in front of the local part.
 */
export function ereaderMessage(
  epub: Pick<DigestEpub, 'fileName' | 'bytes' | 'link' | 'dateShort'>,
  to: string,
  emailMessageId: string,
  maxBytes: number,
  locale: Locale,
): MailMessage {
  const subject = locale.t('mail.ereader.subject', { date: epub.dateShort });
  const messageId = emailMessageId.replace(/^<?/, '<ereader.');
  if (epub.bytes.length > maxBytes) {
    const mb = (n: number) => (n / (1024 * 1024)).toFixed(1);
    const text = `${locale.t('mail.ereader.tooLarge', { size: mb(epub.bytes.length), max: mb(maxBytes), url: epub.link })}\n`;
    return { to, subject, html: '', text, messageId };
  }
  return {
    to,
    subject,
    html: '',
    text: `${locale.t('mail.ereader.attached', { date: epub.dateShort, file: epub.fileName })}\n`,
    messageId,
    attachments: [{ filename: epub.fileName, content: epub.bytes, contentType: EPUB_MEDIA_TYPE }],
  };
}
