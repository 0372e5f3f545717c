import { isIPv4, isIPv6 } from 'node:net';

/*
 * The one rule for an e-mail address Tidings accepts (an account's address, from the CLI and the web's
 * Settings alike, and TIDINGS_MAIL_FROM): what an SMTP envelope carries, RFC 5321's Mailbox, so that an
 * address accepted here is not refused by the mail server at every send.
 *
 * - local part: a dot-atom (letters, digits and !#$%&'*+-/=?^_`{|}~, in dot-separated runs) or a quoted
 *   string ("a,b", "x;y:z"); at most 64 octets;
 * - domain: dot-separated labels of letters, digits and hyphens (not at a label's ends, at most 63
 *   characters each), at least two, the last not all digits; or an address literal, [192.0.2.1] or
 *   [IPv6:2001:db8::1];
 * - at most 253 characters in all.
 *
 * Stricter than the RFC in four ways, each something SMTP software commonly refuses (the smtp-server
 * package answers 501 Bad recipient address syntax): at most 253 characters, not 254 (the 256 octets of
 * an SMTP path less its angle brackets), as smtp-server counts the path; ASCII only (no SMTPUTF8: write an
 * internationalised domain in its xn-- form); no space, angle bracket, @ or two dots in a row even inside
 * quotes; no empty quoted local part. A space, an angle bracket, a comma or a control character outside
 * quotes never passes, so "x<a@evil.test>" or "a@b, c@d" is never taken for one address.
 */

/** The longest address accepted. */
export const EMAIL_MAX_LENGTH = 253;
/** The longest local part (before the @), in octets. */
export const LOCAL_PART_MAX_LENGTH = 64;

const ATEXT = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~]";
const DOT_ATOM = new RegExp(`^${ATEXT}+(?:\\.${ATEXT}+)*$`);
/** qtextSMTP (printable ASCII but " and \) and quoted pairs, less space, <, > and @. */
const QUOTED = /^"(?:[!#-;=?A-[\]-~]|\\[!-;=?A-~])+"$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const PRINTABLE_ASCII = /^[!-~]*$/;

/** Why `address` is not an address Tidings accepts, in a few words; null when it is one. */
export function emailAddressProblem(address: string): string | null {
  if (address.length > EMAIL_MAX_LENGTH) return `longer than ${EMAIL_MAX_LENGTH} characters`;
  if (!PRINTABLE_ASCII.test(address)) {
    return 'spaces, control characters and non-ASCII characters are not allowed';
  }
  const at = address.lastIndexOf('@');
  if (at === -1) return 'no @';
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local === '') return 'nothing before the @';
  if (local.length > LOCAL_PART_MAX_LENGTH)
    return `more than ${LOCAL_PART_MAX_LENGTH} characters before the @`;
  if (!DOT_ATOM.test(local) && !(QUOTED.test(local) && !local.includes('..'))) {
    return local.includes('@')
      ? 'more than one @'
      : "the part before the @ has characters an address cannot have (such as <, >, a comma or '..')";
  }
  return domainProblem(domain);
}

/** Whether `address` is an e-mail address as Tidings accepts one (see above). */
export function isEmailAddress(address: string): boolean {
  return emailAddressProblem(address) === null;
}

function domainProblem(domain: string): string | null {
  if (domain === '') return 'nothing after the @';
  if (domain.startsWith('[')) {
    const literal = /^\[(?:IPv6:(.+)|(.+))\]$/i.exec(domain);
    const v6 = literal?.[1];
    const v4 = literal?.[2];
    if ((v6 !== undefined && isIPv6(v6)) || (v4 !== undefined && isIPv4(v4))) return null;
    return 'the address in [brackets] is not an IPv4 address or IPv6:address';
  }
  const labels = domain.split('.');
  if (labels.length < 2) return 'the domain needs a dot (example.org)';
  if (!labels.every((label) => LABEL.test(label))) {
    return 'the domain may only have letters, digits, hyphens and dots between them';
  }
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) {
    return 'the domain ends in a number (write an IP address in brackets: a@[192.0.2.1])';
  }
  return null;
}

/** A From address: an optional display name and the address. */
export interface Mailbox {
  /** "" when none was given. */
  name: string;
  address: string;
}

/**
 * A mailbox as an operator writes one: `digest@example.org`, `Tidings <digest@example.org>` or
 * `"Tidings, daily" <digest@example.org>`; null when the address breaks the rule above or the name has
 * control characters, angle brackets or stray quotes. The name is given to the mailer apart from the
 * address, which encodes it: a comma in it never makes a second address.
 */
export function parseMailbox(value: string): Mailbox | null {
  const text = value.trim();
  const m = /^(.*)<([^<>]*)>$/s.exec(text);
  const address = m === null ? text : (m[2] ?? '');
  const raw = m === null ? '' : (m[1] ?? '').trim();
  const quoted = /^"((?:[^"\\]|\\.)*)"$/s.exec(raw);
  const name = quoted === null ? raw : (quoted[1] ?? '').replace(/\\(.)/gs, '$1');
  if (quoted === null && raw.includes('"')) return null;
  if (/[\p{Cc}<>]/u.test(name)) return null;
  return isEmailAddress(address) ? { name, address } : null;
}
