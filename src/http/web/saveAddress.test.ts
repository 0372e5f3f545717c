/**
 * The Save page warns when its addresses cannot work from a phone (issue 25): a loopback TIDINGS_BASE_URL
 * reaches only this computer, and plain http does not let Android install Tidings as an app. A public https
 * address gets no warning.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';
import { baseUrlWarnings } from './saveInstructions.js';

test('baseUrlWarnings: loopback and plain http named, a public https address is fine', () => {
  const loopback = /this computer’s own \(loopback\): a phone or any other device cannot reach it/;
  const plain = /plain http: Android installs Tidings as an app .* only over https/;
  for (const url of [
    'http://127.0.0.1:8080',
    'http://localhost:8080',
    'http://[::1]:8080',
    'http://tidings.localhost',
  ]) {
    const [first, second, ...rest] = baseUrlWarnings(url);
    assert.match(first ?? '', loopback, url);
    assert.match(second ?? '', plain, url);
    assert.deepEqual(rest, []);
  }
  const lan = baseUrlWarnings('http://192.168.1.20:8080');
  assert.equal(lan.length, 1);
  assert.match(lan[0] ?? '', plain);
  assert.deepEqual(baseUrlWarnings('https://news.example.org'), []);
  assert.deepEqual(
    baseUrlWarnings('https://localhost:8443').length,
    1,
    'https on loopback: still this computer only',
  );
});

await describeEachEngine('web app: the Save page’s address warning', (ctx) => {
  const savePage = async (baseUrl: string): Promise<string> => {
    const app = webServer(ctx.store(), { baseUrl });
    try {
      await app.ready();
      const account = await newAccount(ctx.store());
      const client = new WebClient(app);
      await client.signIn(account.apiKey);
      const res = await client.get('/save');
      assert.equal(res.statusCode, 200);
      return res.body;
    } finally {
      await app.close();
    }
  };

  test('a loopback, plain-http address: the page says a phone cannot reach it, and why https', async () => {
    const body = await savePage('http://127.0.0.1:8080');
    assert.match(body, /<div class="error" role="note" id="address-warning">/);
    assert.match(
      body,
      /This Tidings’ address, http:\/\/127\.0\.0\.1:8080, is this computer’s own \(loopback\)/,
    );
    assert.match(body, /TIDINGS_BASE_URL/);
    assert.match(
      body,
      /Android installs Tidings as an app \(and so adds it to the share menu\) only over https/,
    );
  });

  test('a public https address: no warning', async () => {
    const body = await savePage('https://news.example.org');
    assert.doesNotMatch(body, /address-warning|loopback|plain http/);
    assert.match(body, /https:\/\/news\.example\.org\/api\/v1\/articles\?apiKey=YOUR_KEY/);
  });
});
