import { createHash } from 'node:crypto';
import type { Address, Email } from 'postal-mime';
import { LOOP_HEADER } from '../lib/mailLoop.js';
import { foldWhitespace, truncate } from '../lib/text.js';
import { type NewsletterBody, newsletterBody } from './body.js';
import {
  MAX_ATTACHMENT_NAME,
  MAX_ATTACHMENT_NAMES,
  MAX_HEADER_BYTES,
  MAX_MESSAGE_ID_CHARS,
  MAX_MIME_DEPTH,
  MAX_NAME_CHARS,
  MAX_RECIPIENTS,
  MAX_SUBJECT_CHARS,
  MAX_UNSUBSCRIBE_CHARS,
} from './limits.js';

/**
 * One raw message (RFC 5322 bytes) read into what the pipeline keeps of it, in the parsing thread
 * (parseWorker.ts): postal-mime under the limits of limits.ts, then the body made once (body.ts). Chosen
 * over mailparser on a hostile corpus (bench/newsletters-parse.ts, BENCHMARKS.md "Newsletters"): half the
 * time on real newsletters and on a 10 MB attachment, bounds of its own on MIME depth and header bytes,
 * which mailparser lacks (it read 2,000 nested parts, and a 1 MB header lost it the Subject), no
 * dependencies. Pure and total: any input gives a message or the reason it is malformed.
 */

export interface ParsedMessage {
  /** The From mailbox: the address lower-cased; the display name folded, or null. */
  from: { address: string; name: string | null };
  /** The addresses of To, Cc, Delivered-To and X-Original-To, lower-cased, without repeats. */
  recipients: string[];
  /** Folded and capped; '' when there is none. */
  subject: string;
  /** The Date header as ISO UTC; null when missing or unreadable. */
  date: string | null;
  /** Without angle brackets, capped; null when missing. */
  messageId: string | null;
  listUnsubscribe: string | null;
  listUnsubscribePost: string | null;
  /** It carries Tidings' own loop header (lib/mailLoop.ts): mail Tidings sent. */
  ours: boolean;
  body: NewsletterBody;
  /** Attachment names (not their content), at most MAX_ATTACHMENT_NAMES. */
  attachments: string[];
  /** What the message is the same as: `mid:` and a hash of its Message-ID, else `sum:` and one of its content. */
  dedupeKey: string;
}

export type ParseResult = { message: ParsedMessage } | { malformed: string };

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** An address as kept: trimmed, lower-cased; null when it is not one (no @, too long, spaces). */
export function normaliseAddress(value: string | undefined): string | null {
  const address = (value ?? '').trim().toLowerCase();
  if (address.length > 253 || !/^[^\s@<>]+@[^\s@<>]+$/.test(address)) return null;
  return address;
}

/** A header's text folded and cut; null when empty. */
function headerText(value: string | undefined, limit: number): string | null {
  if (value === undefined) return null;
  const text = foldWhitespace(value);
  return text === '' ? null : truncate(text, limit);
}

function mailboxes(list: readonly Address[] | undefined): string[] {
  return (list ?? []).flatMap((a) => (a.group === undefined ? [a.address] : a.group.map((m) => m.address)));
}

/** The Date header as ISO UTC, when it reads as a time between 1990 and 2200. */
function dateOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return null;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1990 && year <= 2200 ? new Date(ms).toISOString() : null;
}

/** Parses a raw message; never throws (a failure of the parser is the message's malformation). */
export async function parseMessage(raw: Uint8Array): Promise<ParseResult> {
  const { default: PostalMime, addressParser } = await import('postal-mime');
  let email: Email;
  try {
    email = await PostalMime.parse(raw, {
      maxNestingDepth: MAX_MIME_DEPTH,
      maxHeadersSize: MAX_HEADER_BYTES,
      // Attachments are not kept: their bytes are decoded once and dropped.
      attachmentEncoding: 'arraybuffer',
    });
  } catch (err) {
    return { malformed: `the message cannot be read: ${err instanceof Error ? err.message : String(err)}` };
  }
  const header = (name: string): string | undefined => email.headers.find((h) => h.key === name)?.value;
  const from = email.from?.group === undefined ? email.from : email.from.group[0];
  const fromAddress = normaliseAddress(from?.address);
  if (fromAddress === null) return { malformed: 'the message has no From address' };
  const extra = ['delivered-to', 'x-original-to'].flatMap((name) =>
    email.headers
      .filter((h) => h.key === name)
      .flatMap((h) => mailboxes(addressParser(h.value, { flatten: true }))),
  );
  const recipients = [
    ...new Set(
      [...mailboxes(email.to), ...mailboxes(email.cc), ...extra].flatMap((a) => normaliseAddress(a) ?? []),
    ),
  ].slice(0, MAX_RECIPIENTS);
  const attachments = email.attachments
    .filter((a) => a.disposition === 'attachment' || (a.filename !== null && a.filename !== ''))
    .map((a) => headerText(a.filename ?? undefined, MAX_ATTACHMENT_NAME) ?? `unnamed (${a.mimeType})`);
  const listed =
    attachments.length > MAX_ATTACHMENT_NAMES
      ? [
          ...attachments.slice(0, MAX_ATTACHMENT_NAMES),
          `and ${attachments.length - MAX_ATTACHMENT_NAMES} more`,
        ]
      : attachments;
  const subject = headerText(email.subject, MAX_SUBJECT_CHARS) ?? '';
  const body = newsletterBody({ html: email.html ?? null, text: email.text ?? null }, listed);
  const messageId = headerText(email.messageId?.replace(/^\s*<|>\s*$/g, ''), MAX_MESSAGE_ID_CHARS);
  return {
    message: {
      from: { address: fromAddress, name: headerText(from?.name, MAX_NAME_CHARS) },
      recipients,
      subject,
      date: dateOf(email.date ?? header('date')),
      messageId,
      listUnsubscribe: headerText(header('list-unsubscribe'), MAX_UNSUBSCRIBE_CHARS),
      listUnsubscribePost: headerText(header('list-unsubscribe-post'), MAX_UNSUBSCRIBE_CHARS),
      ours: header(LOOP_HEADER.toLowerCase()) !== undefined,
      body,
      attachments: listed,
      dedupeKey:
        messageId !== null
          ? `mid:${sha256(messageId)}`
          : `sum:${sha256(`${fromAddress}\n${subject}\n${body.text ?? ''}`)}`,
    },
  };
}
