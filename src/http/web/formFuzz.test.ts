/**
 * Reliability suite (`npm run test:chaos`): random submissions to every form of the web app, signed in,
 * with a right, wrong or missing CSRF token, random and known field names, hostile values, odd ids in
 * the path and odd bodies (JSON, multipart, bytes that are not a form). Never a 5xx; every answer is a
 * page (text/html) or a redirect; nothing is thrown outside a request. Both engines.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';
import { failOnStrayErrors } from '../../test/strayErrors.js';

const RUNS = 400;

/** Every form the web app has, with the fields its page sends. `:id` is replaced by a generated id. */
const FORMS: { path: string; fields: string[]; multipart?: boolean }[] = [
  { path: '/sign-in', fields: ['key', 'next'] },
  { path: '/sign-in/password', fields: ['identifier', 'password', 'next'] },
  { path: '/sign-in/passkey', fields: ['credential', 'next'] },
  { path: '/sign-out', fields: [] },
  { path: '/save', fields: ['key'] },
  { path: '/save/new-key', fields: [] },
  { path: '/queue', fields: ['url', 'title'] },
  { path: '/queue/:id/remove', fields: ['start'] },
  { path: '/reading-list/:id/archive', fields: ['state', 'tag', 'start'] },
  { path: '/reading-list/:id/unarchive', fields: ['state', 'tag', 'start'] },
  { path: '/reading-list/import', fields: ['export', 'format'], multipart: true },
  {
    path: '/settings',
    fields: 'timezone time days max_items email email_enabled skip_empty images clean_links'.split(' '),
  },
  { path: '/settings/digest-now', fields: [] },
  { path: '/settings/sign-in/password', fields: ['current', 'password', 'confirm'] },
  { path: '/settings/sign-in/password/remove', fields: ['current'] },
  { path: '/settings/sign-in/passkeys', fields: ['name', 'credential'] },
  { path: '/settings/sign-in/passkeys/:id/rename', fields: ['name'] },
  { path: '/settings/sign-in/passkeys/:id/delete', fields: [] },
  { path: '/settings/reset-unsubscribe', fields: [] },
  { path: '/settings/resume-email', fields: [] },
  { path: '/unsubscribe/:id', fields: ['action', 'List-Unsubscribe'] },
  { path: '/feeds', fields: ['url', 'title', 'include', 'exclude', 'chosen'] },
  { path: '/feeds/import', fields: ['opml'], multipart: true },
  { path: '/feeds/:id/rename', fields: ['title'] },
  { path: '/feeds/:id/filters', fields: ['include', 'exclude'] },
  { path: '/feeds/:id/original', fields: ['fetch_original'] },
  { path: '/feeds/:id/remove', fields: [] },
  { path: '/feeds/:id/share', fields: ['per_digest', 'priority'] },
  { path: '/feeds/:id/unmute', fields: [] },
  { path: '/digest-actions/:id?do=fewer&feed=1', fields: ['undo', 'previous', 'queued'] },
  { path: '/keys', fields: ['name'] },
  { path: '/keys/feed/reset', fields: [] },
  { path: '/keys/:id/rename', fields: ['name'] },
  { path: '/keys/:id/revoke', fields: [] },
];

/** Values people and attackers type: empty, huge, markup, control characters, numbers, odd URLs. */
const valueArb = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    'on',
    'true',
    'false',
    '07:30',
    '25:99',
    'Europe/Paris',
    'Mars/Olympus',
    'mon',
    '-1',
    '0',
    '99999999999999999999',
    'NaN',
    'x<a@evil.test>',
    'a@b.example',
    '<script>alert(1)</script>',
    '"><img src=x onerror=alert(1)>',
    'javascript:alert(1)',
    'http://127.0.0.1:1/feed.xml',
    'https://example.com/?utm_source=x',
    '/queue',
    '//evil.example/',
    '\u0000\u0001\r\n',
    '%00%ff',
    'ä'.repeat(3000),
  ),
  fc.nat({ max: 5000 }).map((n) => 'x'.repeat(n)),
);

const idArb = fc.oneof(
  fc.nat({ max: 20 }).map(String),
  fc.constantFrom('-1', '0', '1.5', 'abc', '%00', '99999999999999999999', '1e9', ' 1', 'x'.repeat(300)),
);

const csrfArb = fc.constantFrom<'right' | 'wrong' | 'none'>(
  'right',
  'right',
  'right',
  'right',
  'wrong',
  'none',
);

const bodyKindArb = fc.constantFrom<'form' | 'json' | 'multipart' | 'garbage' | 'none'>(
  'form',
  'form',
  'form',
  'form',
  'form',
  'json',
  'multipart',
  'garbage',
  'none',
);

const submissionArb = fc.record({
  form: fc.constantFrom(...FORMS),
  id: idArb,
  csrf: csrfArb,
  body: bodyKindArb,
  known: fc.array(fc.tuple(fc.nat(), valueArb), { maxLength: 6 }),
  extra: fc.array(fc.tuple(fc.string({ maxLength: 12 }), valueArb), { maxLength: 3 }),
});

type Submission = typeof submissionArb extends fc.Arbitrary<infer T> ? T : never;

function multipart(fields: [string, string][], boundary: string): string {
  const parts = fields.map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="f.opml"\r\n` +
      `Content-Type: text/x-opml\r\n\r\n${value}\r\n`,
  );
  return `${parts.join('')}--${boundary}--\r\n`;
}

function encode(
  s: Submission,
  csrf: string,
): { payload: string | Buffer | undefined; contentType: string | undefined } {
  const names = s.form.fields.length === 0 ? ['x'] : s.form.fields;
  const fields: [string, string][] = [
    ...s.known.map(([i, v]): [string, string] => [names[i % names.length] ?? 'x', v]),
    ...s.extra,
  ];
  if (s.csrf === 'right') fields.push(['_csrf', csrf]);
  if (s.csrf === 'wrong') fields.push(['_csrf', 'not-the-token']);
  switch (s.body) {
    case 'form':
      return {
        payload: new URLSearchParams(fields).toString(),
        contentType: 'application/x-www-form-urlencoded',
      };
    case 'json':
      return { payload: JSON.stringify(Object.fromEntries(fields)), contentType: 'application/json' };
    case 'multipart':
      return {
        payload: multipart(fields, 'fuzzboundary'),
        contentType: 'multipart/form-data; boundary=fuzzboundary',
      };
    case 'garbage':
      return { payload: Buffer.from([0xff, 0xfe, 0x25, 0x00, 0x3d, 0x26, 0x25]), contentType: 'text/plain' };
    case 'none':
      return { payload: undefined, contentType: undefined };
  }
}

failOnStrayErrors();

await describeEachEngine('web forms under random submissions', (ctx) => {
  let app: FastifyInstance | undefined;

  before(() => {
    app = webServer(ctx.store());
  });
  after(async () => {
    await app?.close();
  });

  test('a path segment over the router limit: a 404 page for a browser, a JSON 400 that does not echo it', async () => {
    if (app === undefined) throw new Error('no server');
    const web = new WebClient(app);
    await web.signIn((await newAccount(ctx.store())).apiKey);
    const long = 'x'.repeat(300);
    const page = await web.post(`/keys/${long}/revoke`, {});
    assert.equal(page.statusCode, 404);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /There is no page at this address/);
    const api = await app.inject({ method: 'POST', url: `/feeds/${long}/rename` });
    assert.equal(api.statusCode, 400);
    assert.deepEqual(JSON.parse(api.body), { code: 40000, message: 'the request path is not valid' });
  });

  test(`${RUNS} submissions: never a 5xx, every answer a page or a redirect`, async (t) => {
    if (app === undefined) throw new Error('no server');
    const server = app;
    let client = new WebClient(server);
    /** A session that still works: a fuzzed sign-out or key revocation may have ended the last one. */
    const signedIn = async (): Promise<WebClient> => {
      if ((await client.get('/queue')).statusCode === 200) return client;
      client = new WebClient(server);
      await client.signIn((await newAccount(ctx.store())).apiKey);
      return client;
    };
    const byStatus = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(submissionArb, async (s) => {
        const web = await signedIn();
        const { payload, contentType } = encode(s, web.csrf);
        const cookie = [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
        const res = await server.inject({
          method: 'POST',
          url: s.form.path.replace(':id', encodeURIComponent(s.id)),
          headers: {
            accept: 'text/html',
            ...(cookie === '' ? {} : { cookie }),
            ...(contentType === undefined ? {} : { 'content-type': contentType }),
          },
          ...(payload === undefined ? {} : { payload }),
          remoteAddress: '127.0.0.1',
        });
        byStatus.set(res.statusCode, (byStatus.get(res.statusCode) ?? 0) + 1);
        assert.ok(res.statusCode < 500, `${s.form.path}: ${res.statusCode} ${res.body.slice(0, 300)}`);
        if (res.statusCode >= 300 && res.statusCode < 400) {
          assert.ok(typeof res.headers.location === 'string', `${s.form.path}: a redirect without Location`);
          return;
        }
        assert.match(String(res.headers['content-type']), /^text\/html/, `${s.form.path}: ${res.statusCode}`);
        assert.match(res.body, /<html[\s>]/i, `${s.form.path}: the answer is a page`);
      }),
      { numRuns: RUNS },
    );
    t.diagnostic(`statuses: ${JSON.stringify([...byStatus].sort((a, b) => a[0] - b[0]))}`);
    const refused = [...byStatus].filter(([status]) => status >= 400).reduce((n, [, c]) => n + c, 0);
    assert.ok(refused > 0 && refused < RUNS, 'the fuzz reached both refusals and accepted forms');
  });
});
