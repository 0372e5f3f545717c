import { type ErrorKind, TidingsError } from '../../errors.js';
import { type Locale, localeOf } from '../../i18n/locale.js';
import { MAX_TITLE_LENGTH, MAX_URL_LENGTH } from '../../queue/url.js';
import { refusalWords } from './refusals.js';

/** What the web app tells a reader when a form is refused: the HTTP status and the words on the page. */
export interface WebRefusal {
  status: number;
  message: string;
}

const STATUS: Record<ErrorKind, number> = {
  url_missing: 400,
  url_invalid: 400,
  url_too_long: 400,
  title_invalid: 400,
  queue_full: 409,
  limit_reached: 409,
  account_gone: 401,
  invalid_input: 400,
  email_taken: 409,
  not_found: 404,
  source_failed: 400,
};

/**
 * The one place where a domain error becomes the web page's message, in the reader's language (the
 * request's locale; the operator's default when a caller gives none); null for anything else (a bug, the
 * database), which the caller rethrows. Each kind is a message of the catalogue (`web.refusal.KIND`); an
 * error that carries its facts (src/errors.ts RefusalFacts) is worded from them (src/http/web/refusals.ts),
 * the limits as the check's own numbers. Without facts, an English page says the service's message made a
 * sentence (it is English, from below the transports); another language says what kind of refusal it is
 * (`web.refusal.unworded.KIND`), never the English detail.
 */
export function webRefusal(
  err: unknown,
  context: { queueLimit: number },
  locale: Locale = localeOf(null),
): WebRefusal | null {
  if (!(err instanceof TidingsError)) return null;
  return { status: STATUS[err.kind], message: plainWords(err, context, locale) };
}

/** The words of a refused file import (OPML, a reading list): its facts', or what kind of file it was not. */
export function fileRefusalWords(err: TidingsError, locale: Locale, english: () => string): string {
  if (err.facts !== undefined) return refusalWords(err.facts, locale);
  if (err.kind !== 'invalid_input') return plainWords(err, { queueLimit: 0 }, locale);
  return locale.lang === 'en' ? english() : locale.t('web.refusal.fileUnreadable');
}

function plainWords(err: TidingsError, { queueLimit }: { queueLimit: number }, locale: Locale): string {
  if (err.facts !== undefined) return refusalWords(err.facts, locale);
  switch (err.kind) {
    case 'url_missing':
      return locale.t('web.refusal.url_missing');
    case 'url_invalid':
      return locale.t('web.refusal.url_invalid');
    case 'url_too_long':
      return locale.t('web.refusal.url_too_long', { max: MAX_URL_LENGTH });
    case 'title_invalid':
      return locale.t('web.refusal.title_invalid', { max: MAX_TITLE_LENGTH });
    case 'queue_full':
      return locale.t('web.refusal.queue_full', { limit: queueLimit });
    case 'email_taken':
      return locale.t('web.refusal.emailTaken');
    case 'account_gone':
      return locale.t('web.refusal.accountGone');
    case 'limit_reached':
    case 'invalid_input':
    case 'not_found':
    case 'source_failed':
      return locale.lang === 'en'
        ? locale.t(`web.refusal.${err.kind}`, { detail: sentence(err.message) })
        : locale.t(`web.refusal.unworded.${err.kind}`);
  }
}

/**
 * A message as a sentence: a capital first letter and a full stop. A message that starts with an address
 * (`http://…`) or a host name (`example.com`, `127.0.0.1`) keeps it as written: "Http://…" is not one.
 */
export const sentence = (message: string): string =>
  `${STARTS_WITH_ADDRESS.test(message) ? message : `${message.charAt(0).toUpperCase()}${message.slice(1)}`}${/[.!?]$/.test(message) ? '' : '.'}`;

/** A URL's scheme, or a dotted host name or IPv4 address, as the first word. */
const STARTS_WITH_ADDRESS = /^(?:[a-z][a-z0-9+.-]*:\/\/|[a-z0-9-]+(?:\.[a-z0-9-]+)+(?=[\s:/,;)]|$))/i;
