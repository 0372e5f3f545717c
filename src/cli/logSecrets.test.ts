/**
 * `tidings serve` as a real process: no line it logs (start-up, requests, errors) holds the database
 * password, the SMTP password, an API key or any other secret of a URL, however the URL spells it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ENGINES, type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
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
    },
  );
}
