import assert from 'node:assert/strict';
import { type AddressInfo, type Socket, connect } from 'node:net';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { IMPORT_THREAD_LIMITS, type ImportThreadLimits, ImportThreads } from '../../imports/importThread.js';
import { accountById, updateAccountSettings } from '../../store/accounts.js';
import { readingListCounts } from '../../store/readingList.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { describeEachEngine, newAccount, silentLogger } from '../../test/harness.js';
import { WebClient } from '../../test/webClient.js';
import { buildServer } from '../server.js';

/**
 * The upload's limits over real connections (issue 33): a waiting upload whose client has gone leaves the
 * queue, and an upload that does not arrive within its time limit is answered with the page. The requests
 * are written on raw sockets, so that a test can stop sending halfway or close the connection for real.
 */

const CSV =
  'title,url,time_added,tags,status\nOne,https://one.example/,1609459200,,unread\nTwo,https://two.example/,1609459200,,unread\n';
const BOUNDARY = 'tidings-test-boundary';

/** A multipart body with the CSRF token and one export file. */
function uploadBody(csrf: string, file: string): Buffer {
  return Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="format"\r\n\r\nauto\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="export"; filename="export.csv"\r\n` +
      `Content-Type: text/csv\r\n\r\n${file}\r\n--${BOUNDARY}--\r\n`,
  );
}

interface RawUpload {
  socket: Socket;
  /** Everything the server sent, once it closed the connection (or the client did). */
  answer: Promise<string>;
}

/** The upload's request on a socket of its own: the headers and the first `sent` bytes of the body. */
function rawUpload(port: number, cookie: string, body: Buffer, sent = body.length): RawUpload {
  const socket = connect(port, '127.0.0.1');
  socket.write(
    `POST /reading-list/import HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAccept: text/html\r\nCookie: ${cookie}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  socket.write(body.subarray(0, sent));
  const answer = new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
  return { socket, answer };
}

await describeEachEngine('the reading-list upload’s limits, over real connections', (ctx) => {
  async function serve(
    limits: Partial<ImportThreadLimits>,
    hooks: ConstructorParameters<typeof ImportThreads>[1] = {},
  ): Promise<{ app: FastifyInstance; port: number; sockets: Socket[] }> {
    const app = buildServer({
      config: { trustProxy: false, queueLimit: 10_000, baseUrl: 'http://127.0.0.1:8080' },
      store: ctx.store(),
      logger: silentLogger,
      importThreads: new ImportThreads({ ...IMPORT_THREAD_LIMITS, ...limits }, hooks),
    });
    const sockets: Socket[] = [];
    app.server.on('connection', (socket: Socket) => sockets.push(socket));
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { app, port: (app.server.address() as AddressInfo).port, sockets };
  }

  async function signedIn(app: FastifyInstance): Promise<{ id: number; csrf: string; cookie: string }> {
    const account = await newAccount(ctx.store());
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    await client.get('/reading-list');
    return {
      id: account.id,
      csrf: client.csrf,
      cookie: `tidings_session=${client.cookies.get('tidings_session') ?? ''}`,
    };
  }

  test('a waiting upload whose client closes its connection leaves the queue; its file is never read', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reading: () => void = () => undefined;
    const firstReading = new Promise<void>((resolve) => {
      reading = resolve;
    });
    const waits: number[] = [];
    const waitChanged: (() => void)[] = [];
    let threadsStarted = 0;
    const { app, port, sockets } = await serve(
      { running: 1, waiting: 4 },
      {
        // The first upload's thread is held while it reads, so that the others wait for as long as the test needs.
        parsing: () => {
          threadsStarted++;
          if (threadsStarted > 1) return;
          reading();
          return held;
        },
        waiting: (n) => {
          waits.push(n);
          waitChanged.shift()?.();
        },
      },
    );
    const nextWait = () =>
      new Promise<void>((resolve) => {
        waitChanged.push(resolve);
      });
    try {
      const [first, gone, last] = [await signedIn(app), await signedIn(app), await signedIn(app)];
      const firstUpload = rawUpload(port, first.cookie, uploadBody(first.csrf, CSV));
      await firstReading;

      let queued = nextWait();
      const goneUpload = rawUpload(port, gone.cookie, uploadBody(gone.csrf, CSV));
      await queued;
      queued = nextWait();
      const lastUpload = rawUpload(port, last.cookie, uploadBody(last.csrf, CSV));
      await queued;
      assert.deepEqual(waits, [1, 2]);

      // The client goes: its connection is closed for real, and the server hears it.
      const heard = new Promise<void>((resolve) => {
        const server = sockets.find((s) => s.remotePort === goneUpload.socket.localPort);
        assert.ok(server !== undefined);
        server.once('close', () => resolve());
      });
      goneUpload.socket.destroy();
      await heard;
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(waits, [1, 2, 1], 'the abandoned upload left its place when its connection closed');

      release();
      for (const upload of [firstUpload, lastUpload]) {
        assert.match(await upload.answer, /^HTTP\/1\.1 200 [\s\S]*Imported 2 links from a pocket export/);
      }
      assert.equal(threadsStarted, 2, 'the abandoned upload’s file was never read');
      assert.deepEqual(await readingListCounts(ctx.store().db, gone.id), { unread: 0, archived: 0 });
      assert.deepEqual(await readingListCounts(ctx.store().db, last.id), { unread: 2, archived: 0 });
    } finally {
      release();
      await app.close();
    }
  });

  test('an upload that does not arrive within its time limit is answered with the page, 408 (issue 33 J)', async () => {
    // The limit made small: this upload never completes (its client stops halfway and waits).
    const { app, port } = await serve({ uploadMs: 500 });
    try {
      const reader = await signedIn(app);
      const body = uploadBody(reader.csrf, CSV);
      const stalled = rawUpload(port, reader.cookie, body, Math.floor(body.length / 2));
      const answer = await stalled.answer;
      assert.match(answer, /^HTTP\/1\.1 408 /);
      assert.match(answer, /content-type: text\/html/i);
      assert.match(answer, /did not arrive within 0\.5 s/);
      assert.match(answer, /Import a reading list/, 'the reading list’s page, with its form');
      assert.deepEqual(await readingListCounts(ctx.store().db, reader.id), { unread: 0, archived: 0 });
    } finally {
      await app.close();
    }
  });

  test('en-XA: the page of an upload past its time limit leaves no English word (issue 36)', async () => {
    const { app, port } = await serve({ uploadMs: 500 });
    try {
      const reader = await signedIn(app);
      await updateAccountSettings(ctx.store().db, reader.id, { language: 'en-XA' });
      const body = uploadBody(reader.csrf, CSV);
      const answer = await rawUpload(port, reader.cookie, body, Math.floor(body.length / 2)).answer;
      assert.match(answer, /^HTTP\/1\.1 408 /);
      assert.match(answer, /content-length: \d+/i, 'one body, not chunks');
      const page = answer.slice(answer.indexOf('\r\n\r\n'));
      assert.match(page, /<p class="error" role="alert" id="import-error">[^<]*tidings import/);
      const name = (await accountById(ctx.store().db, reader.id))?.name ?? '';
      assert.deepEqual(
        englishWordsOf(page, [name, 'tidings import --account ID FILE', 'tidings import']),
        [],
      );
    } finally {
      await app.close();
    }
  });

  test('the server’s own request timeout never cuts an upload before the upload’s limit does', async () => {
    const { app } = await serve({});
    try {
      assert.ok(app.server.requestTimeout >= 2 * IMPORT_THREAD_LIMITS.uploadMs);
    } finally {
      await app.close();
    }
  });
});
