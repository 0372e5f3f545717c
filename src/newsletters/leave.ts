import { randomBytes } from 'node:crypto';
import { type NetworkPolicy, fetchUrl } from '../fetch/fetch.js';
import { isEmailAddress } from '../lib/email.js';
import { type NewsletterMailer, mailDomain, sendFailure } from './mailer.js';
import { type UnsubscribeKind, unsubscribeKind, unsubscribeTargets } from './unsubscribe.js';

/**
 * Leaving a sender (issue 34, point 6), from what its latest message's List-Unsubscribe (RFC 2369) and
 * List-Unsubscribe-Post (RFC 8058) headers offer, in this order: the one-click POST (body
 * `List-Unsubscribe=One-Click`, form-encoded, through the guarded fetcher, no cookies or credentials),
 * else a message to the mailto address through the instance's SMTP (its `?subject=` and `?body=` kept),
 * else the link, for the reader to open. What cannot be done (no SMTP configured, the server refused) is
 * said, and the next way is tried. The caller mutes the sender whatever came of it.
 */

export interface LeaveDeps {
  /** Whether private addresses may be fetched (TIDINGS_ALLOW_PRIVATE_NETWORKS). */
  policy: NetworkPolicy;
  /** The instance's mailer; null without SMTP settings (a mailto address is then handed over as a link). */
  mailer: NewsletterMailer | null;
  mailFrom: string | null;
  /** The one-click POST's whole time; 15 s by default. */
  timeoutMs?: number;
  /** For tests: the certificate authority of their loopback HTTPS server (RFC 8058 wants https). */
  ca?: string;
}

export interface LeaveResult {
  /** What was done: POSTed, mailed, a link to open, or nothing (the sender offered no way). */
  how: UnsubscribeKind;
  /** The URL POSTed or to open, or the address mailed. */
  target: string | null;
  /** The ways tried before that failed, each with why (a refused POST, SMTP down). */
  failed: string[];
}

/** The body and type RFC 8058 prescribes. */
export const ONE_CLICK_BODY = 'List-Unsubscribe=One-Click';
export const ONE_CLICK_TYPE = 'application/x-www-form-urlencoded';

export interface Mailto {
  to: string;
  subject: string;
  body: string;
}

/**
 * A mailto URI (RFC 6068) as a message to send: its first address (from the path, else a `to` field), its
 * `subject` and `body` (percent-decoded); null when it names no address Tidings would send to.
 */
export function parseMailto(uri: string): Mailto | null {
  if (!/^mailto:/i.test(uri) || uri.length > 2048) return null;
  const rest = uri.slice('mailto:'.length);
  const q = rest.indexOf('?');
  const fields = new Map<string, string>();
  const decode = (s: string): string | null => {
    try {
      return decodeURIComponent(s);
    } catch {
      return null;
    }
  };
  for (const pair of (q === -1 ? '' : rest.slice(q + 1)).split('&')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const name = pair.slice(0, eq).toLowerCase();
    const value = decode(pair.slice(eq + 1));
    if (value !== null && !fields.has(name)) fields.set(name, value);
  }
  const path = decode(q === -1 ? rest : rest.slice(0, q)) ?? '';
  const to = [...path.split(','), ...(fields.get('to') ?? '').split(',')]
    .map((a) => a.trim())
    .find((a) => a !== '');
  if (to === undefined || !isEmailAddress(to)) return null;
  // One line each: a header value never carries a line break.
  const subject = (fields.get('subject') ?? 'unsubscribe').replace(/[\r\n]+/g, ' ').slice(0, 500);
  return {
    to,
    subject: subject.trim() === '' ? 'unsubscribe' : subject,
    body: (fields.get('body') ?? '').slice(0, 10_000),
  };
}

/** Leaves a sender as its headers offer (see above). */
export async function leaveSender(
  deps: LeaveDeps,
  headers: { listUnsubscribe: string | null; listUnsubscribePost: string | null },
): Promise<LeaveResult> {
  const targets = unsubscribeTargets(headers.listUnsubscribe);
  const failed: string[] = [];
  if (unsubscribeKind(headers.listUnsubscribe, headers.listUnsubscribePost) === 'one-click') {
    const url = targets.find((t) => /^https:\/\//i.test(t)) ?? '';
    const result = await fetchUrl(url, {
      policy: deps.policy,
      post: { contentType: ONE_CLICK_TYPE, body: ONE_CLICK_BODY },
      maxBytes: 64 * 1024,
      truncate: true,
      requestTimeoutMs: deps.timeoutMs ?? 15_000,
      noun: 'unsubscribe page',
      ...(deps.ca === undefined ? {} : { ca: deps.ca }),
    });
    if (result.kind === 'ok') return { how: 'one-click', target: url, failed };
    failed.push(`the one-click unsubscribe failed: ${result.kind === 'error' ? result.message : 'gone'}`);
  }
  const mailto = targets.map(parseMailto).find((m) => m !== null);
  if (mailto !== undefined) {
    if (deps.mailer === null) {
      failed.push('no SMTP server is configured to send the unsubscribe message');
    } else {
      try {
        await deps.mailer.send({
          to: mailto.to,
          subject: mailto.subject,
          html: '',
          text: mailto.body === '' ? 'unsubscribe' : mailto.body,
          messageId: `<unsubscribe.${randomBytes(9).toString('hex')}@${mailDomain(deps.mailFrom)}>`,
        });
        return { how: 'mailto', target: mailto.to, failed };
      } catch (err) {
        failed.push(`the unsubscribe message was not sent: ${sendFailure(err)}`);
      }
    }
  }
  const link = linkToOpen(headers.listUnsubscribe);
  return link === null ? { how: 'none', target: null, failed } : { how: 'link', target: link, failed };
}

/** What a reader opens to unsubscribe by hand: the header's http(s) link, else its mailto; null: none. */
export function linkToOpen(listUnsubscribe: string | null): string | null {
  const targets = unsubscribeTargets(listUnsubscribe);
  return (
    targets.find((t) => /^https?:\/\/[^\s]/i.test(t)) ?? targets.find((t) => /^mailto:[^\s]/i.test(t)) ?? null
  );
}
