import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import type { Worker } from '../lib/workers.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';
import {
  type IngestOutcome,
  type NewsletterDeps,
  accountForAddress,
  ingestMessage,
  overDailyLimit,
} from './ingest.js';
import { MAX_RECIPIENTS } from './limits.js';

/**
 * The SMTP way in (docs/newsletters.md, "SMTP"): `serve` and `worker` listen when
 * TIDINGS_INBOUND_SMTP_PORT is set, as a mail exchanger (an MX record points at it) or behind one. No
 * login: mail is taken only for the accounts' own addresses. Each conversation's answers:
 *
 * - RCPT TO: 550 for an address that is no account's (refused there: Tidings never sends a bounce), 452
 *   for an account past its daily limit (TIDINGS_INBOUND_DAILY_LIMIT; the sender tries again later) or
 *   past MAX_RECIPIENTS recipients, 451 when the database cannot answer.
 * - MAIL FROM with a SIZE over TIDINGS_INBOUND_MAX_BYTES (advertised in EHLO): 552; a message that turns
 *   out larger while it streams is counted, not kept, and refused with 552 at its end.
 * - The message's end: 250 only once ingestMessage resolved, that is every account's transaction has
 *   committed (kill -9 before then loses nothing the sender was told it had); the pipeline's refusals as
 *   5xx (malformed, Tidings' own mail) or 4xx (the daily limit, a full queue, a database away).
 *
 * STARTTLS is offered with the configured certificate only (TIDINGS_INBOUND_SMTP_CERT and _KEY): without
 * one the command is not there rather than offered with a certificate nobody can check.
 */

export interface SmtpListenOptions {
  host: string;
  /** 0: any free port (see `port` of the result). */
  port: number;
  /** PEM files of the certificate STARTTLS offers; null: no STARTTLS. */
  tls: { certFile: string; keyFile: string } | null;
}

export interface SmtpInbound extends Worker {
  /** The port it listens on. */
  port: number;
}

/** Conversations at once in one process; more wait for the socket's backlog. */
const MAX_CLIENTS = 200;
/** A conversation silent this long is closed. */
const SOCKET_TIMEOUT_MS = 60_000;

type Reply = { code: number; message: string };

const AT_DATA: Record<Exclude<IngestOutcome, 'stored' | 'duplicate'>, (reason: string) => Reply> = {
  'no-such-recipient': (reason) => ({ code: 550, message: `5.1.1 ${reason}` }),
  'too-large': (reason) => ({ code: 552, message: `5.3.4 ${reason}` }),
  malformed: (reason) => ({ code: 550, message: `5.6.0 the message cannot be read: ${reason}` }),
  'our-own-mail': (reason) => ({ code: 550, message: `5.7.1 mail loop: ${reason}` }),
  'over-daily-limit': (reason) => ({ code: 451, message: `4.2.2 ${reason}` }),
  'queue-full': (reason) => ({ code: 452, message: `4.2.2 ${reason}` }),
};

const TRY_LATER: Reply = { code: 451, message: '4.3.0 cannot store the message just now; try again later' };

function smtpError({ code, message }: Reply): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/** Listens for mail; resolves once it listens. stop() closes it (open conversations get a few seconds). */
export async function startSmtpInbound(
  deps: NewsletterDeps,
  options: SmtpListenOptions,
): Promise<SmtpInbound> {
  const tls =
    options.tls === null
      ? null
      : await Promise.all([readFile(options.tls.certFile), readFile(options.tls.keyFile)]).then(
          ([cert, key]) => ({ cert, key }),
          (err: unknown) => {
            throw new Error(
              `cannot read TIDINGS_INBOUND_SMTP_CERT or TIDINGS_INBOUND_SMTP_KEY: ${(err as Error).message}`,
            );
          },
        );
  const log = deps.log;
  const server = new SMTPServer({
    banner: 'Tidings takes newsletters in',
    logger: false,
    size: deps.inbound.maxBytes,
    authOptional: true,
    disabledCommands: tls === null ? ['AUTH', 'STARTTLS'] : ['AUTH'],
    ...(tls ?? {}),
    maxClients: MAX_CLIENTS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    closeTimeout: 5000,
    disableReverseLookup: true,
    onRcptTo: (address: SMTPServerAddress, session: SMTPServerSession, callback) => {
      recipient(deps, address.address, session.envelope.rcptTo.length).then(
        (reply) => callback(reply === null ? null : smtpError(reply)),
        (err: unknown) => {
          logFailure(deps, err, 'inbound smtp: recipient check failed');
          callback(smtpError(TRY_LATER));
        },
      );
    },
    onData: (stream, session, callback) => {
      const recipients = session.envelope.rcptTo.map((r) => r.address);
      message(deps, stream, recipients).then(
        (reply) => {
          if (reply.code === 250) callback(null, reply.message);
          else callback(smtpError(reply));
        },
        (err: unknown) => {
          logFailure(deps, err, 'inbound smtp: message not stored');
          callback(smtpError(TRY_LATER));
        },
      );
    },
  });
  // A client's broken connection is the server's 'error': recorded, never the process's end.
  server.on('error', (err: Error) => {
    log.debug({ err }, 'inbound smtp: connection error');
  });
  server.listen(options.port, options.host);
  await Promise.race([
    once(server.server, 'listening'),
    once(server, 'error').then(([err]) => {
      throw err as Error;
    }),
  ]);
  const port = (server.server.address() as AddressInfo).port;
  log.info({ host: options.host, port, starttls: tls !== null }, 'inbound smtp listening');
  return {
    name: 'inbound smtp',
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

function logFailure(deps: NewsletterDeps, err: unknown, message: string): void {
  if (isDatabaseUnavailable(err)) deps.log.warn({ err }, `${message}: the database is unavailable`);
  else deps.log.error({ err }, message);
}

/** RCPT TO: null to take the address, else the refusal. */
async function recipient(deps: NewsletterDeps, address: string, taken: number): Promise<Reply | null> {
  if (taken >= MAX_RECIPIENTS) {
    return { code: 452, message: `4.5.3 at most ${MAX_RECIPIENTS} recipients a message` };
  }
  const accountId = await accountForAddress(deps, address);
  if (accountId === null) return { code: 550, message: '5.1.1 no such recipient here' };
  if (await overDailyLimit(deps, accountId)) {
    return {
      code: 452,
      message: `4.2.2 this address took in ${deps.inbound.dailyLimit} messages in the last 24 hours, its limit; try again later`,
    };
  }
  return null;
}

/** The message's bytes, counted as they stream; null once past `maxBytes` (the rest is read, not kept). */
async function collect(
  stream: Readable & { sizeExceeded?: boolean },
  maxBytes: number,
): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    bytes += buffer.byteLength;
    if (bytes <= maxBytes) chunks.push(buffer);
    else chunks.length = 0;
  }
  return bytes > maxBytes || stream.sizeExceeded === true ? null : Buffer.concat(chunks, bytes);
}

/** DATA: the whole message to the pipeline; 250 once it is committed. */
async function message(deps: NewsletterDeps, stream: Readable, recipients: string[]): Promise<Reply> {
  const { maxBytes } = deps.inbound;
  const raw = await collect(stream, maxBytes);
  if (raw === null) {
    deps.log.info({ via: 'smtp', outcome: 'too-large' }, 'inbound message');
    return AT_DATA['too-large'](`the message is larger than ${maxBytes.toLocaleString('en')} bytes`);
  }
  const result = await ingestMessage(deps, raw, { recipients, via: 'smtp' });
  if (result.outcome === 'stored' || result.outcome === 'duplicate') {
    return { code: 250, message: `2.0.0 ${result.reason}` };
  }
  if (result.outcome === 'malformed' || result.outcome === 'our-own-mail') {
    deps.log.info({ via: 'smtp', outcome: result.outcome, reason: result.reason }, 'inbound message refused');
  }
  return AT_DATA[result.outcome](result.reason);
}
