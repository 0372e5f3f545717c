import { type ErrorKind, TidingsError } from '../../errors.js';
import { type Locale, localeOf } from '../../i18n/locale.js';

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
 * database), which the caller rethrows. Each kind is a message of the catalogue (`web.refusal.KIND`): the
 * kinds whose service message is written for a developer get plain words; the others say the service's
 * message (English: it comes from below the transports), made a sentence, in the language's frame.
 */
export function webRefusal(
  err: unknown,
  context: { queueLimit: number },
  locale: Locale = localeOf(null),
): WebRefusal | null {
  if (!(err instanceof TidingsError)) return null;
  return { status: STATUS[err.kind], message: plainWords(err, context, locale) };
}

function plainWords(err: TidingsError, { queueLimit }: { queueLimit: number }, locale: Locale): string {
  switch (err.kind) {
    case 'url_missing':
      return locale.t('web.refusal.url_missing');
    case 'url_invalid':
      return locale.t('web.refusal.url_invalid');
    case 'url_too_long':
      return locale.t('web.refusal.url_too_long');
    case 'title_invalid':
      return locale.t('web.refusal.title_invalid');
    case 'queue_full':
      return locale.t('web.refusal.queue_full', { limit: queueLimit });
    case 'limit_reached':
      return locale.t('web.refusal.limit_reached', { detail: sentence(err.message) });
    case 'account_gone':
      return locale.t('web.refusal.account_gone', { detail: sentence(err.message) });
    case 'invalid_input':
      return locale.t('web.refusal.invalid_input', { detail: sentence(err.message) });
    case 'email_taken':
      return locale.t('web.refusal.email_taken', { detail: sentence(err.message) });
    case 'not_found':
      return locale.t('web.refusal.not_found', { detail: sentence(err.message) });
    case 'source_failed':
      return locale.t('web.refusal.source_failed', { detail: sentence(err.message) });
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
