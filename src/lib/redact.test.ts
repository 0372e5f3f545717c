import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactRequestUrl, redactText, redactUrl } from './redact.js';

test('API keys are redacted from URLs however they are spelled', () => {
  assert.equal(redactUrl('/api/v1/articles?apiKey=tdg_secret'), '/api/v1/articles?apiKey=[redacted]');
  assert.equal(redactUrl('/api?x=1&api_key=tdg_secret&y=2'), '/api?x=1&api_key=[redacted]&y=2');
  assert.equal(redactUrl('/api?api%5Fkey=tdg_secret'), '/api?api%5Fkey=[redacted]');
  assert.equal(redactUrl('/api?APIKEY=tdg_secret&apikey=s2'), '/api?APIKEY=[redacted]&apikey=[redacted]');
  assert.equal(redactUrl('/api?api_key'), '/api?api_key=[redacted]');
  assert.equal(redactUrl('/healthz'), '/healthz');
  assert.equal(redactUrl('/api?q=%E0%A4'), '/api?q=%E0%A4');
});

test('digest tokens are redacted from URLs however they are spelled', () => {
  assert.equal(redactUrl('/digests/12?token=s3cr3t'), '/digests/12?token=[redacted]');
  assert.equal(redactUrl('/digests.atom?x=1&TOKEN=s3cr3t&y=2'), '/digests.atom?x=1&TOKEN=[redacted]&y=2');
  assert.equal(
    redactUrl('/digests.atom?to%6Ben=s3cr3t&token=again'),
    '/digests.atom?to%6Ben=[redacted]&token=[redacted]',
  );
  assert.equal(redactUrl('/digests.atom?+token+=s3cr3t'), '/digests.atom?+token+=[redacted]');
  assert.equal(redactUrl('/digests.atom?tokens=kept'), '/digests.atom?tokens=kept');
});

test('the token of an unsubscribe link is redacted from the path, and nothing else there', () => {
  const token = 'Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg';
  assert.equal(redactUrl(`/unsubscribe/${token}`), '/unsubscribe/[redacted]');
  assert.equal(redactUrl(`/UNSUBSCRIBE/${token}?a=1`), '/UNSUBSCRIBE/[redacted]?a=1');
  assert.equal(redactUrl(`/%75nsubscribe/${token}/x`), '/%75nsubscribe/[redacted]/[redacted]');
  assert.equal(
    redactUrl(`https://news.example/unsubscribe/${token}`),
    'https://news.example/unsubscribe/[redacted]',
  );
  assert.equal(
    redactText(`POST /unsubscribe/${token}?x=1 failed`),
    'POST /unsubscribe/[redacted]?x=1 failed',
  );
  assert.equal(redactUrl('/unsubscribe/'), '/unsubscribe/');
  assert.equal(redactUrl('/digests/unsubscribe/12'), '/digests/unsubscribe/12');
});

test('the token of a digest action link is redacted from the path; the action stays', () => {
  const token = 'Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg';
  assert.equal(
    redactUrl(`/digest-actions/${token}?do=keep&item=12`),
    '/digest-actions/[redacted]?do=keep&item=12',
  );
  assert.equal(redactUrl(`/Digest-Actions/${token}`), '/Digest-Actions/[redacted]');
  assert.equal(
    redactUrl(`https://news.example/digest-actions/${token}?do=mute&feed=3`),
    'https://news.example/digest-actions/[redacted]?do=mute&feed=3',
  );
  assert.equal(redactUrl('/digests/digest-actions/12'), '/digests/digest-actions/12');
});

test('an invitation’s token is redacted from the path', () => {
  const token = 'Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg';
  assert.equal(redactUrl(`/invite/${token}`), '/invite/[redacted]');
  assert.equal(
    redactUrl(`https://tidings.example/invite/${token}`),
    'https://tidings.example/invite/[redacted]',
  );
  assert.equal(redactUrl('/accounts/invitations/3/revoke'), '/accounts/invitations/3/revoke');
  assert.equal(
    redactUrl('https://invite.example/news/1'),
    'https://invite.example/news/1',
    'a host is no route',
  );
});

test('a signed link’s token is redacted by its route however the path spells it', () => {
  const t = 'Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg';
  const cases: [string, string][] = [
    [`//digest-actions/${t}?do=keep&item=1`, '//digest-actions/[redacted]?do=keep&item=1'],
    [`/digest-actions//${t}`, '/digest-actions//[redacted]'],
    [`///invite///${t}///`, '///invite///[redacted]///'],
    [`/DIGEST-ACTIONS/${t}`, '/DIGEST-ACTIONS/[redacted]'],
    [`/%64igest-%61ctions/${t}`, '/%64igest-%61ctions/[redacted]'],
    [`/%2564igest-actions/${t}`, '/%2564igest-actions/[redacted]'],
    [`/digest-actions%2F${t}`, '/[redacted]'],
    [`/digest-actions%252f${t}?do=mute`, '/[redacted]?do=mute'],
    [`/%2Fdigest-actions/${t}`, '/%2Fdigest-actions/[redacted]'],
    [`/digest-actions\\${t}`, '/[redacted]'],
    [`/invite\\/${t}`, '/invite\\/[redacted]'],
    [`/./invite/${t}`, '/./invite/[redacted]'],
    [`/x/../unsubscribe/${t}`, '/x/../unsubscribe/[redacted]'],
    [`/%20invite%20/${t}`, '/%20invite%20/[redacted]'],
    [`/invite/${t}%`, '/invite/[redacted]'],
    [`/invite/./${t}/x`, '/invite/[redacted]/[redacted]/[redacted]'],
    [`https://tidings.example//unsubscribe/${t}`, 'https://tidings.example//unsubscribe/[redacted]'],
  ];
  for (const [url, redacted] of cases) {
    assert.equal(redactUrl(url), redacted, url);
    assert.equal(redactRequestUrl(url), redacted, url);
  }
  assert.equal(redactUrl('/digests/unsubscribe/12'), '/digests/unsubscribe/12', 'not the first segment');
  assert.equal(redactUrl('/x/y/../invite/12'), '/x/y/../invite/12', 'x stays first');
  assert.equal(redactUrl('/invite'), '/invite');
  assert.equal(redactUrl('//invite//'), '//invite//');
});

test('a request’s address loses every piece shaped like a token; other URLs keep long slugs', () => {
  const t = 'Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg';
  const encoded = Buffer.from(t).toString('hex').replace(/../g, '%$&');
  const cases: [string, string][] = [
    [`/${t}`, '/[redacted]'],
    [`/nowhere/x${t}y.html?a=1`, '/nowhere/[redacted]?a=1'],
    [`/invite;x/${t}`, '/invite;x/[redacted]'],
    [`/digests/1?tok%00en=${t}&page=2`, '/digests/1?tok%00en=[redacted]&page=2'],
    [`/digests.atom?${t}`, '/digests.atom?[redacted]'],
    [`/items/3?t=${encoded}`, '/items/3?t=[redacted]'],
    [`/x#${t}`, '/x#[redacted]'],
    [`http://x/digest-actions/${t}`, 'http://x/digest-actions/[redacted]'],
    [`http://x//${t}`, 'http://x//[redacted]'],
  ];
  for (const [url, redacted] of cases) assert.equal(redactRequestUrl(url), redacted, url);
  assert.equal(redactRequestUrl('/digests/12?page=2&token=x'), '/digests/12?page=2&token=[redacted]');
  assert.equal(redactRequestUrl('/static/app.3f2a9c0d1e2b.css'), '/static/app.3f2a9c0d1e2b.css');
  assert.equal(redactRequestUrl(`/x/${t.slice(1)}`), `/x/${t.slice(1)}`, '42 characters are no token');
  const feed = 'https://blog.example/2026/11/a-long-article-slug-about-the-tides-and-the-moon';
  assert.equal(redactUrl(feed), feed, 'a feed’s URL keeps its slug');
});

test('text that quotes a bare request path loses its signed link’s token', () => {
  const t = 'Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg';
  assert.equal(
    redactText(`'/invite/${t}%' is not a valid url component`),
    "'/invite/[redacted]' is not a valid url component",
  );
  assert.equal(redactText(`GET //digest-actions/${t} failed`), 'GET //digest-actions/[redacted] failed');
  assert.equal(redactText('at run (/work/dist/cli/main.js:10:3)'), 'at run (/work/dist/cli/main.js:10:3)');
});

test('a key under a near-miss parameter name is redacted too', () => {
  for (const name of [
    'apiKey[]',
    'api_key[a]',
    'apiKey%00',
    'apiKey%E0',
    'ApiKey',
    'aPiKeY',
    'API_KEY',
    'api-key',
    'x-api-key',
    'api%255Fkey',
    '%EF%BD%81piKey', // a fullwidth "a"
    'apiKey.x',
    '[apiKey]',
  ]) {
    assert.equal(redactUrl(`/api?${name}=s3cr3t`), `/api?${name}=[redacted]`, name);
  }
  assert.equal(redactUrl('/api?x=1?apiKey=s3cr3t'), '/api?x=1?apiKey=[redacted]', 'a second ?');
  assert.equal(redactUrl('/api;apiKey=s3cr3t'), '/api;apiKey=[redacted]', 'a ; in the path');
  assert.equal(redactUrl('/api?a=1;api_key=s3cr3t'), '/api?a=1;api_key=[redacted]');
});

test('other secret parameter names are redacted, and ordinary ones kept', () => {
  for (const name of ['password', 'pass', 'pwd', 'passwd', 'secret', 'client_secret', 'access_token']) {
    assert.equal(redactUrl(`/x?${name}=s3cr3t&page=2`), `/x?${name}=[redacted]&page=2`, name);
  }
  for (const name of ['sslpassword', 'key', 'X-Amz-Signature', 'auth', 'session', 'jsessionid']) {
    assert.equal(redactUrl(`/x?${name}=s3cr3t`), `/x?${name}=[redacted]`, name);
  }
  for (const name of ['url', 'title', 'tokens', 'keyword', 'monkey', 'page', 'passage']) {
    assert.equal(redactUrl(`/x?${name}=kept`), `/x?${name}=kept`, name);
  }
});

test('a value shaped like a Tidings key is redacted under any name, and in the path', () => {
  const key = `tdg_${'ab12'.repeat(19)}`;
  assert.equal(redactUrl(`/api?k=${key}`), '/api?k=[redacted]');
  assert.equal(redactUrl(`/api?${key}`), '/api?[redacted]');
  assert.equal(redactUrl(`/api?q=${encodeURIComponent(key).replace(/a/g, '%61')}`), '/api?q=[redacted]');
  assert.equal(redactUrl(`/api/v1/articles/${key}?x=1`), '/api/v1/articles/[redacted]?x=1');
  assert.equal(redactUrl(`/api/%74dg_${'0'.repeat(20)}`), '/api/[redacted]');
});

test('user info: the password is redacted, up to the last @ before the host; the user name stays', () => {
  assert.equal(redactUrl('postgres://u:hunter2@db:5432/t'), 'postgres://u:[redacted]@db:5432/t');
  assert.equal(redactUrl('postgres://user:p@ss@host/db'), 'postgres://user:[redacted]@host/db');
  assert.equal(redactUrl('postgres://user:p@s:s@host:5/db?x=1'), 'postgres://user:[redacted]@host:5/db?x=1');
  assert.equal(redactUrl('postgres://postgres@127.0.0.1/db'), 'postgres://postgres@127.0.0.1/db');
  assert.equal(
    redactUrl('postgres://postgres@127.0.0.1:5432/db?password=hunter2&sslmode=disable'),
    'postgres://postgres@127.0.0.1:5432/db?password=[redacted]&sslmode=disable',
  );
  assert.equal(
    redactUrl('https://u:pw@feeds.example/rss?token=t0k&n=1#key=frag'),
    'https://u:[redacted]@feeds.example/rss?token=[redacted]&n=1#key=[redacted]',
  );
  assert.equal(redactUrl('https://medium.com/@someone/feed'), 'https://medium.com/@someone/feed');
  assert.equal(
    redactUrl('smtp://mailer:pa ss@mail.example:587'),
    'smtp://mailer:[redacted]@mail.example:587',
  );
});

test('URLs quoted in text are redacted, and so is anything shaped like a key', () => {
  const key = `tdg_${'f'.repeat(76)}`;
  assert.equal(
    redactText(`connect to postgres://u:hunter2@db/x failed: GET /api?apiKey=${key} key ${key}`),
    'connect to postgres://u:[redacted]@db/x failed: GET /api?apiKey=[redacted] key [redacted]',
  );
  assert.equal(redactText('at file:///work/src/x.ts:10:3'), 'at file:///work/src/x.ts:10:3');
});
