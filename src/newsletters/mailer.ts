/**
 * What the newsletters' pipeline sends mail through: the instance's SMTP mailer (digest/mail.ts
 * createMailer, handed in by the transports: pipelines do not import each other), seen only as this. A
 * send rejects when the server refused or could not be reached; `temporary` (when set) says whether a later
 * attempt may succeed. Every message it sends carries Tidings' loop header (lib/mailLoop.ts), so that a
 * forward or an unsubscribe that comes back to an inbound address is never taken in.
 */
export interface NewsletterMailer {
  send(message: {
    /** One bare address. */
    to: string;
    subject: string;
    /** '' for a text-only message. */
    html: string;
    text: string;
    messageId: string;
  }): Promise<unknown>;
}

/** The From domain of TIDINGS_MAIL_FROM, for the Message-IDs Tidings makes. */
export function mailDomain(mailFrom: string | null): string {
  return /@([^\s@<>]+)>?\s*$/.exec(mailFrom ?? '')?.[1] ?? 'tidings.invalid';
}

/** Why a send failed, in plain words. */
export const sendFailure = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Whether a failed send may succeed later (a MailError says; anything else is taken as temporary). */
export const temporaryFailure = (err: unknown): boolean =>
  !(typeof err === 'object' && err !== null && 'temporary' in err && err.temporary === false);
