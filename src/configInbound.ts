import * as z from 'zod';
import { type ConfigFacts, type ConfigProblem, EXPECTED } from './configProblems.js';

/**
 * The settings of newsletters' SMTP and IMAP ways in (docs/newsletters.md, "Running the ways in"): part of
 * config.ts's schema, in a file of their own by size. Both are off unless their variable is set.
 */

/** Where `serve` and `worker` listen for mail, and the certificate STARTTLS offers (null: no STARTTLS). */
export interface InboundSmtpConfig {
  host: string;
  /** 0: any free port (the "inbound smtp listening" log line says which). */
  port: number;
  tls: { certFile: string; keyFile: string } | null;
}

/** The mailbox the IMAP watcher reads (its password: never log it). */
export interface InboundImapConfig {
  secure: boolean;
  host: string;
  port: number;
  user: string;
  pass: string;
  mailbox: string;
}

const IMAP_EXPECTED = EXPECTED.imapUrl;

/** TIDINGS_INBOUND_IMAP_URL: imap(s)://user:pass@host[:port]/MAILBOX, INBOX when no mailbox is named. */
const imapUrlFromEnv = z.string().transform((raw, ctx): InboundImapConfig => {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    ctx.addIssue({ code: 'custom', message: IMAP_EXPECTED });
    return z.NEVER;
  }
  const secure = url.protocol === 'imaps:';
  if ((!secure && url.protocol !== 'imap:') || url.hostname === '' || url.username === '') {
    ctx.addIssue({ code: 'custom', message: IMAP_EXPECTED });
    return z.NEVER;
  }
  let user: string;
  let pass: string;
  let mailbox: string;
  try {
    user = decodeURIComponent(url.username);
    pass = decodeURIComponent(url.password);
    mailbox = decodeURIComponent(url.pathname.replace(/^\/+/, '').replace(/\/+$/, ''));
  } catch {
    ctx.addIssue({
      code: 'custom',
      message: `a part is not valid percent-encoding; ${IMAP_EXPECTED}`,
      params: { facts: { reason: 'imap_encoding' } satisfies ConfigFacts },
    });
    return z.NEVER;
  }
  return {
    secure,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? (secure ? 993 : 143) : Number(url.port),
    user,
    pass,
    mailbox: mailbox === '' ? 'INBOX' : mailbox,
  };
});

export const inboundFields = {
  TIDINGS_INBOUND_SMTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  TIDINGS_INBOUND_SMTP_HOST: z.string().min(1).optional(),
  TIDINGS_INBOUND_SMTP_CERT: z.string().min(1).optional(),
  TIDINGS_INBOUND_SMTP_KEY: z.string().min(1).optional(),
  TIDINGS_INBOUND_IMAP_URL: imapUrlFromEnv.optional(),
};

type InboundFields = z.output<z.ZodObject<typeof inboundFields>>;

/** The SMTP and IMAP settings; a problem (a certificate without its key, say) with its facts. */
export function inboundWays(
  c: InboundFields,
  host: string,
): { smtp: InboundSmtpConfig | null; imap: InboundImapConfig | null } | { problem: ConfigProblem } {
  const cert = c.TIDINGS_INBOUND_SMTP_CERT;
  const key = c.TIDINGS_INBOUND_SMTP_KEY;
  if ((cert === undefined) !== (key === undefined)) {
    return {
      problem: {
        variable: 'TIDINGS_INBOUND_SMTP_CERT, TIDINGS_INBOUND_SMTP_KEY',
        message: 'set both (PEM files) to offer STARTTLS, or neither',
        facts: { reason: 'both_or_neither', other: 'STARTTLS' },
      },
    };
  }
  const port = c.TIDINGS_INBOUND_SMTP_PORT;
  return {
    smtp:
      port === undefined
        ? null
        : {
            host: c.TIDINGS_INBOUND_SMTP_HOST ?? host,
            port,
            tls: cert === undefined || key === undefined ? null : { certFile: cert, keyFile: key },
          },
    imap: c.TIDINGS_INBOUND_IMAP_URL ?? null,
  };
}
