/**
 * The two servers bench:api and bench:scale load: built `tidings serve` processes (logs to /dev/null, as
 * writing them is part of the cost) and ceiling processes (bench/ceiling.ts), plus the accounts, the seeded
 * queue and the requests of the GET A and POST A cases.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Options } from 'autocannon';
import { distinctSaves } from './posts.js';
import { type Cleanup, firstLine, freePort, runCommand, waitUntilReady } from './processes.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The process users run (package.json bin, npm start, the image, the units): the bundle. */
export const CLI = join(ROOT, 'dist', 'app', 'main.js');
const CEILING = join(ROOT, 'bench', 'ceiling.ts');
/** The GET account's queue: GET A answers these many items. */
export const SEED_ITEMS = 100;
/** Tidings' answer to a save it queued. */
export const POST_SUCCESS = '{"code":0,"message":"saved for the next digest"}';

export interface Target {
  child: ChildProcess;
  base: string;
}

/** The path of the GET A and POST A cases. */
export const pathA = (key: string): string => `/api/v1/articles?apiKey=${key}`;

/** GET A on each base (autocannon spreads the connections over them). */
export const getA = (bases: string[], key: string): Options => ({
  url: bases.map((b) => `${b}${pathA(key)}`),
});

/** POST A on each base: saves of distinct URLs, so every Tidings request is a real insert. */
export const postA = (bases: string[], key: string): Options => ({
  url: bases.map((b) => `${b}${pathA(key)}`),
  requests: distinctSaves(),
});

/**
 * The environment of a benchmarked `tidings serve` (or CLI command) on databaseUrl. The instance serves
 * only HTTP (TIDINGS_WORKER=false, as the scale-out instances of docs/operating.md): the page reader
 * inside it would otherwise start reading the saved links 30 s after start, inside whichever run came
 * then, and halve that run's throughput for 10–15 s (measured: POST A from 10,100–11,600 to 4,100–7,200
 * req/s), so a ratio depended on where that pass fell. The background work is measured by its own benches.
 */
export function serveEnv(databaseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    TIDINGS_QUEUE_LIMIT: '1000000',
    TIDINGS_WORKER: 'false',
    ...extra,
  };
}

/** `tidings account create` through the CLI (which migrates the database first); returns the key. */
export async function createAccount(cleanup: Cleanup, env: NodeJS.ProcessEnv, name: string): Promise<string> {
  const out = await runCommand(cleanup, [CLI, 'account', 'create', '--name', name, '--json'], env);
  const parsed = JSON.parse(out.trim()) as { apiKey?: unknown };
  if (typeof parsed.apiKey !== 'string') throw new Error(`account create printed no key: ${out}`);
  return parsed.apiKey;
}

export async function expectOk(res: Response, what: string): Promise<Buffer> {
  const body = Buffer.from(await res.arrayBuffer());
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${body.toString()}`);
  return body;
}

/** Starts `tidings serve` on a free port (stdout and stderr to /dev/null) and waits for /healthz. */
export async function startServe(
  cleanup: Cleanup,
  env: NodeJS.ProcessEnv,
  cwd: string,
  nodeFlags: string[] = [],
): Promise<Target> {
  const port = await freePort();
  const child = cleanup.track(
    spawn(process.execPath, [...nodeFlags, CLI, 'serve'], {
      env: { ...env, PORT: String(port) },
      stdio: 'ignore',
      cwd,
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, `${base}/healthz`);
  return { child, base };
}

/**
 * Saves SEED_ITEMS URLs for key through base, checks that GET A answers them all, and writes that answer
 * to bodyFile (what the ceiling answers); returns it.
 */
export async function seedQueue(base: string, key: string, bodyFile: string): Promise<Buffer> {
  for (let i = 1; i <= SEED_ITEMS; i++) {
    const res = await fetch(`${base}${pathA(key)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `url=${encodeURIComponent(`https://example.com/articles/${i}?ref=seed`)}&title=Seed+article+${i}`,
    });
    const body = (await expectOk(res, 'seeding')).toString();
    if (body !== POST_SUCCESS) throw new Error(`seeding: unexpected answer ${body}`);
  }
  const getBody = await expectOk(await fetch(`${base}${pathA(key)}`), 'GET');
  const items = JSON.parse(getBody.toString()) as unknown[];
  if (items.length !== SEED_ITEMS) throw new Error(`GET shows ${items.length} items, not ${SEED_ITEMS}`);
  writeFileSync(bodyFile, getBody);
  return getBody;
}

/** Checks that GET A on base still answers SEED_ITEMS items (nothing the benchmark did changed that queue). */
export async function expectSeeded(base: string, key: string): Promise<void> {
  const after = JSON.parse(
    (await expectOk(await fetch(`${base}${pathA(key)}`), 'GET after')).toString(),
  ) as unknown[];
  if (after.length !== SEED_ITEMS) throw new Error('the GET account changed during the benchmark');
}

/** Starts a ceiling process answering bodyFile's bytes, and checks it answers GET A with getBody. */
export async function startCeiling(
  cleanup: Cleanup,
  bodyFile: string,
  getBody: Buffer,
  key: string,
): Promise<Target> {
  const child = cleanup.track(
    spawn(process.execPath, ['--import', 'tsx', CEILING, bodyFile], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: ROOT,
    }),
  );
  const { port } = JSON.parse(await firstLine(child)) as { port: number };
  const base = `http://127.0.0.1:${port}`;
  const ceilingGet = await expectOk(await fetch(`${base}${pathA(key)}`), 'ceiling GET');
  if (!ceilingGet.equals(getBody)) throw new Error('the ceiling does not answer the same GET bytes');
  return { child, base };
}
