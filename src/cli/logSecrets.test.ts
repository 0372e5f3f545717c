/**
 * `tidings serve` as a real process: no line it logs (start-up, requests, errors) holds the database
 * password, the SMTP password, an API key or any other secret of a URL, however the URL spells it; nor
 * the live token of a signed link (an invitation, a digest's actions, unsubscribe, the digest token),
 * answered or not, whatever the path's slashes, encoding or case (issue 33, point G).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { grantAccount } from '../accounts/authorize.js';
import { inviteAccount } from '../accounts/invitations.js';
import { buildDigestNow } from '../digest/build.js';
import { mintActionTokens } from '../digest/actionTokens.js';
import { ensureDigestToken } from '../digest/token.js';
import { mintUnsubscribeToken } from '../digest/unsubscribe.js';
import { openStore } from '../store/db.js';
import { ENGINES, type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { itemsOf, saveUrl, testDigestDeps } from '../test/digestPipeline.js';
import { type ServerProcess, assertBuilt, exitWithin, startServer } from '../test/process.js';

assertBuilt();
const pgSkip = await postgresSkipReason();

const KEY_LINE = /^Its API key, shown only this once: (tdg_[0-9a-f]{76})$/m;

/** A secret that cannot appear in a log by chance. */
const secret = (label: string): string => `${label}-${randomBytes(6).toString('hex')}`;

/** Sends `head` (and `body`, when given: then closes the connection before the body is complete). */
function raw(port: number, head: string, partialBody?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = net.connect(port, '127.0.0.1', () => {
      if (partialBody === undefined) {
        socket.write(`${head}Connection: close\r\n\r\n`);
        return;
      }
      socket.write(`${head}Content-Length: 1000\r\n\r\n${partialBody}`);
      setTimeout(() => socket.destroy(), 100);
    });
    socket.setEncoding('utf8').on('data', (s: string) => (answer += s));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

async function until(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

for (const engine of ENGINES) {
  describe(
    `secrets in the log of tidings serve [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    () => {
      let database: TestDatabase | undefined;
      let server: ServerProcess | undefined;
      after(async () => {
        await server?.stop();
        await database?.drop();
      });

      test('no logged line holds a password or a key: start-up, request URLs (near-miss names too), errors', async () => {
        database = await createTestDatabase(engine);
        const secrets: string[] = [];
        const keep = (label: string): string => {
          const s = secret(label);
          secrets.push(s);
          return s;
        };
        let databaseUrl = database.url;
        const name = engine === 'postgres' ? new URL(database.url).pathname.slice(1) : '';
        if (engine === 'postgres') {
          // A raw @ in the user info's password, and a password= parameter (the one pg uses; trust ignores both).
          databaseUrl = `postgres://postgres:${keep('pw')}@x@127.0.0.1:5432/${name}?password=${keep('qpw')}`;
        }
        server = await startServer({
          databaseUrl,
          env: {
            LOG_LEVEL: 'debug',
            TIDINGS_SMTP_URL: `smtp://mailer:${keep('smtp')}@127.0.0.1:9`,
            TIDINGS_MAIL_FROM: 'tidings@example.com',
          },
        });
        const started = server;
        await until('the first key on stdout', () => KEY_LINE.test(started.stdout()));
        const key = KEY_LINE.exec(server.stdout())?.[1] ?? '';
        const get = (path: string): Promise<string> =>
          raw(started.port, `GET ${path} HTTP/1.1\r\nHost: x\r\n`);

        const nearMisses = [
          'apiKey[]',
          'api_key[a]',
          'apiKey%00',
          'apiKey%E0',
          'APIKEY',
          'aPiKeY',
          'api%255Fkey',
        ];
        const paths = [
          `/api/v1/articles?apiKey=${key}`,
          ...nearMisses.map((n) => `/api/v1/articles?${n}=${key}`),
          ...nearMisses.map((n) => `/api?${n}=${keep('nearmiss')}`),
          `/api?x=1?apiKey=${keep('second-question-mark')}`,
          `/api;api_key=${keep('semicolon')}`,
          `/api/v1/articles/${key}`,
          `/api?q=${key}`,
          `/digests.atom?token=${keep('token')}&Token[]=${keep('token')}`,
          `/nowhere?password=${keep('pass')}&access_token=${keep('access')}&client_secret=${keep('client')}`,
          `/api%?apiKey[]=${keep('badurl')}`,
        ];
        for (const path of paths) assert.match(await get(path), /^HTTP\/1\.1 \d{3} /, path);
        const connect = await raw(
          server.port,
          `CONNECT /api?api-key=${keep('connect')} HTTP/1.1\r\nHost: x\r\n`,
        );
        assert.match(connect, /^HTTP\/1\.1 405 /);
        const form = 'Content-Type: application/x-www-form-urlencoded\r\n';
        await raw(
          server.port,
          `POST /api/v1/articles?apiKey%5B%5D=${keep('abort')} HTTP/1.1\r\nHost: x\r\n${form}`,
          'url=',
        );
        await until('the aborted request logged', () =>
          started.stderr().includes('client closed the connection'),
        );

        if (engine === 'postgres') {
          await database.drop(); // every connection cut, and the database gone: 503s and their warn lines
          database = undefined;
          for (const n of nearMisses) {
            const path = `/api?api_key=${key}&${n}=${keep('outage')}`;
            assert.match(await get(path), /^HTTP\/1\.1 503 /, path);
          }
          assert.ok(server.stderr().includes('"database unavailable"'), 'the outage was logged');
        }
        server.child.kill('SIGTERM');
        assert.equal((await exitWithin(server, 10_000)).code, 0, server.stderr());

        const log = server.stderr();
        assert.ok(log.includes('[redacted]'));
        for (const s of [key, key.slice(4), ...secrets]) {
          assert.ok(!log.includes(s), `the log holds ${s}:\n${log}`);
        }
        const listening = log.split('\n').find((line) => line.includes('"msg":"listening"')) ?? '';
        const database_ = (JSON.parse(listening) as { database: string }).database;
        if (engine === 'postgres') {
          assert.equal(
            database_,
            `postgres postgres://postgres:[redacted]@127.0.0.1:5432/${name}?password=[redacted]`,
          );
        }
        for (const s of secrets) assert.ok(!server.stdout().includes(s), `stdout holds ${s}`);
      });

      test('no logged line holds a live signed link’s token, whether it opened a page or got a 404', async () => {
        const db = await createTestDatabase(engine);
        let serve: ServerProcess | undefined;
        try {
          serve = await startServer({ databaseUrl: db.url, env: { TIDINGS_WORKER: 'false' } });
          const started = serve;
          await until('the first key on stdout', () => KEY_LINE.test(started.stdout()));
          // The first account's live links, made as serve makes them (its clock is the real one).
          const store = openStore(db.url);
          let links: { invite: string; action: string; unsubscribe: string; digest: string };
          let digestId: number;
          let itemId: number;
          try {
            const first = await store.db
              .selectFrom('accounts')
              .select('id')
              .orderBy('id')
              .executeTakeFirstOrThrow();
            const admin = grantAccount(first.id);
            await saveUrl(store, admin, 'https://example.org/tides', 'Tides');
            const built = await buildDigestNow(testDigestDeps(store), admin);
            assert.equal(built.status, 'built');
            digestId = built.digestId;
            itemId = (await itemsOf(store, digestId))[0]?.id ?? 0;
            const now = new Date();
            const [action] = await mintActionTokens(store.db, [{ accountId: admin, digestId }], now);
            links = {
              invite: (await inviteAccount(store, admin, { days: 7 }, now)).token,
              action: action ?? '',
              unsubscribe: (await mintUnsubscribeToken(store.db, admin, now)) ?? '',
              digest: (await ensureDigestToken(store.db, admin)) ?? '',
            };
          } finally {
            await store.close();
          }
          const { invite, action, unsubscribe, digest } = links;
          const get = (path: string): Promise<string> =>
            raw(started.port, `GET ${path} HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n`);
          const status = async (path: string): Promise<string> => (await get(path)).slice(9, 12);

          // Live: each opens its page.
          const opened = [
            `/invite/${invite}`,
            `/digest-actions/${action}?do=keep&item=${itemId}`,
            `/unsubscribe/${unsubscribe}`,
            `/digests/${digestId}?token=${digest}&action_token=${action}`,
            `/digests.atom?token=${digest}`,
          ];
          for (const path of opened) assert.equal(await status(path), '200', path);
          // The same tokens spelled otherwise: most are 404s (a route's name percent-encoded still opens it).
          const missed = [
            `//invite/${invite}`,
            `/invite//${invite}`,
            `/INVITE/${invite}`,
            `/%69nvite/${invite}`,
            `/invite%2F${invite}`,
            `/./invite/${invite}`,
            `/invite/${invite}/`,
            `/invite/${invite}%`,
            `//digest-actions/${action}?do=keep&item=${itemId}`,
            `/digest-actions//${action}?do=keep&item=${itemId}`,
            `/Digest-Actions/${action}`,
            `/digest-actions%2f${action}`,
            `/x/../digest-actions/${action}`,
            `/digest-actions\\${action}`,
            `///unsubscribe///${unsubscribe}`,
            `/unsubscribe/${unsubscribe}/x`,
            `/%75nsubscribe/${unsubscribe}`,
            `/unsubscribe;x/${unsubscribe}`,
            `/nowhere/${action}`,
            `/digests.atom?t=${digest}`,
            `/digests/${digestId}?tok%00en=${digest}`,
            `/items/1?x=${Buffer.from(digest).toString('hex').replace(/../g, '%$&')}`,
          ];
          for (const path of missed) assert.match(await status(path), /^\d{3}$/, path);

          serve.child.kill('SIGTERM');
          assert.equal((await exitWithin(serve, 10_000)).code, 0, serve.stderr());
          const log = serve.stderr();
          const requests = log.split('\n').filter((line) => line.includes('"msg":"request"'));
          // Each request has its line but the one with broken percent-encoding, which Fastify answers first.
          const logged = opened.length + missed.filter((path) => !path.endsWith('%')).length;
          assert.ok(requests.length >= logged, `every request was logged:\n${log}`);
          assert.ok(log.includes('"url":"/invite/[redacted]"'), 'an invitation is logged redacted');
          assert.ok(log.includes('"url":"//digest-actions/[redacted]?do=keep'), 'its route still shows');
          for (const [name, token] of Object.entries(links)) {
            assert.match(token, /^[A-Za-z0-9_-]{43}$/, name);
            assert.ok(!log.includes(token), `the log holds the ${name} token:\n${log}`);
            assert.ok(!serve.stdout().includes(token), `stdout holds the ${name} token`);
          }
        } finally {
          await serve?.stop();
          await db.drop();
        }
      });
    },
  );
}
