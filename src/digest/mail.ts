import { encode as qpEncode, wrap as qpWrap } from 'nodemailer/lib/qp';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config.js';
import { parseMailbox } from '../lib/email.js';
import { lazy } from '../lib/lazy.js';
import { LOOP_HEADER, LOOP_VALUE } from '../lib/mailLoop.js';

const nodemailer = lazy(() => import('nodemailer'));

/** One email, as the digest delivery hands it over. */
export interface MailMessage {
  /** One bare address (reader@example.org), used as it is: never read as a list or a display name. */
  to: string;
  subject: string;
  /** The HTML part; '' sends a text-only message (the e-reader copy). */
  html: string;
  text: string;
  /** Files attached as they are (the e-reader copy's EPUB). */
  attachments?: readonly MailAttachment[];
  /**
   * The Message-ID, with or without angle brackets: stable per digest (see digestMessageId), so that a send
   * retried after a failure or a restart carries the same one and the reader's mail system can tell.
   */
  messageId: string;
  /**
   * The email's private one-click unsubscribe link (digest/unsubscribe.ts), sent as List-Unsubscribe with
   * the instance's mailto (TIDINGS_UNSUBSCRIBE_MAILTO) when there is one, and, when it is https, with
   * `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058 requires an https URI). Omitted if absent.
   */
  unsubscribeUrl?: string;
  /** The Date header; defaults to the time of sending. */
  date?: Date;
}

export interface MailAttachment {
  filename: string;
  content: Uint8Array;
  contentType: string;
}

export interface SentMail {
  /** The Message-ID as sent, in angle brackets. */
  messageId: string;
  /** The server's last answer, such as "250 2.0.0 Ok: queued as 4B1F2". */
  response: string;
}

export interface Mailer {
  /** Sends one message over SMTP. Rejects with MailError, and only that. */
  send(message: MailMessage): Promise<SentMail>;
  /** Closes the transport (idle connections, if any). */
  close(): void;
}

/** Why a message was not sent; `temporary` says whether sending it again later may succeed. */
export class MailError extends Error {
  override name = 'MailError';
  constructor(
    message: string,
    /** Retry later (4xx, connection refused or dropped, timeouts, failed login) or never (5xx on the message). */
    readonly temporary: boolean,
    /** The SMTP reply code, when the server gave one. */
    readonly responseCode: number | null = null,
    /** nodemailer's error code (ECONNECTION, ETIMEDOUT, EAUTH, EENVELOPE, EMESSAGE …), when there is one. */
    readonly code: string | null = null,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Any failure of a send as a MailError: one that is not (a bug) is taken as temporary. */
export function asMailError(err: unknown): MailError {
  return err instanceof MailError
    ? err
    : new MailError(`sending failed: ${err instanceof Error ? err.message : String(err)}`, true);
}

export interface MailTimeouts {
  /** To open the TCP (and TLS) connection. */
  connectMs: number;
  /** From connecting to the server's greeting. */
  greetingMs: number;
  /** Longest silence on an open connection, at any step. */
  socketMs: number;
}

/** Long enough for a slow relay, short enough that a dead server cannot hold a worker for long. */
export const DEFAULT_MAIL_TIMEOUTS: MailTimeouts = {
  connectMs: 30_000,
  greetingMs: 30_000,
  socketMs: 60_000,
};

export type MailConfig = Pick<Config, 'smtpUrl' | 'mailFrom'> & Partial<Pick<Config, 'unsubscribeMailto'>>;

export interface MailerOptions {
  timeouts?: Partial<MailTimeouts>;
}

/**
 * The SMTP mailer from TIDINGS_SMTP_URL and TIDINGS_MAIL_FROM, or null when mail is not configured (digests
 * are then only read on the web and in Atom). One connection per message: a digest run sends a few a day.
 *
 * The URL is smtp://[user:pass@]host[:port] (STARTTLS when the server offers it; port 587 by default) or
 * smtps://… (TLS from the start; port 465). Query parameters: requireTLS=true (refuse a server without
 * STARTTLS), ignoreTLS=true, tlsRejectUnauthorized=false (a self-signed relay), name=HOST (the EHLO name).
 */
export function createMailer(config: MailConfig, options: MailerOptions = {}): Mailer | null {
  if (config.smtpUrl === null || config.mailFrom === null) return null;
  // Name and address apart, so that nodemailer encodes the name and never reads it as more addresses.
  const from = parseMailbox(config.mailFrom);
  if (from === null) throw new Error(`TIDINGS_MAIL_FROM is not an address: ${config.mailFrom}`);
  const smtp = smtpOptions(config.smtpUrl, { ...DEFAULT_MAIL_TIMEOUTS, ...options.timeouts });
  const password = smtp.auth?.pass;
  // Made by the first email: nodemailer is loaded only by a process that sends one.
  let transport: Transporter<SMTPTransport.SentMessageInfo> | null = null;
  const made = async (): Promise<Transporter<SMTPTransport.SentMessageInfo>> => {
    const { default: mailer } = await nodemailer();
    return (transport ??= mailer.createTransport(smtp));
  };
  const where = `${smtp.host ?? ''}:${smtp.port ?? ''}`;
  return {
    async send(message: MailMessage): Promise<SentMail> {
      const messageId = angleBrackets(message.messageId);
      const headers: Record<string, string> = {
        // RFC 3834: generated by a program, so vacation responders and auto-repliers stay quiet.
        'Auto-Submitted': 'auto-generated',
        'X-Auto-Response-Suppress': 'OOF, AutoReply',
        // Tidings' own mail is never taken in again as a newsletter (lib/mailLoop.ts).
        [LOOP_HEADER]: LOOP_VALUE,
      };
      if (message.unsubscribeUrl !== undefined) {
        Object.assign(headers, unsubscribeHeaders(message.unsubscribeUrl, config.unsubscribeMailto ?? null));
      }
      try {
        const info = await (
          await made()
        ).sendMail({
          from,
          // One address, as given: never parsed as a list ("a@x, b@y" is not two recipients).
          to: { name: '', address: message.to },
          subject: message.subject,
          text: message.text,
          ...(message.html === '' ? {} : { html: message.html }),
          ...(message.attachments === undefined
            ? {}
            : {
                attachments: message.attachments.map((a) => ({
                  filename: a.filename,
                  content: Buffer.from(a.content),
                  contentType: a.contentType,
                })),
              }),
          messageId,
          date: message.date ?? new Date(),
          headers,
        });
        return { messageId, response: info.response };
      } catch (err) {
        throw toMailError(err, where, password);
      }
    },
    close() {
      transport?.close();
    },
  };
}

/**
 * A Message-ID for a digest that stays the same for that digest however often it is sent, and differs
 * from any digest of an earlier database that happened to get the same id (its creation time is part of
 * it): mail systems drop a second message with a Message-ID they have seen. The domain is the sender's.
 */
export function digestMessageId(digest: { id: number; created_at: string }, mailFrom: string): string {
  const at = Date.parse(digest.created_at);
  const stamp = Number.isNaN(at) ? '0' : at.toString(36);
  const domain = /@([^\s@<>]+)>?\s*$/.exec(mailFrom)?.[1] ?? 'tidings.invalid';
  return `<digest.${digest.id}.${stamp}@${domain}>`;
}

/**
 * List-Unsubscribe (RFC 2369) with the mailto first when there is one, and List-Unsubscribe-Post (RFC 8058)
 * when the link is https: mail providers then offer their own "Unsubscribe" button, which POSTs
 * `List-Unsubscribe=One-Click` to the link without cookies. Gmail and Yahoo require it of bulk senders and
 * ignore an http link.
 */
export function unsubscribeHeaders(url: string, mailto: string | null): Record<string, string> {
  const targets = [...(mailto === null ? [] : [`<mailto:${mailto}?subject=unsubscribe>`]), `<${url}>`];
  return {
    'List-Unsubscribe': targets.join(', '),
    ...(url.startsWith('https://') ? { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } : {}),
  };
}

function angleBrackets(id: string): string {
  const bare = id.trim().replace(/^<|>$/g, '');
  return `<${bare}>`;
}

function smtpOptions(smtpUrl: string, timeouts: MailTimeouts): SMTPTransport.Options {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  const q = url.searchParams;
  const options: SMTPTransport.Options = {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    connectionTimeout: timeouts.connectMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
    dnsTimeout: timeouts.connectMs,
    requireTLS: q.get('requireTLS') === 'true',
    ignoreTLS: q.get('ignoreTLS') === 'true',
    tls: { rejectUnauthorized: q.get('tlsRejectUnauthorized') !== 'false' },
    // Never log: the login would be in the transcript.
    logger: false,
    debug: false,
  };
  const name = q.get('name');
  if (name !== null && name !== '') options.name = name;
  if (url.username !== '') {
    options.auth = { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
  }
  return options;
}

const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: 'refused the connection',
  ECONNRESET: 'dropped the connection',
  EPIPE: 'dropped the connection',
  ENOTFOUND: 'has no address (DNS)',
  EAI_AGAIN: 'could not be looked up (DNS)',
  EHOSTUNREACH: 'is unreachable',
  ENETUNREACH: 'is unreachable',
};

/** nodemailer's failure as a MailError: replies 4xx and anything about the connection are temporary. */
export function toMailError(err: unknown, where: string, password?: string): MailError {
  const e: { code?: unknown; responseCode?: unknown; response?: unknown; command?: unknown } =
    typeof err === 'object' && err !== null ? err : {};
  const code = typeof e.code === 'string' ? e.code : null;
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : null;
  const response = typeof e.response === 'string' ? e.response.trim() : null;
  const command = typeof e.command === 'string' ? e.command.replace(/^AUTH .*/i, 'AUTH') : null;
  const raw = err instanceof Error ? err.message : String(err);
  const cause = { cause: err };
  const scrub = (s: string) =>
    password !== undefined && password.length > 0 ? s.split(password).join('[redacted]') : s;
  const causeCode = errnoOf(err);

  const fail = (message: string, temporary: boolean) =>
    new MailError(scrub(message), temporary, responseCode, code, cause);

  // A refused login, or a server that wants one (530): the setting is wrong, not the message. Temporary,
  // so that the digest still goes out once the operator fixes TIDINGS_SMTP_URL.
  if (code === 'EAUTH' || responseCode === 530) {
    return fail(`the SMTP server ${where} refused the login: ${response ?? raw}`, true);
  }
  if (responseCode !== null && responseCode >= 400 && responseCode < 600) {
    const temporary = responseCode < 500;
    const verb = temporary ? 'deferred' : 'rejected';
    const step = command?.split(' ')[0] ?? null;
    const what =
      step === 'CONN' ? 'the connection' : step === null ? 'the message' : `the message at ${step}`;
    return fail(`the SMTP server ${where} ${verb} ${what}: ${response ?? raw}`, temporary);
  }
  if (code === 'ETIMEDOUT' || causeCode === 'ETIMEDOUT') {
    return fail(`the SMTP server ${where} did not answer in time (${raw})`, true);
  }
  const described =
    causeCode === null
      ? code === 'ECONNECTION' && /closed/i.test(raw)
        ? 'dropped the connection'
        : undefined
      : CONNECTION_CODES[causeCode];
  if (described !== undefined) {
    return fail(`the SMTP server ${where} ${described} (${causeCode ?? raw})`, true);
  }
  if (code === 'EMESSAGE' || code === 'EENVELOPE') {
    // A message nodemailer could not even compose or address: sending it again changes nothing.
    return fail(`the message could not be sent: ${raw}`, false);
  }
  // TLS, protocol and anything else about the connection: worth another try later.
  return fail(`sending through ${where} failed: ${raw}`, true);
}

const SYSTEM_CODE =
  /\b(ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT)\b/;

/** The system error code (ECONNREFUSED …) of a socket failure, wherever nodemailer put it. */
function errnoOf(err: unknown, depth = 0): string | null {
  if (typeof err !== 'object' || err === null || depth > 3) return null;
  const { originalCode, code } = err as { originalCode?: unknown; code?: unknown };
  for (const c of [originalCode, code]) if (typeof c === 'string' && SYSTEM_CODE.test(c)) return c;
  const m = SYSTEM_CODE.exec(err instanceof Error ? err.message : '');
  if (m?.[1] !== undefined) return m[1];
  return 'cause' in err ? errnoOf(err.cause, depth + 1) : null;
}

/**
 * The bytes a text part takes as nodemailer sends it: 7bit when it is plain ASCII with short lines, else
 * quoted-printable or base64, chosen by nodemailer's own rule (more Latin letters than other bytes: QP).
 * What Gmail's 102 KB clip counts is the message as received, so the email is measured encoded.
 */
export function encodedTextBytes(text: string): number {
  const bytes = Buffer.byteLength(text, 'utf8');
  // eslint-disable-next-line no-control-regex
  const ascii = !/[^\x09\x0a\x0d\x20-\x7e]/.test(text);
  if (ascii && !text.split(/\r?\n/).some((line) => line.length > 76)) return bytes;
  let latin = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x08 || code === 0x0b || code === 0x0c || (code >= 0x0e && code <= 0x1f) || code >= 0x80)
      other++;
    else if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) latin++;
  }
  if (other < latin) return qpWrap(qpEncode(text)).length;
  const encoded = Math.ceil(bytes / 3) * 4;
  return encoded + Math.ceil(encoded / 76) * 2;
}
