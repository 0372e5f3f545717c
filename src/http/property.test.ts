/**
 * Property tests: random methods, paths, queries, Content-Types and bodies thrown at the whole server
 * (via inject) never produce a 5xx or a response outside the API's contract.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import {
  API_PATHS,
  type Req,
  badUrlPathArb,
  renderRequest,
  withKey,
  requestArb,
  wellFormedPostArb,
} from '../test/requestArbitraries.js';
import { failOnStrayErrors } from '../test/strayErrors.js';

const RUNS = { sqlite: { random: 1000, wellFormed: 200 }, postgres: { random: 1000, wellFormed: 100 } };

interface Stats {
  post2xx: number;
  get2xx: number;
  byStatus: Map<number, number>;
}

/** Checks one response against the API's contract; returns a reason when it breaks it. */
function violation(
  req: Pick<Req, 'method' | 'path'> & { headers?: Req['headers'] },
  res: { statusCode: number; body: string; headers: Record<string, unknown> },
): string | undefined {
  const { statusCode: status, body } = res;
  if (status >= 500) return `5xx: ${body}`;
  const ok = status >= 200 && status < 300;
  if (!ok) {
    if (req.method === 'HEAD') return undefined; // no body by definition
    if (!API_PATHS.includes(req.path.replace(/\/$/, ''))) {
      // Outside the API, the web app redirects (/ to the sign-in page), and answers a browser (one that
      // accepts text/html) with an HTML error page.
      if (status >= 300 && status < 400) return undefined;
      const html = String(res.headers['content-type']).startsWith('text/html');
      if (html)
        return (req.headers?.accept ?? '').includes('text/html') ? undefined : 'HTML to a non-browser';
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return `non-2xx body is not JSON: ${body.slice(0, 200)}`;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return `not an object: ${body}`;
    const keys = Object.keys(parsed).sort().join(',');
    if (keys !== 'code,message') return `error keys are ${keys}: ${body.slice(0, 200)}`;
    const { code, message } = parsed as { code: unknown; message: unknown };
    if (typeof code !== 'number' || typeof message !== 'string') return `bad error types: ${body}`;
    if (!String(res.headers['content-type']).startsWith('application/json')) return 'error is not JSON';
    return undefined;
  }
  const path = req.path.replace(/\/$/, '');
  if (!API_PATHS.includes(path)) return undefined; // /healthz, /openapi.json…
  if (req.method === 'HEAD') return body === '' ? undefined : 'HEAD with a body';
  if (req.method === 'OPTIONS')
    return status === 204 && body === '' ? undefined : `OPTIONS ${status} ${body}`;
  if (req.method === 'POST') {
    if (path === '/api') return body === '{"message":"success"}' ? undefined : `variant B POST: ${body}`;
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const keys = Object.keys(parsed).sort().join(',');
    return keys === 'code,message' && parsed.code === 0 && typeof parsed.message === 'string'
      ? undefined
      : `variant A POST: ${body}`;
  }
  if (req.method === 'GET') {
    const parsed = JSON.parse(body) as unknown;
    if (!Array.isArray(parsed)) return `GET is not an array: ${body.slice(0, 200)}`;
    for (const item of parsed as unknown[]) {
      if (typeof item !== 'object' || item === null) return `GET item ${JSON.stringify(item)}`;
      const rec = item as Record<string, unknown>;
      if (Object.keys(rec).sort().join(',') !== 'title,url') return `GET item keys ${JSON.stringify(item)}`;
      if (typeof rec.url !== 'string' || typeof rec.title !== 'string')
        return `GET item ${JSON.stringify(item)}`;
    }
    return undefined;
  }
  return `${req.method} answered ${status} on the API`;
}

const crashes = failOnStrayErrors();

await describeEachEngine('API under random requests', (ctx) => {
  let app: FastifyInstance | undefined;
  let key = '';
  const server = (): FastifyInstance => {
    if (app === undefined) throw new Error('no server');
    return app;
  };

  before(async () => {
    app = testServer(ctx.store());
    key = (await newAccount(ctx.store())).apiKey;
  });
  after(async () => {
    await app?.close();
  });

  test('never a 5xx, and every answer has the documented shape', async (t) => {
    const stats: Stats = { post2xx: 0, get2xx: 0, byStatus: new Map() };
    await fc.assert(
      fc.asyncProperty(requestArb, async (req) => {
        const res = await server().inject(renderRequest(req, key));
        stats.byStatus.set(res.statusCode, (stats.byStatus.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode >= 200 && res.statusCode < 300) {
          if (req.method === 'POST') stats.post2xx++;
          if (req.method === 'GET') stats.get2xx++;
        }
        const problem = violation(req, res);
        if (problem !== undefined) throw new Error(`${req.method} ${req.path}: ${res.statusCode} ${problem}`);
      }),
      { numRuns: RUNS[ctx.engine].random },
    );
    const summary = JSON.stringify([...stats.byStatus].sort(([a], [b]) => a - b));
    t.diagnostic(`statuses [status, count]: ${summary}; saved by POST: ${stats.post2xx}`);
    // The valid key is used often enough for the POST and GET paths to be really exercised.
    assert.ok(stats.post2xx >= RUNS[ctx.engine].random / 25, `only ${stats.post2xx} POSTs saved: ${summary}`);
    assert.ok(stats.get2xx >= RUNS[ctx.engine].random / 40, `only ${stats.get2xx} GETs answered: ${summary}`);
    for (const status of [400, 401, 405]) assert.ok(stats.byStatus.has(status), `no ${status}: ${summary}`);
  });

  test('a well-formed POST is saved, and GET shows exactly it', async () => {
    await fc.assert(
      fc.asyncProperty(wellFormedPostArb, async (post) => {
        const own = await newAccount(ctx.store()); // an empty queue for every run
        const res = await server().inject(renderRequest(post.req, own.apiKey));
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(violation(post.req, res), undefined);
        const other = post.req.path.startsWith('/api/v1') ? `/api?api_key=` : `/api/v1/articles?apiKey=`;
        const get = await server().inject({ method: 'GET', url: `${other}${own.apiKey}` });
        assert.equal(get.statusCode, 200, get.body);
        assert.deepEqual(JSON.parse(get.body), [{ url: post.url, title: post.expectedTitle }]);
      }),
      { numRuns: RUNS[ctx.engine].wellFormed },
    );
  });

  test('a path with malformed percent-encoding still gets a JSON {code, message} 400', async () => {
    await fc.assert(
      fc.asyncProperty(badUrlPathArb, async (url) => {
        const res = await server().inject({ method: 'GET', url: withKey(url, key) });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(violation({ method: 'GET', path: '/x' }, res), undefined, `${url} → ${res.body}`);
      }),
      { numRuns: 30 },
    );
  });

  /** Sends one POST and checks the contract, and that no stray error escaped the request. */
  async function postKeepsContract(url: string, type: string, body: string): Promise<void> {
    const before = crashes.length;
    const res = await server().inject({
      method: 'POST',
      url,
      headers: { 'content-type': type },
      payload: body,
    });
    await new Promise((resolve) => setImmediate(resolve)); // let a stray 'error' event fire now
    assert.deepEqual(crashes.slice(before), [], 'an error was thrown outside the request');
    const problem = violation({ method: 'POST', path: url.split('?')[0] ?? '' }, res);
    assert.equal(problem, undefined, `${res.statusCode} ${res.body}`);
  }

  test('a URL with a NUL character is answered without a 5xx', async () => {
    await postKeepsContract(
      `/api/v1/articles?apiKey=${key}`,
      'application/json',
      '{"url":"http://a.example/x\\u0000y"}',
    );
  });

  test('a multipart body cut off inside a file part is answered, and nothing is thrown', async () => {
    const cut =
      '--X\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhi';
    await postKeepsContract(`/api?api_key=${key}`, 'multipart/form-data; boundary=X', cut);
    await postKeepsContract('/api/v1/articles', 'multipart/form-data; boundary=X', cut); // no key at all
  });
});
