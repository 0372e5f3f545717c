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
 * - the path after a route whose next segment is a secret token (TOKEN_PATHS: an invitation, a one-click
 *   unsubscribe link, a digest's action link), found however the path spells it: the route's name in any
 *   case or percent-encoding, after or before any number of slashes (`//invite/T`, `/invite//T`), an
 *   encoded slash (`invite%2FT`), a backslash, or `.` and `..` segments. Every non-empty segment after it
 *   is redacted, so a token followed by anything (`/T/x`, `/T%`) goes too.
 *
 * A request's own address (redactRequestUrl: the request log, `req`) also loses every piece between
 * separators (`/ ? & ; # =`) that holds a run of 43 or more letters, digits, `-` or `_` once
 * percent-decoded: the shape of every Tidings token (256 bits of base64url), wherever a client put it. No
 * address of Tidings has such a piece otherwise. Other URLs (a feed's, a page's) keep theirs: a long slug
 * is not a secret there.
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

/** A request's target (its path and query, or an absolute URL) fit for logs: redactUrl and token shapes. */
export function redactRequestUrl(url: string): string {
  return redactTokenShapes(redactUrl(url));
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
  // An absolute URL's path starts with its host, which names no route.
  return head + redactPath(url.slice(rest, pairsAt), scheme !== null) + redactPairs(url.slice(pairsAt));
}

/**
 * Text that may quote URLs (an error's message or stack): each URL in it redacted (a bare path too: it may
 * be a request's), and any key.
 */
export function redactText(text: string): string {
  return text
    .replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+|\/[^\s"'<>`]*/gi, (url) => redactUrl(url))
    .replace(KEY_SHAPES, REDACTED);
}

function redactPath(raw: string, fromHost: boolean): string {
  const path = redactTokenRoute(raw, fromHost);
  if (!/tdg_|%/i.test(path)) return path;
  return path
    .split('/')
    .map((segment) => (KEY_SHAPE.test(decode(segment)) ? REDACTED : segment))
    .join('/');
}

/**
 * The routes whose next path segment is a secret token, links that need no sign-in: an invitation
 * (`/invite/T`), a one-click unsubscribe link (`/unsubscribe/T`), a digest's action link
 * (`/digest-actions/T`, the reading list's too). The digest token and API keys travel in the query, under
 * secret names (`token`, `action_token`, `apiKey`, `api_key`).
 */
const TOKEN_PATHS = new Set(['invite', 'unsubscribe', 'digest-actions']);
const TOKEN_ROUTE_WORD = /invite|unsubscribe|digest-actions/i;

/**
 * The path with every non-empty segment after a TOKEN_PATHS route redacted, when the route is the path's
 * first segment as a server could read it: each raw segment percent-decoded (`+` too), cut again at `/` and
 * `\`, empty and `.` parts skipped, `..` taking the last part back. A raw segment that holds the route and
 * more (`invite%2FT`) is redacted whole. `fromHost`: the first raw segment is an absolute URL's host.
 */
function redactTokenRoute(path: string, fromHost: boolean): string {
  // Most paths are plain and name none of the routes: nothing to resolve.
  if (!/[%+\\]/.test(path) && !TOKEN_ROUTE_WORD.test(path)) return path;
  const segments = path.split('/');
  /** The parts of the path as resolved so far: each with the raw segment it is in, and whether it ends it. */
  const resolved: { part: string; segment: number; last: boolean }[] = [];
  for (let i = fromHost ? 1 : 0; i < segments.length; i++) {
    const raw = segments[i] ?? '';
    if (raw === '') continue;
    const parts = decode(raw).split(/[/\\]/);
    parts.forEach((part, p) => {
      const word = part.trim();
      if (word === '' || word === '.') return;
      if (word === '..') resolved.pop();
      else resolved.push({ part: word, segment: i, last: parts.slice(p + 1).every((x) => x.trim() === '') });
    });
  }
  const route = resolved[0];
  if (route === undefined || !TOKEN_PATHS.has(route.part.toLowerCase())) return path;
  return segments
    .map((raw, i) => {
      const after = i > route.segment || (i === route.segment && !route.last);
      return after && raw !== '' ? REDACTED : raw;
    })
    .join('/');
}

/** A run of a token's characters as long as a Tidings token (43: 256 bits of base64url) or longer. */
const TOKEN_SHAPE = /[A-Za-z0-9_-]{43,}/;

/** Each piece of the URL between `/ ? & ; # =` that holds TOKEN_SHAPE, percent-decoded, as [redacted]. */
function redactTokenShapes(url: string): string {
  // A decoded run of 43 comes from a raw run at least as long, of these (a `%XX` decodes to one).
  if (!/[A-Za-z0-9_%-]{43,}/.test(url)) return url;
  return url.replace(/[^/?&;#=]+/g, (piece) => (TOKEN_SHAPE.test(decode(piece)) ? REDACTED : piece));
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
