/**
 * fast-check arbitraries for whole HTTP requests at the saved-URL API, described printably (with the
 * key placeholders of valueArbitraries.ts) and rendered into Fastify inject options once the key is known.
 */
import http from 'node:http';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import {
  type Body,
  KEY,
  KEY_ENCODED,
  coherentContent,
  multipartOf,
  plausibleContent,
  queryPart,
  randomContent,
} from './valueArbitraries.js';

export const API_PATHS: readonly string[] = ['/api', '/api/v1/articles'];

export interface Req {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: Body | undefined;
  /** The client address: the invalid-key limiter counts per address. */
  remoteAddress: string;
}

const percentAll = (s: string): string =>
  [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');

export function withKey(s: string, key: string): string {
  return s.replaceAll(KEY_ENCODED, percentAll(key)).replaceAll(KEY, key);
}

export function renderRequest(req: Req, key: string): InjectOptions {
  const body = req.body;
  let payload: Buffer | undefined;
  if (body === undefined) payload = undefined;
  else if ('text' in body) payload = Buffer.from(withKey(body.text, key), body.encoding);
  else if ('bytes' in body) payload = Buffer.from(body.bytes);
  else {
    const head = body.form
      ? 'url=https%3A%2F%2Fbig.example%2F&pad='
      : '{"url":"https://big.example/","pad":"';
    const tail = body.form ? '' : '"}';
    payload = Buffer.from(head + 'x'.repeat(Math.max(0, body.padTo - head.length - tail.length)) + tail);
  }
  return {
    // The inject typings list only the common methods; at run time any method token goes through.
    method: req.method as InjectOptions['method'],
    url: withKey(req.path + req.query, key),
    headers: req.headers,
    remoteAddress: req.remoteAddress,
    ...(payload === undefined ? {} : { payload }),
  };
}

const methodArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant('POST') },
  { weight: 4, arbitrary: fc.constant('GET') },
  { weight: 3, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') },
  { weight: 1, arbitrary: fc.constantFrom(...http.METHODS) },
);

const pathArb = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('/api', '/api/', '/api/v1/articles', '/api/v1/articles/') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ...`/ /api// /api/v1 /api/v1/ /api/v2/articles /API /api/v1/articles/1 /api/v1/Articles /api/v1/%61rticles
        /healthz /readyz /openapi.json /api/../api /api;x /api%2F /api%20`.split(/\s+/),
    ),
  },
  { weight: 1, arbitrary: fc.webPath().map((p) => `/${p.replace(/^\/+/, '')}`) },
);

const bothKeys = (aFirst: boolean): string[] =>
  aFirst ? [`apiKey=${KEY}`, `api_key=${KEY}`] : [`api_key=${KEY}`, `apiKey=${KEY}`];
const queryArb = fc.oneof(
  // the valid key for both variants, plus a little noise (which may repeat a key)
  {
    weight: 7,
    arbitrary: fc
      .tuple(fc.boolean(), fc.array(queryPart, { maxLength: 2 }))
      .map(([aFirst, extra]) => `?${[...bothKeys(aFirst), ...extra].join('&')}`),
  },
  { weight: 3, arbitrary: fc.array(queryPart, { maxLength: 5 }).map((parts) => `?${parts.join('&')}`) },
  { weight: 1, arbitrary: fc.constantFrom('', '?') },
);

const extraHeaders = fc.constantFrom<Record<string, string>>(
  {},
  {},
  {},
  { 'content-encoding': 'gzip' },
  { accept: 'text/html' },
  { origin: 'https://evil.example' },
  { 'x-forwarded-for': '203.0.113.9' },
);

export const requestArb: fc.Arbitrary<Req> = fc
  .record({
    method: methodArb,
    path: pathArb,
    query: queryArb,
    extra: extraHeaders,
    address: fc.integer({ min: 1, max: 8 }),
    content: fc.oneof(
      { weight: 4, arbitrary: plausibleContent },
      { weight: 3, arbitrary: coherentContent },
      { weight: 3, arbitrary: randomContent },
    ),
  })
  .map(({ method, path, query, extra, address, content }) => ({
    method,
    path,
    query,
    remoteAddress: `192.0.2.${address}`,
    headers: content.contentType === undefined ? extra : { ...extra, 'content-type': content.contentType },
    body: content.body,
  }));

// ---- well-formed POSTs

const titleWords = fc.array(
  fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9]{1,8}$/),
    fc.constantFrom('Ünïcödé', '日本語', '😀', 'naïve', 'Ελληνικά', '—'),
  ),
  { minLength: 1, maxLength: 6 },
);

export interface WellFormedPost {
  req: Req;
  url: string;
  expectedTitle: string;
}

export const wellFormedPostArb: fc.Arbitrary<WellFormedPost> = fc
  .record({
    variantA: fc.boolean(),
    keyInBody: fc.boolean(),
    encoding: fc.constantFrom('json', 'json-utf16', 'form', 'multipart'),
    url: fc.webUrl({ withQueryParameters: true, withFragments: true }).filter((u) => u.length <= 2048),
    title: fc.option(
      fc.oneof(
        titleWords.map((w) => w.join(' ')),
        fc.constant(''),
      ),
      { nil: undefined },
    ),
  })
  .map(({ variantA, keyInBody, encoding, url, title }) => {
    const path = variantA ? '/api/v1/articles' : '/api';
    const inBody = !variantA && keyInBody; // variant B also reads api_key from the body
    const fields: Record<string, string> = {
      url,
      ...(title === undefined ? {} : { title }),
      ...(inBody ? { api_key: KEY } : {}),
    };
    const query = inBody ? '' : variantA ? `?apiKey=${KEY}` : `?api_key=${KEY}`;
    let contentType: string;
    let body: Body;
    if (encoding === 'form') {
      contentType = 'application/x-www-form-urlencoded';
      body = { text: new URLSearchParams(fields).toString(), encoding: 'utf8' };
    } else if (encoding === 'multipart') {
      contentType = 'multipart/form-data; boundary=tidings-boundary';
      body = { text: multipartOf('tidings-boundary', fields), encoding: 'utf8' };
    } else {
      const utf16 = encoding === 'json-utf16';
      contentType = utf16 ? 'application/json; charset=utf-16le' : 'application/json';
      body = { text: JSON.stringify(fields), encoding: utf16 ? 'utf16le' : 'utf8' };
    }
    const headers = { 'content-type': contentType };
    return {
      req: { method: 'POST', path, query, headers, body, remoteAddress: '127.0.0.1' },
      url,
      expectedTitle: title === undefined || title === '' ? url : title,
    };
  });

/** API paths with a malformed percent-encoding in the path, with or without a key in the query. */
export const badUrlPathArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('/api', '/api/', '/api/v1/articles', '/api/v1/'),
    fc.constantFrom('%', '%z', '%zz', '%E0%A4%A', '%G0', '%%', '%FF', '%C0%AF'),
    fc.constantFrom('', `?api_key=${KEY}`, `?apiKey=${KEY}`),
  )
  .map(([path, bad, query]) => `${path}${bad}${query}`);
