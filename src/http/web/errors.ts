import { type ErrorKind, TidingsError } from '../../errors.js';

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
 * The one place where a domain error becomes the web page's message; null for anything else (a bug, the
 * database), which the caller rethrows. Kinds whose service message is written for a developer get plain
 * words; the others keep the service's message, made a sentence.
 */
export function webRefusal(err: unknown, context: { queueLimit: number }): WebRefusal | null {
  if (!(err instanceof TidingsError)) return null;
  return { status: STATUS[err.kind], message: plainWords(err, context) };
}

function plainWords(err: TidingsError, { queueLimit }: { queueLimit: number }): string {
  switch (err.kind) {
    case 'url_missing':
      return 'Enter the address of the page to save.';
    case 'url_invalid':
      return 'That is not the address of a web page. It must start with http:// or https://, like https://example.com/article.';
    case 'url_too_long':
      return 'That address is too long: at most 2,048 characters.';
    case 'title_invalid':
      return 'That title is too long: at most 1,000 characters.';
    case 'queue_full':
      return `Your queue is full: it holds ${queueLimit.toLocaleString('en')} links, the most it may. It empties when your next digest is built; removing links makes room now.`;
    default:
      return sentence(err.message);
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
