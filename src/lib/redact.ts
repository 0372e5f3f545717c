/**
 * The one rule for secrets in what Tidings logs. A URL keeps its shape, and loses:
 *
 * - the password of its user info (`scheme://user:[redacted]@host`; the user name stays). The user info ends
 *   at the last `@` before the path, so a raw `@` in the password is redacted with the rest;
 * - the value of every query parameter whose name is a secret (see `isSecretName`), however the name is
 *   spelled: percent-encoded (also twice), in any case, with a suffix or prefix (`apiKey[]`, `api_key[a]`,
 *   `apiKey%00`, `x-api-key`). Parameters are read after the first `?`, `#` or `;`, split at any of
 *   `& ; ? #`, so a second `?` or a `;` does not hide one;
 * - anything shaped like a Tidings API key (`tdg_` and hex), in the path or under any parameter name;
 * - the token of a one-click unsubscribe link or of a digest's action link, the path segment after
 *   `/unsubscribe/` or `/digest-actions/`.
 */
const REDACTED = '[redacted]';

/** Words of a parameter name that make it a secret. */
const SECRET_WORDS = new Set([
  'key',
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'pass',
  'pwd',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'signature',
  'sig',
  'session',
  'sid',
  'jwt',
  'bearer',
]);

/** Endings that make a word secret too: accesstoken, clientsecret, sslpassword, xapikey, jsessionid… */
const SECRET_ENDINGS = [
  'token',
  'secret',
  'password',
  'passwd',
  'apikey',
  'accesskey',
  'privatekey',
  'secretkey',
  'sessionid',
];

/** A Tidings API key, or a long enough part of one to matter. */
const KEY_SHAPE = /tdg_[0-9a-f]{12,}/i;
const KEY_SHAPES = /tdg_[0-9a-f]{12,}/gi;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const PAIR = /[^&;?#]+/g;

/**
 * Whether a query parameter name names a secret: percent-decoded (up to three times), `+` read as a
 * space, Unicode compatibility forms folded (NFKC) and lower-cased, then cut into words at every character
 * that is not a letter or digit; secret when a word is one of SECRET_WORDS or ends with one of
 * SECRET_ENDINGS. So `apiKey`, `APIKEY`, `api_key[a]`, `x-api-key`, `access_token`, `password`, `pwd` and
 * `sslpassword` are secrets; `tokens`, `keyword` and `monkey` are not.
 */
function isSecretName(name: string): boolean {
  for (const word of decode(name)
    .toLowerCase()
    .split(/[^a-z0-9]+/)) {
    if (word === '') continue;
    if (SECRET_WORDS.has(word) || SECRET_ENDINGS.some((ending) => word.endsWith(ending))) return true;
  }
  return false;
}

/** A URL (absolute, or a request's path and query) fit for logs; see the top of this file. */
export function redactUrl(url: string): string {
  const scheme = SCHEME.exec(url);
  let head = '';
  let rest = 0;
  if (scheme !== null) {
    rest = scheme[0].length;
    head = url.slice(0, rest);
    const at = url.lastIndexOf('@', firstOf(url, '/?#', rest) - 1);
    if (at >= rest) {
      const info = url.slice(rest, at);
      const colon = info.indexOf(':');
      head += colon === -1 ? info : `${info.slice(0, colon)}:${REDACTED}`;
      rest = at;
    }
  }
  const pairsAt = firstOf(url, '?#;', rest);
  return head + redactPath(url.slice(rest, pairsAt)) + redactPairs(url.slice(pairsAt));
}

/** Text that may quote URLs (an error's message or stack): each URL in it redacted, and any key. */
export function redactText(text: string): string {
  return text
    .replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+|\/[^\s"'<>`]*[?#;][^\s"'<>`]*/gi, (url) => redactUrl(url))
    .replace(KEY_SHAPES, REDACTED);
}

function redactPath(raw: string): string {
  const path = redactUnsubscribeToken(raw);
  if (!/tdg_|%/i.test(path)) return path;
  return path
    .split('/')
    .map((segment) => (KEY_SHAPE.test(decode(segment)) ? REDACTED : segment))
    .join('/');
}

/** The first path segments whose next segment is a secret token: email links that need no sign-in. */
const TOKEN_PATHS = new Set(['unsubscribe', 'digest-actions']);

/** `/unsubscribe/TOKEN…` (however `unsubscribe` is spelled) as `/unsubscribe/[redacted]…`; the same for TOKEN_PATHS. */
function redactUnsubscribeToken(path: string): string {
  const segments = path.split('/');
  // The first segment is empty (a request's path) or the host (an absolute URL's).
  const [, first, token] = segments;
  if (first === undefined || token === undefined || token === '') return path;
  if (!TOKEN_PATHS.has(decode(first).toLowerCase())) return path;
  segments[2] = REDACTED;
  return segments.join('/');
}

function redactPairs(pairs: string): string {
  if (pairs === '') return pairs;
  return pairs.replace(PAIR, (pair) => {
    const eq = pair.indexOf('=');
    const name = eq === -1 ? pair : pair.slice(0, eq);
    if (isSecretName(name)) return `${name}=${REDACTED}`;
    if (KEY_SHAPE.test(decode(eq === -1 ? pair : pair.slice(eq + 1)))) {
      return eq === -1 ? REDACTED : `${name}=${REDACTED}`;
    }
    return pair;
  });
}

/** Percent-decoding as a server might (once, or again), never failing: bad UTF-8 decodes byte by byte. */
function decode(text: string): string {
  let out = text.replace(/\+/g, ' ');
  for (let round = 0; round < 3 && out.includes('%'); round++) {
    let next: string;
    try {
      next = decodeURIComponent(out);
    } catch {
      next = out.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
    if (next === out) break;
    out = next;
  }
  // eslint-disable-next-line no-control-regex
  return /[^\x00-\x7f]/.test(out) ? out.normalize('NFKC') : out;
}

/** The index of the first of `chars` in `text` from `from`, or the text's length. */
function firstOf(text: string, chars: string, from: number): number {
  for (let i = from; i < text.length; i++) if (chars.includes(text.charAt(i))) return i;
  return text.length;
}
