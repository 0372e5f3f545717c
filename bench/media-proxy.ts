/**
 * bench:media-proxy: what Tidings' media proxy (src/http/media.ts, src/fetch/media.ts) costs a `tidings
 * serve` (issue 34 point 7).
 *
 * 1. Idle: the resident size (VmRSS) of a fresh serve (TIDINGS_WORKER=false) BENCH_IDLE_S after it
 *    answered, before any image is asked for: the proxy's fetching, file-type and lru-cache are loaded at
 *    the first image only (bench:footprint measures idle serve with its workers).
 * 2. One image many times: a 1 MiB PNG through the proxy, fetched once then answered from memory, under
 *    autocannon (BENCH_CONNECTIONS connections, BENCH_SECONDS s): requests a second and latency.
 * 3. Many images once: BENCH_IMAGES distinct 1 MiB PNGs, BENCH_CLIENTS requests at once, every one a fetch
 *    from the images' server on loopback (TIDINGS_ALLOW_PRIVATE_NETWORKS=true); VmRSS sampled every 50 ms:
 *    the peak, and what is left after.
 *
 * The signed links are made here with the instance's key, read from the same database (src/fetch/
 * mediaKey.ts). Env: BENCH_IMAGES (100), BENCH_CLIENTS (16), BENCH_CONNECTIONS (10), BENCH_SECONDS (10),
 * BENCH_IDLE_S (60).
 * Run: npm run bench:media-proxy (builds first).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { deflateSync } from 'node:zlib';
import autocannon, { type Result } from 'autocannon';
import { MediaSigner } from '../src/fetch/mediaKey.js';
import { openStore } from '../src/store/db.js';
import { envInt } from './env.js';
import { runBench } from './processes.js';
import { fmt, load, log, mb } from './report.js';
import { createAccount, serveEnv, startServe } from './targets.js';

const IMAGES = envInt('BENCH_IMAGES', 100);
const CLIENTS = envInt('BENCH_CLIENTS', 16);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const SECONDS = envInt('BENCH_SECONDS', 10);
const IDLE_S = envInt('BENCH_IDLE_S', 60);

/** A PNG of about `bytes` bytes: a valid header, then an IDAT chunk of random-looking data. */
function pngOf(bytes: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(512, 0);
  ihdr.writeUInt32BE(512, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const noise = Buffer.alloc(bytes);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(noise, { level: 0 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function rssOf(pid: number | undefined): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid ?? 0}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

function cannon(url: string): Promise<Result> {
  return new Promise((ok, fail) => {
    autocannon({ url, connections: CONNECTIONS, duration: SECONDS, pipelining: 1, timeout: 10 }, (err, r) => {
      if (err !== null) fail(err);
      else ok(r);
    });
  });
}

await runBench('bench:media-proxy', async (cleanup) => {
  const tmp = mkdtempSync(join(tmpdir(), 'tidings-media-'));
  cleanup.defer('remove the temporary directory', () => rmSync(tmp, { recursive: true, force: true }));
  log(
    `bench:media-proxy: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, Node ${process.version}, load ${load()}`,
  );

  const png = pngOf(1024 * 1024);
  let served = 0;
  const images: Server = createServer((_req, res) => {
    served++;
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  cleanup.defer('stop the images server', () => new Promise((resolve) => images.close(() => resolve())));
  const origin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;

  const database = join(tmp, 'tidings.db');
  const env = serveEnv(database, { TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'warn' });
  await createAccount(cleanup, env, 'bench'); // migrates the database
  const store = openStore(database);
  cleanup.defer('close the store', () => store.close());
  const media = await new MediaSigner(store.db, () => ({ baseUrl: '', proxy: true })).links();
  const path = (n: number): string => media.image(`${origin}/img/${n}.png`) ?? '';

  const serve = await startServe(cleanup, env, tmp);
  await sleep(IDLE_S * 1000);
  const idle = rssOf(serve.child.pid);
  log(`  idle serve ${IDLE_S} s after start, no image asked for yet: ${mb(idle)}`);

  // 2. One image, many times.
  const first = await fetch(`${serve.base}${path(0)}`);
  if (first.status !== 200) throw new Error(`the proxy answered ${first.status}: ${await first.text()}`);
  await first.arrayBuffer();
  const hot = await cannon(`${serve.base}${path(0)}`);
  if (hot.non2xx + hot.errors + hot.timeouts > 0)
    throw new Error(`${hot.non2xx} non-2xx, ${hot.errors} errors`);
  log(
    `  one cached 1 MiB image, ${CONNECTIONS} connections, ${SECONDS} s: ${fmt(hot.requests.average)} req/s, ` +
      `latency p50 ${hot.latency.p50} ms, p99 ${hot.latency.p99} ms; fetched from its server ${served} time(s)`,
  );
  const afterHot = rssOf(serve.child.pid);

  // 3. Many distinct images, each fetched once.
  served = 0;
  let peak = rssOf(serve.child.pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(serve.child.pid));
  }, 50);
  const began = performance.now();
  let next = 1;
  let failed = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next <= IMAGES) {
        const n = next++;
        const res = await fetch(`${serve.base}${path(n)}`);
        await res.arrayBuffer();
        if (res.status !== 200) failed++;
      }
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  clearInterval(sampler);
  await sleep(2000);
  const settled = rssOf(serve.child.pid);
  log(
    `  ${IMAGES} distinct 1 MiB images, ${CLIENTS} at once: ${fmt(seconds, 1)} s, ${failed} failed, ` +
      `${served} fetches; VmRSS after the cached run ${mb(afterHot)}, peak ${mb(peak)}, 2 s after ${mb(settled)}`,
  );
  return failed === 0 ? 0 : 1;
});
