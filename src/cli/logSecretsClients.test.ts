/**
 * The apps' secrets in the log (issue 35, point 2: "never logged"): `tidings serve` as a real process,
 * its real logger at debug writing to its stderr, which the test captures whole. The CLI makes an API
 * client (`tidings client create --json` prints its secret once, on stdout) and the catalogue's private
 * link; then the apps' calls: the password grant (JSON, and a form as the Android app sends it), the
 * refresh grant, entries with the bearer header and with `?access_token=`, a save, the OPDS catalogue
 * with Basic and with `?token=`, a book, a wrong client secret, a wrong password (grant and Basic) and a
 * wrong catalogue token. No line of the server's log (nor the CLI's stderr) holds the client secret, an
 * access or refresh token, the password, the catalogue token, nor their URL-encoded or Basic forms; and
 * the log did record each of those requests, so the test cannot pass by capturing nothing.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ENGINES, type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import {
  type ServerProcess,
  assertBuilt,
  createAccountViaCli,
  exitWithin,
  runCli,
  startServer,
} from '../test/process.js';
import { AndroidClient, KoreaderClient } from '../test/wallabagClients.js';

assertBuilt();
const pgSkip = await postgresSkipReason();

/** A password whose URL-encoded, form-encoded and JSON forms all differ from it. */
const PASSWORD = 'Tïdings pass/word & +more% "quoted"';

/** The forms a secret could take in a line: as is, URL-encoded, form-encoded, JSON-escaped. */
const spellings = (secret: string): string[] => [
  ...new Set([
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1),
  ]),
];

interface Logged {
  msg?: string;
  url?: string;
  status?: number;
  method?: string;
}

for (const engine of ENGINES) {
  describe(
    `the apps' secrets in the log of tidings serve [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    () => {
      let database: TestDatabase | undefined;
      let server: ServerProcess | undefined;
      after(async () => {
        await server?.stop();
        await database?.drop();
      });

      test('client create, grants, entries, OPDS by Basic and by token, wrong secrets: none logged', async () => {
        database = await createTestDatabase(engine);
        const env = { DATABASE_URL: database.url, LOG_LEVEL: 'debug' };
        server = await startServer({
          databaseUrl: database.url,
          env: { LOG_LEVEL: 'debug', TIDINGS_WORKER: 'false' },
        });
        const base = server.baseUrl;
        const name = `log reader ${engine}`;
        const { id } = await createAccountViaCli(database.url, name);
        const cliErr: string[] = [];
        const password = await runCli(
          ['account', 'password', '--account', String(id)],
          env,
          30_000,
          PASSWORD,
        );
        assert.equal(password.code, 0, password.stderr);
        cliErr.push(password.stderr);
        const made = await runCli(
          ['client', 'create', '--account', String(id), '--name', 'Kobo', '--json'],
          env,
        );
        assert.equal(made.code, 0, made.stderr);
        cliErr.push(made.stderr);
        const { clientId, clientSecret } = JSON.parse(made.stdout) as {
          clientId: string;
          clientSecret: string;
        };
        const link = await runCli(['account', 'opds-url', '--account', String(id)], env);
        assert.equal(link.code, 0, link.stderr);
        cliErr.push(link.stderr);
        const opdsToken = new URL(link.stdout.trim()).searchParams.get('token') ?? '';
        assert.match(opdsToken, /^[A-Za-z0-9_-]{43}$/);

        const credentials = { server: base, clientId, clientSecret, username: name, password: PASSWORD };
        const ko = new KoreaderClient(credentials);
        const android = new AndroidClient(credentials);
        const tokens: string[] = [];
        const expect = async (what: string, answer: Promise<{ status: number }>, status: number) => {
          assert.equal((await answer).status, status, what);
        };
        // The grants: KOReader's JSON, the Android app's form, then its refresh.
        await expect('password grant (JSON)', ko.getBearerToken(), 200);
        await expect('password grant (form)', android.token(), 200);
        tokens.push(ko.accessToken, android.accessToken, android.refreshToken);
        await expect('refresh grant', android.refresh(), 200);
        tokens.push(android.accessToken, android.refreshToken);
        // Entries: the bearer header, the token as a query parameter, a save.
        await expect('entries (bearer)', ko.get('/api/entries.json?perPage=5'), 200);
        const byQuery = fetch(`${base}/api/entries.json?access_token=${encodeURIComponent(ko.accessToken)}`);
        await expect('entries (?access_token=)', byQuery, 200);
        const saved = await ko.addArticle('https://example.org/a-long-read', 'later');
        assert.equal(saved.status, 200);
        const entryId = (saved.json as { id: number }).id;
        await expect('export.epub (bearer)', ko.download(entryId), 200);
        // The catalogue: Basic with the name, the private link, its pages and a book.
        const basic = Buffer.from(`${name}:${PASSWORD}`).toString('base64');
        const withBasic = { headers: { authorization: `Basic ${basic}` } };
        await expect('OPDS (Basic)', fetch(`${base}/opds`, withBasic), 200);
        await expect('OPDS reading list (Basic)', fetch(`${base}/opds/reading`, withBasic), 200);
        await expect('OPDS (?token=)', fetch(`${base}/opds?token=${opdsToken}`), 200);
        await expect('OPDS reading list (?token=)', fetch(`${base}/opds/reading?token=${opdsToken}`), 200);
        const book = fetch(`${base}/opds/reading/${entryId}.epub?token=${opdsToken}`);
        await expect('OPDS book (?token=)', book, 200);
        // Refusals: a wrong client secret, a wrong password (grant and Basic), a wrong catalogue token.
        const wrongSecret = new KoreaderClient({ ...credentials, clientSecret: `${clientSecret}x` });
        await expect('wrong client secret', wrongSecret.getBearerToken(), 401);
        const wrongPassword = new AndroidClient({ ...credentials, password: `${PASSWORD}!` });
        await expect('wrong password (grant)', wrongPassword.token(), 400);
        const wrongBasic = Buffer.from(`${name}:${PASSWORD}!`).toString('base64');
        const refusedBasic = fetch(`${base}/opds`, { headers: { authorization: `Basic ${wrongBasic}` } });
        await expect('wrong password (Basic)', refusedBasic, 401);
        await expect('wrong catalogue token', fetch(`${base}/opds?token=${opdsToken.slice(1)}x`), 401);

        server.child.kill('SIGTERM');
        assert.equal((await exitWithin(server, 10_000)).code, 0, server.stderr());
        const log = server.stderr();
        const lines = log
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Logged);
        const requests = lines.filter((l) => l.msg === 'request');
        // The log recorded these requests (each with its status), their secrets redacted.
        const logged = (path: RegExp, status: number): number =>
          requests.filter((r) => path.test(r.url ?? '') && r.status === status).length;
        assert.equal(logged(/^\/oauth\/v2\/token$/, 200), 3, 'three grants given');
        assert.equal(logged(/^\/oauth\/v2\/token$/, 401), 1, 'the wrong secret');
        assert.equal(logged(/^\/oauth\/v2\/token$/, 400), 1, 'the wrong password');
        assert.equal(logged(/^\/api\/entries\.json\?perPage=5$/, 200), 1, 'entries with the bearer header');
        assert.equal(logged(/^\/api\/entries\.json\?access_token=\[redacted\]$/, 200), 1, 'by query');
        assert.equal(logged(/^\/api\/entries\.json$/, 200), 1, 'the save');
        assert.equal(logged(/^\/api\/entries\/\d+\/export\.epub$/, 200), 1, 'an entry as a book');
        assert.equal(logged(/^\/opds(\/reading)?$/, 200), 2, 'the catalogue with Basic');
        assert.equal(logged(/^\/opds$/, 401), 1, 'the wrong Basic password');
        assert.equal(logged(/^\/opds(\/reading)?\?token=\[redacted\]$/, 200), 2, 'the catalogue by its link');
        assert.equal(logged(/^\/opds\/reading\/\d+\.epub\?token=\[redacted\]$/, 200), 1, 'a book');
        assert.equal(logged(/^\/opds\?token=\[redacted\]$/, 401), 1, 'the wrong catalogue token');

        const secrets = {
          'client secret': clientSecret,
          ...Object.fromEntries(tokens.map((t, i) => [`token ${i}`, t])),
          password: PASSWORD,
          'Basic credentials': basic,
          'wrong Basic credentials': wrongBasic,
          'catalogue token': opdsToken,
        };
        for (const [what, secret] of Object.entries(secrets)) {
          assert.ok(secret.length >= 20, `${what} is a real secret`);
          for (const spelled of spellings(secret)) {
            assert.ok(!log.includes(spelled), `the server's log holds the ${what} (${spelled}):\n${log}`);
            for (const err of cliErr) assert.ok(!err.includes(spelled), `the CLI's stderr holds the ${what}`);
          }
        }
        // The secret was printed, once, where it belongs: on the CLI's stdout.
        assert.equal(made.stdout.split(clientSecret).length - 1, 1);
      });
    },
  );
}
