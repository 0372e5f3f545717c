/**
 * npm run test:container: builds the image from the Containerfile and tests it for real with Podman
 * (docs/operating.md, "Containers"): one container with a volume (the printed key, both API variants, a
 * restart, a non-root process, the health check, a clean stop within 10 s with nothing lost), then
 * deploy/compose.yaml, then deploy/compose.postgres.yaml with podman-compose (PostgreSQL, two HTTP-only serve, a worker that emails a
 * digest to an SMTP sink in this process). Installs what it needs; leaves nothing behind but the image.
 *
 *   npm run test:container        (TIDINGS_CONTAINER_TEST_KEEP=1 keeps the base image and build cache)
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/test/process.js';
import { type Result, ensureTools, makeNodeBase, podman, podmanEnv, run } from './container/podman.js';
import { testComposeStack, testSqliteCompose } from './container/compose.js';
import { type Api, KEY_LINE, apiOf, until, waitHealthy } from './container/api.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMAGE = 'localhost/tidings:latest';
const DEFAULT_BASE = 'docker.io/library/node:20-bookworm-slim';
const LOCAL_BASE = 'localhost/tidings-test-base:latest';
const KEEP = process.env.TIDINGS_CONTAINER_TEST_KEEP === '1';
const tag = `tidings-test-${process.pid}`;

const timings: [string, number][] = [];
async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const start = Date.now();
  console.log(`== ${label}`);
  try {
    return await fn();
  } finally {
    timings.push([label, Date.now() - start]);
  }
}

/** Names of what podman lists of one kind (containers, volumes, networks, dangling images). */
async function listed(env: NodeJS.ProcessEnv, args: string[]): Promise<Set<string>> {
  return new Set((await podman(env, args)).split('\n').filter((l) => l !== ''));
}
const INVENTORY = {
  containers: ['ps', '-a', '--format', '{{.Names}}'],
  volumes: ['volume', 'ls', '--format', '{{.Name}}'],
  networks: ['network', 'ls', '--format', '{{.Name}}'],
  'dangling images': ['images', '--filter', 'dangling=true', '--format', '{{.ID}}'],
} as const;

/** The default base when it is here or can be pulled; else one made from Debian and this machine's Node. */
async function baseImage(env: NodeJS.ProcessEnv, made: string[]): Promise<string> {
  if ((await run('podman', ['image', 'exists', DEFAULT_BASE], { env })).code === 0) return DEFAULT_BASE;
  const pulled = await run('podman', ['pull', '-q', DEFAULT_BASE], { env, timeoutMs: 300_000 });
  if (pulled.code === 0) return DEFAULT_BASE;
  console.log(`   ${DEFAULT_BASE} cannot be pulled (${pulled.stderr.trim().split('\n').pop() ?? ''})`);
  if ((await run('podman', ['image', 'exists', LOCAL_BASE], { env })).code !== 0) {
    console.log(`   making ${LOCAL_BASE} with mmdebstrap and this machine's Node ${process.version}`);
    await makeNodeBase(env, LOCAL_BASE);
  }
  made.push(LOCAL_BASE);
  return LOCAL_BASE;
}

/** podman build as CI can run it: host network for apt and npm, the machine's CA bundle for the RUN steps. */
async function build(
  env: NodeJS.ProcessEnv,
  opts: { base: string; image: string; file: string; context: string; caBundle?: boolean },
): Promise<void> {
  // npm reaches its registry with the machine's CA bundle (a build step that writes there cannot have it).
  const certs = opts.caBundle === false ? [] : ['-v', '/etc/ssl/certs:/etc/ssl/certs:ro'];
  await podman(
    env,
    [
      'build',
      '--format',
      'docker', // keeps HEALTHCHECK (OCI images drop it)
      '--network',
      'host',
      ...certs,
      '--build-arg',
      `BASE_IMAGE=${opts.base}`,
      '-t',
      opts.image,
      '-f',
      opts.file,
      opts.context,
    ],
    1_800_000,
  );
}

interface Inspected {
  State: { ExitCode: number; Health?: { Status: string }; Healthcheck?: { Status: string } };
}
async function inspect(env: NodeJS.ProcessEnv, name: string): Promise<Inspected> {
  const [first] = JSON.parse(await podman(env, ['inspect', name])) as Inspected[];
  assert.ok(first !== undefined, `podman inspect ${name} found nothing`);
  return first;
}

/** One container with a volume: key, both API variants, restart, user, health check, a clean stop. */
async function testOneContainer(
  env: NodeJS.ProcessEnv,
  cleanups: (() => Promise<unknown>)[],
): Promise<number> {
  const name = `${tag}-one`;
  const volume = `${tag}-data`;
  cleanups.push(() => run('podman', ['volume', 'rm', '-f', volume], { env }));
  cleanups.push(() => run('podman', ['rm', '-f', '-t', '0', name], { env }));
  await podman(env, ['volume', 'create', volume]);
  const port = await freePort();
  await podman(env, [
    'run',
    '-d',
    '--name',
    name,
    '--network',
    'host',
    '-e',
    `PORT=${port}`,
    '-e',
    'HOST=127.0.0.1',
    '-v',
    `${volume}:/data`,
    IMAGE,
  ]);
  const origin = `http://127.0.0.1:${port}`;
  await waitHealthy(origin, 60_000);
  const logs = async (): Promise<Result> => run('podman', ['logs', name], { env });
  await until('the first account key in the logs', async () => KEY_LINE.test((await logs()).stdout), 10_000);
  const key = KEY_LINE.exec((await logs()).stdout)?.[1];
  assert.ok(key !== undefined);
  const api: Api = apiOf(origin, key);

  assert.equal(await api.save('A', 'https://example.com/variant-a'), true, 'save through /api/v1/articles');
  assert.equal(await api.save('B', 'https://example.com/variant-b'), true, 'save through /api');

  const status = await podman(env, ['exec', name, 'cat', '/proc/1/status']);
  const uids = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(status)?.slice(1).map(Number) ?? [];
  assert.equal(uids.length, 4, status);
  assert.ok(
    uids.every((u) => u !== 0),
    `PID 1 runs as uid ${uids.join('/')}`,
  );
  assert.notEqual((await podman(env, ['exec', name, 'id', '-u'])).trim(), '0');

  await podman(env, ['healthcheck', 'run', name]);
  const health = (await inspect(env, name)).State;
  assert.equal((health.Health ?? health.Healthcheck)?.Status, 'healthy');

  // Saves keep coming while the container is stopped: every acknowledged one must be there after a restart.
  const acknowledged: string[] = [];
  const flooding = { stop: false };
  const flood = (async (): Promise<void> => {
    for (let i = 0; !flooding.stop; i++) {
      const url = `https://example.com/flood/${i}`;
      if (await api.save(i % 2 === 0 ? 'A' : 'B', url).catch(() => false)) acknowledged.push(url);
      else await new Promise((r) => setTimeout(r, 20));
    }
  })();
  await until('saves under way', () => acknowledged.length >= 20, 30_000);
  const stopStart = Date.now();
  await podman(env, ['stop', '-t', '10', name], 30_000);
  const stopMs = Date.now() - stopStart;
  flooding.stop = true;
  await flood;
  console.log(`   podman stop: ${stopMs} ms with ${acknowledged.length} saves acknowledged`);
  assert.ok(stopMs < 10_000, `podman stop -t 10 took ${stopMs} ms`);
  assert.equal((await inspect(env, name)).State.ExitCode, 0, 'exit status after SIGTERM');
  assert.match((await logs()).stderr, /"msg":"stopped"/);

  await podman(env, ['start', name]);
  await waitHealthy(origin, 60_000);
  for (const variant of ['A', 'B'] as const) {
    const urls = new Set(await api.list(variant));
    for (const url of ['https://example.com/variant-a', 'https://example.com/variant-b', ...acknowledged]) {
      assert.ok(urls.has(url), `${url} missing after the restart (variant ${variant})`);
    }
  }
  assert.equal((await logs()).stdout.match(new RegExp(KEY_LINE.source, 'gm'))?.length, 1, 'key printed once');
  await podman(env, ['stop', '-t', '10', name], 30_000);
  return stopMs;
}

async function main(): Promise<void> {
  const started = Date.now();
  await timed('tools', ensureTools);
  const env = podmanEnv();
  const before = new Map<string, Set<string>>();
  for (const [kind, args] of Object.entries(INVENTORY)) before.set(kind, await listed(env, [...args]));
  const made: string[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  let stopMs = 0;
  let failure: Error | null = null;
  try {
    const base = await timed('base image', () => baseImage(env, made));
    const baseSize = Number(await podman(env, ['image', 'inspect', base, '--format', '{{.Size}}']));
    await timed('build the image', () =>
      build(env, { base, image: IMAGE, file: `${ROOT}/Containerfile`, context: ROOT }),
    );
    const size = Number(await podman(env, ['image', 'inspect', IMAGE, '--format', '{{.Size}}']));
    const addedMb = (size - baseSize) / 1e6;
    console.log(`   ${IMAGE}: ${addedMb.toFixed(1)} MB over its base (${(size / 1e6).toFixed(1)} MB in all)`);
    assert.ok(addedMb < 100, `the image adds ${addedMb.toFixed(1)} MB to its base (limit 100 MB)`);
    stopMs = await timed('one container with a volume', () => testOneContainer(env, cleanups));
    await timed('compose.yaml with podman-compose', () =>
      testSqliteCompose({
        env,
        root: ROOT,
        image: IMAGE,
        project: `${tag.replace(/[^a-z0-9]/g, '')}sqlite`,
        cleanups,
      }),
    );
    await timed('compose.postgres.yaml with podman-compose', () =>
      testComposeStack({
        env,
        root: ROOT,
        base,
        image: IMAGE,
        project: tag.replace(/[^a-z0-9]/g, ''),
        cleanups,
        made,
        build,
      }),
    );
  } catch (err) {
    failure = err instanceof Error ? err : new Error(String(err));
  }
  await timed('clean up', async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err: unknown) => console.error(err));
    // Anonymous volumes (the image's VOLUME /data) that podman-compose's run-then-start fallback can leave
    // unattached to any container the cleanups found: every volume made during the test goes.
    for (const volume of await listed(env, [...INVENTORY.volumes])) {
      if (before.get('volumes')?.has(volume) !== true)
        await run('podman', ['volume', 'rm', '-f', volume], { env });
    }
    if (!KEEP) {
      for (const image of made) await run('podman', ['rmi', '-f', image], { env });
      await run('podman', ['image', 'prune', '-f'], { env, timeoutMs: 300_000 });
    }
  });
  for (const [kind, args] of Object.entries(INVENTORY)) {
    if (KEEP && kind === 'dangling images') continue;
    const left = [...(await listed(env, [...args]))].filter((n) => !(before.get(kind)?.has(n) ?? false));
    if (left.length > 0 && failure === null) failure = new Error(`left behind: ${kind} ${left.join(', ')}`);
  }
  // podmanEnv()'s temporary directory, and nothing else.
  const conf = env.CONTAINERS_CONF;
  if (conf?.startsWith(tmpdir()) === true) rmSync(dirname(conf), { recursive: true, force: true });
  for (const [label, ms] of timings) console.log(`   ${label.padEnd(44)} ${(ms / 1000).toFixed(1)} s`);
  console.log(`   ${'podman stop (one container)'.padEnd(44)} ${(stopMs / 1000).toFixed(1)} s`);
  console.log(`   ${'in all'.padEnd(44)} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (failure !== null) throw failure;
  console.log(`test:container passed; ${IMAGE} stays`);
}

await main();
