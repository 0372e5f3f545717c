/** Response headers as undici gives them: lower-case names, repeated ones as arrays. */
export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * A response header as one string: repeated field lines are joined with ", ", which is how HTTP says they
 * combine (RFC 9110 §5.3). Null when absent.
 */
export function header(headers: ResponseHeaders, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return typeof value === 'string' ? value : value.join(', ');
}

const IMF_FIXDATE = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC850_DATE = /^[A-Za-z]+, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * An HTTP date in any of the three forms RFC 9110 §5.6.7 requires recipients to read; null for anything
 * else. The shape is checked first because Date.parse alone reads far too much ("0" is the year 2000).
 */
export function parseHttpDate(value: string | null): Date | null {
  if (value === null) return null;
  const text = value.trim();
  let millis = NaN;
  if (IMF_FIXDATE.test(text) || RFC850_DATE.test(text)) millis = Date.parse(text);
  // asctime carries no zone; HTTP says it is GMT, Date.parse would take local time.
  else if (ASCTIME_DATE.test(text)) millis = Date.parse(`${text} GMT`);
  return Number.isNaN(millis) ? null : new Date(millis);
}

/** Retry-After (RFC 9110 §10.2.3) as seconds from `now`: either a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = parseHttpDate(text);
  if (date === null) return null;
  return Math.max(0, Math.ceil((date.getTime() - now.getTime()) / 1000));
}

/** The max-age directive of Cache-Control, in seconds (the token or quoted-string form); null without one. */
export function parseMaxAge(cacheControl: string | null): number | null {
  if (cacheControl === null) return null;
  for (const directive of cacheControl.split(',')) {
    const match = /^\s*max-age\s*=\s*"?(\d+)"?\s*$/i.exec(directive);
    if (match?.[1] !== undefined) return Number(match[1]);
  }
  return null;
}
