import type { Logger } from 'pino';
import { localeOf } from '../i18n/locale.js';
import { escapeHtml } from '../lib/escape.js';
import { lazy } from '../lib/lazy.js';
import { type Worker, startLoop } from '../lib/workers.js';
import type { Store } from '../store/db.js';
import { type DueForward, claimForward, dueForwards, recordForward } from '../store/newsletterMessages.js';
import { type NewsletterMailer, mailDomain, sendFailure, temporaryFailure } from './mailer.js';
import { onStored } from './stored.js';

/*
 * Confirmations reach the person at once (issue 34, point 5). Double opt-in newsletters send a
 * confirmation first: the first message from a sender the account never received from
 * (newsletter_messages.first_from_sender) is forwarded to the account's e-mail through the instance's SMTP,
 * so that the person can confirm the same day; later messages wait for the digest. The forwarder is a loop
 * of `serve` and `worker` (cli/workers.ts) that a stored message wakes in this process (stored.ts noteStored,
 * called by ingest.ts after its commit) and that otherwise looks every 30 seconds, so a message taken in by
 * another process, or before a crash, is forwarded too. Each message is leased while it is sent (two
 * processes never both send it), tried at most FORWARD_ATTEMPTS times (store/newsletterMessages.ts), and
 * only while it is a day old at most: a confirmation forwarded days later is no use. The forward carries
 * Tidings' loop header (digest/mail.ts sends it), so it is never taken in again; it has no images (the
 * newsletter's pictures, trackers among them, stay out of the person's mailbox: its links are kept).
 */

export interface ForwardDeps {
  store: Store;
  log: Logger;
  mailer: NewsletterMailer;
  mailFrom: string | null;
  /** TIDINGS_BASE_URL: the forward links to the newsletter's reading view. */
  baseUrl: string;
  now?: () => Date;
}

/** How old a first message may be and still be forwarded. */
export const FORWARD_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long a process holds a message it sends (a send's own timeouts are shorter). */
export const FORWARD_LEASE_MS = 3 * 60 * 1000;
const PASS_SIZE = 20;
/** Loaded by the first forward: a process that forwards nothing does without it. */
const sanitizer = lazy(() => import('sanitize-html'));
const SLEEP_MS = 30_000;

/** One pass: forwards the first messages due; how many were sent. */
export async function forwardConfirmations(deps: ForwardDeps): Promise<number> {
  const now = (deps.now ?? (() => new Date()))();
  const since = new Date(now.getTime() - FORWARD_WINDOW_MS).toISOString();
  const due = await dueForwards(deps.store.db, { now: now.toISOString(), since }, PASS_SIZE);
  let sent = 0;
  for (const message of due) {
    const leaseUntil = new Date(now.getTime() + FORWARD_LEASE_MS).toISOString();
    const claimed = await claimForward(deps.store.db, message.accountId, message.id, {
      now: now.toISOString(),
      leaseUntil,
    });
    if (!claimed) continue;
    try {
      await deps.mailer.send(await forwardMail(message, deps));
      await recordForward(deps.store.db, message.accountId, message.id, { sentAt: now.toISOString() });
      sent++;
    } catch (err) {
      const error = sendFailure(err);
      const giveUp = !temporaryFailure(err);
      deps.log.warn({ accountId: message.accountId, message: message.id, error, giveUp }, 'forward failed');
      await recordForward(deps.store.db, message.accountId, message.id, { error, giveUp });
    }
  }
  if (sent > 0) deps.log.info({ sent }, 'forwarded first messages from new senders');
  return sent;
}

/**
 * The forward: who sent it and why it comes at once, then the newsletter (links kept, images not). Its own
 * words are in the account's language; the newsletter is as its sender wrote it.
 */
export async function forwardMail(
  m: DueForward,
  deps: Pick<ForwardDeps, 'baseUrl' | 'mailFrom'>,
): Promise<{ to: string; subject: string; html: string; text: string; messageId: string }> {
  const locale = localeOf(m.language);
  const intro = locale.t('mail.forward.intro', { from: `${m.senderName} <${m.senderAddress}>` });
  const link = m.pageId === null ? null : `${deps.baseUrl.replace(/\/+$/, '')}/items/${m.pageId}`;
  const body = m.html === null ? '' : await withoutImages(m.html);
  const html =
    `<p style="color:#555">${escapeHtml(intro)}` +
    (link === null
      ? ''
      : ` ${locale.html('mail.forward.readHtml', { link: `<a href="${escapeHtml(link)}">${escapeHtml(locale.t('mail.forward.readLink'))}</a>` }, ['link'])}`) +
    `</p><hr>${body}`;
  const text = [
    intro,
    link === null ? null : locale.t('mail.forward.readText', { url: link }),
    '',
    m.text ?? '',
  ]
    .filter((l) => l !== null)
    .join('\n');
  const stamp = Date.parse(m.receivedAt);
  const subject = m.subject === '' ? locale.t('mail.forward.noSubject') : m.subject;
  return {
    to: m.email,
    subject: locale.t('mail.forward.subject', { subject }).slice(0, 300),
    html,
    text,
    // The same for every attempt at this message, so that a mail system can tell a retry.
    messageId: `<forward.${m.id}.${Number.isNaN(stamp) ? '0' : stamp.toString(36)}@${mailDomain(deps.mailFrom)}>`,
  };
}

/** The stored (already sanitised) body with its images dropped; links stay, for the confirmation's. */
async function withoutImages(html: string): Promise<string> {
  const { default: sanitizeHtml } = await sanitizer();
  return sanitizeHtml(html, {
    allowedTags: sanitizeHtml.defaults.allowedTags.filter((t) => t !== 'img'),
    allowedAttributes: { a: ['href'], td: ['colspan', 'rowspan'], th: ['colspan', 'rowspan'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowProtocolRelative: false,
  });
}

/** The forwarder's loop: woken by a stored message, else every 30 seconds. */
export function startForwarder(deps: ForwardDeps): Worker {
  return startLoop({
    name: 'newsletter forwarder',
    pass: async () => {
      await forwardConfirmations(deps);
    },
    sleepMs: () => SLEEP_MS,
    log: deps.log,
    failed: 'forward pass failed; retrying shortly',
    wakeOn: (wake) => onStored(deps.store, wake),
  });
}
