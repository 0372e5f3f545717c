/**
 * The header every message Tidings sends carries (digest/mail.ts: digests, e-reader copies, and whatever
 * else goes through its mailer), with the kind of message as its value. The newsletters' pipeline
 * (src/newsletters/ingest.ts) refuses any message that has it: mail Tidings sent, a digest forwarded back to
 * an inbound address say, is never taken in again, whichever instance sent it.
 */
export const LOOP_HEADER = 'X-Tidings-Loop';

/** Its value on the messages Tidings sends. */
export const LOOP_VALUE = 'sent-by-tidings';
