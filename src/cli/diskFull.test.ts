/**
 * A full disk is an outage, not a bug (issue 25, F6): a real `tidings serve` with its SQLite database on a
 * tmpfs of 8 MiB. Filled up, its saves are answered 503 with Retry-After (never 500) and /readyz is 503;
 * the filler removed, saves go through again and /readyz is 200, with nobody's help; every save answered
 * 2xx is in the queue. Mounting needs root (or CAP_SYS_ADMIN): without it the test is skipped with the
 * reason, except under CI=true, where it fails.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import {
  type HttpResult,
  type ServerProcess,
  assertBuilt,
  createAccountViaCli,
  request,
  startServer,
} from '../test/process.js';

assertBuilt();

const mountPoint = mkdtempSync(join(tmpdir(), 'tidings-full-'));

/** Mounts an 8 MiB tmpfs on mountPoint; undefined when done, else why it cannot be. */
function mountTmpfs(): string | undefined {
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint], {
    encoding: 'utf8',
  });
  if (mounted.status === 0) return undefined;
  rmSync(mountPoint, { recursive: true, force: true });
  const why = (mounted.error?.message ?? mounted.stderr).trim();
  const reason = `cannot mount a tmpfs (needs root or CAP_SYS_ADMIN): ${why}`;
  if (process.env.CI === 'true') throw new Error(`${reason}; CI=true requires it`);
  return reason;
}

const skip = mountTmpfs();

/** Writes zeros to `file` until the filesystem is full. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(64 * 1024);
  try {
    for (;;) {
      try {
        writeSync(fd, block);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw err;
      }
    }
    // The last blocks a smaller write still fits in.
    for (const size of [4096, 512]) {
      try {
        for (;;) writeSync(fd, Buffer.alloc(size));
      } catch {
        // full at this size
      }
    }
  } finally {
    closeSync(fd);
  }
}

async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('a full disk under SQLite', { skip }, () => {
  const databaseUrl = join(mountPoint, 'tidings.db');
  const filler = join(mountPoint, 'filler');
  let server: ServerProcess | undefined;
  let apiKey = '';

  before(async () => {
    ({ apiKey } = await createAccountViaCli(databaseUrl, 'full disk'));
    server = await startServer({ databaseUrl });
  });

  after(async () => {
    await server?.stop();
    spawnSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  test('answers 503 with Retry-After and readiness 503 while full, and writes again once space returns', async () => {
    if (server === undefined) throw new Error('no server');
    const base = server.baseUrl;
    const save = (n: number): Promise<HttpResult> =>
      request(`${base}/api/v1/articles?apiKey=${apiKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // A long title: each save needs room, as a page's text would.
        body: JSON.stringify({ url: `https://full.example/${n}`, title: `Item ${n} ${'x'.repeat(900)}` }),
      });
    const ready = async (): Promise<HttpResult> => request(`${base}/readyz`);
    const acknowledged: string[] = [];
    let n = 0;
    const record = (res: HttpResult, i: number): void => {
      if (res.status === 200) acknowledged.push(`https://full.example/${i}`);
    };

    for (let k = 0; k < 20; k++, n++) {
      const res = await save(n);
      assert.equal(res.status, 200, res.body);
      record(res, n);
    }
    assert.equal((await ready()).status, 200);

    fill(filler);
    const statuses = new Map<number, number>();
    for (let k = 0; k < 300; k++, n++) {
      const res = await save(n);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      record(res, n);
      if (res.status === 503) {
        assert.equal(res.headers['retry-after'], '5');
        const body = JSON.parse(res.body) as { code: number; message: string };
        assert.equal(body.code, 50301);
        assert.match(body.message, /disk is full/);
      } else {
        assert.equal(res.status, 200, `a save on a full disk is 200 or 503, not ${res.status}: ${res.body}`);
      }
    }
    assert.ok((statuses.get(503) ?? 0) > 0, `saves were refused: ${JSON.stringify([...statuses])}`);
    const unready = await ready();
    assert.equal(unready.status, 503, unready.body);
    assert.equal(unready.headers['retry-after'], '5');
    assert.match(unready.body, /"code":50301/);
    assert.match(unready.body, /disk is full/);

    rmSync(filler);
    await until('readiness again', async () => (await ready()).status === 200);
    for (let k = 0; k < 20; k++, n++) {
      const res = await save(n);
      assert.equal(res.status, 200, res.body);
      record(res, n);
    }
    assert.equal((await ready()).status, 200);

    const queue = await request(`${base}/api/v1/articles?apiKey=${apiKey}`);
    assert.equal(queue.status, 200);
    const urls = new Set((JSON.parse(queue.body) as { url: string }[]).map((q) => q.url));
    const lost = acknowledged.filter((u) => !urls.has(u));
    assert.deepEqual(lost, [], 'every save answered 200 is in the queue');
    assert.doesNotMatch(server.stderr(), /"level":60/, 'nothing fatal');
    await server.stop();
    const db = new SQLite(databaseUrl, { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      db.close();
    }
  });
});
