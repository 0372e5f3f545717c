/**
 * deploy/compose.postgres.yaml under podman-compose, as a user runs it (its own network, published ports),
 * with PostgreSQL from Debian's package (scripts/container/postgres.Containerfile) in place of the official
 * image: saves through both serve instances, then the worker builds a digest and emails it to an SMTP
 * server in this process.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from '../../src/test/process.js';
import { KEY_LINE, apiOf, until, waitHealthy } from './api.js';
import { must, podman, run } from './podman.js';

const PG_IMAGE = 'localhost/tidings-test-postgres:latest';
const READER = 'reader@example.com';

export interface ComposeTest {
  env: NodeJS.ProcessEnv;
  root: string;
  base: string;
  image: string;
  /** podman-compose's project name: [a-z0-9] only. */
  project: string;
  cleanups: (() => Promise<unknown>)[];
  /** Images this test made, removed at the end. */
  made: string[];
  build(
    env: NodeJS.ProcessEnv,
    opts: { base: string; image: string; file: string; context: string; caBundle?: boolean },
  ): Promise<void>;
}

/**
 * An SMTP server for the worker: the containers reach this machine at host.containers.internal (their
 * network's gateway), not at its loopback, so it listens on every address, for this test's minutes only.
 */
async function smtpSink(): Promise<{ port: number; mails: ParsedMail[]; close(): Promise<void> }> {
  const mails: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    size: 20 * 1024 * 1024,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          mails.push(mail);
          callback();
        })
        .catch((err: unknown) => callback(err instanceof Error ? err : new Error(String(err))));
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve());
  });
  return { port, mails, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** HH:MM (UTC) of the next whole minute at least 20 s away: when the worker's scheduler will find it due. */
function soonUtc(): string {
  const at = new Date(Date.now() + 80_000);
  return `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
}

export async function testComposeStack(t: ComposeTest): Promise<void> {
  const { env, project } = t;
  await t.build(env, {
    base: t.base,
    image: PG_IMAGE,
    file: join(t.root, 'scripts/container/postgres.Containerfile'),
    context: join(t.root, 'scripts/container'),
    caBundle: false, // ssl-cert's install writes a certificate there; apt needs none (http)
  });
  t.made.push(PG_IMAGE);

  const smtp = await smtpSink();
  t.cleanups.push(() => smtp.close());
  const dir = mkdtempSync(join(tmpdir(), 'tidings-compose-'));
  t.cleanups.push(() => {
    rmSync(dir, { recursive: true, force: true });
    return Promise.resolve();
  });
  // Only the test's own additions: where the worker's mail goes. Everything else is the user's file.
  const override = join(dir, 'compose.test.yaml');
  writeFileSync(
    override,
    [
      'services:',
      '  worker:',
      '    environment:',
      `      TIDINGS_SMTP_URL: smtp://host.containers.internal:${smtp.port}`,
      '      TIDINGS_MAIL_FROM: Tidings <tidings@example.com>',
      '',
    ].join('\n'),
  );
  const [port1, port2] = [await freePort(), await freePort()];
  const composeEnv = {
    ...env,
    TIDINGS_IMAGE: t.image,
    TIDINGS_POSTGRES_IMAGE: PG_IMAGE,
    POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
    TIDINGS_PUBLISH_1: `127.0.0.1:${port1}`,
    TIDINGS_PUBLISH_2: `127.0.0.1:${port2}`,
  };
  const compose = (args: string[]): Promise<string> =>
    must(
      'podman-compose',
      ['-p', project, '-f', join(t.root, 'deploy/compose.postgres.yaml'), '-f', override, ...args],
      { env: composeEnv, timeoutMs: 300_000 },
    );
  t.cleanups.push(() => run('podman', ['network', 'rm', '-f', `${project}_default`], { env }));
  t.cleanups.push(() => compose(['down', '-v', '-t', '10']));
  // First (cleanups run last first): the containers with their anonymous volumes (the image's VOLUME /data,
  // unused by this stack), which podman-compose's down leaves.
  t.cleanups.push(async () => {
    const ids = await podman(env, [
      'ps',
      '-a',
      '-q',
      '--filter',
      `label=io.podman.compose.project=${project}`,
    ]);
    for (const id of ids.split('\n').filter((l) => l !== '')) {
      await run('podman', ['rm', '-f', '-v', '-t', '10', id], { env });
    }
  });
  await compose(['up', '-d']);

  const web1 = `http://127.0.0.1:${port1}`;
  const web2 = `http://127.0.0.1:${port2}`;
  try {
    await waitHealthy(web1, 180_000);
    await waitHealthy(web2, 60_000);
  } catch (err) {
    // What the instances said (their logs go to stderr), for the failure's message.
    const said = await Promise.all(
      ['postgres', 'web-1', 'web-2'].map(async (s) => {
        const r = await run('podman', ['logs', '--tail', '40', `${project}_${s}_1`], { env });
        return `--- ${s}:\n${r.stdout}${r.stderr}`;
      }),
    );
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${said.join('\n')}`);
  }
  const pgHealth = await run('podman', ['healthcheck', 'run', `${project}_postgres_1`], { env });
  assert.equal(pgHealth.code, 0, `pg_isready: ${pgHealth.stdout}${pgHealth.stderr}`);

  // One of the two instances created the first account and printed its key; the other found it there.
  // Both are ready, so it is printed; the container's log may show it a moment later.
  const logsOfBoth = async (): Promise<string> =>
    (await Promise.all(['web-1', 'web-2'].map((s) => podman(env, ['logs', `${project}_${s}_1`])))).join('\n');
  await until('the key in the logs', async () => KEY_LINE.test(await logsOfBoth()), 60_000);
  const logs = await logsOfBoth();
  const keys = [...logs.matchAll(new RegExp(KEY_LINE.source, 'gm'))].map((m) => m[1]);
  assert.equal(keys.length, 1, `a key printed exactly once by the two instances:\n${logs}`);
  const key = keys[0] ?? '';
  assert.ok(
    logs.includes(`  curl -X POST '${web1}/api/v1/articles?apiKey=${key}'`),
    `the curl lines name web-1's published address, ${web1}:\n${logs}`,
  );
  const links = ['https://example.com/through-web-1', 'https://example.com/through-web-2'];
  assert.equal(await apiOf(web1, key).save('A', links[0] ?? ''), true);
  assert.equal(await apiOf(web2, key).save('B', links[1] ?? ''), true);
  for (const origin of [web1, web2]) {
    assert.deepEqual(await apiOf(origin, key).list(origin === web1 ? 'B' : 'A'), links, `queue on ${origin}`);
  }

  // The web instances run no background work: the digest can only come from the worker's scheduler.
  const time = soonUtc();
  await podman(env, [
    'exec',
    `${project}_web-1_1`,
    'node',
    '/app/dist/app/main.js',
    'account',
    'set',
    '--account',
    '1',
    '--email',
    READER,
    '--email-enabled',
    'true',
    '--time',
    time,
  ]);
  console.log(`   digest due at ${time} UTC; waiting for the worker's email`);
  await until('the digest email', () => smtp.mails.length > 0, 180_000);
  const mail = smtp.mails[0];
  assert.ok(mail !== undefined);
  const to = Array.isArray(mail.to) ? mail.to.flatMap((a) => a.value) : (mail.to?.value ?? []);
  assert.deepEqual(
    to.map((a) => a.address),
    [READER],
  );
  const body = `${mail.text ?? ''}\n${typeof mail.html === 'string' ? mail.html : ''}`;
  for (const link of links) assert.ok(body.includes(link), `${link} not in the digest email`);
  // The worker logs its pass once the email is sent: a moment after the SMTP server has it.
  await until(
    "the worker's digest pass in its log",
    async () =>
      /"msg":"digest pass"/.test((await run('podman', ['logs', `${project}_worker_1`], { env })).stderr),
    15_000,
  );
  assert.deepEqual(await apiOf(web2, key).list('A'), [], 'the digest took the queue');
}

/** deploy/compose.yaml under podman-compose: the one container answers, prints its key, keeps a save in its volume. */
export async function testSqliteCompose(t: Omit<ComposeTest, 'base' | 'made' | 'build'>): Promise<void> {
  const { env, project } = t;
  const port = await freePort();
  const composeEnv = { ...env, TIDINGS_IMAGE: t.image, TIDINGS_PUBLISH: `127.0.0.1:${port}` };
  const compose = (args: string[]): Promise<string> =>
    must('podman-compose', ['-p', project, '-f', join(t.root, 'deploy/compose.yaml'), ...args], {
      env: composeEnv,
      timeoutMs: 300_000,
    });
  t.cleanups.push(() => run('podman', ['network', 'rm', '-f', `${project}_default`], { env }));
  t.cleanups.push(() => compose(['down', '-v', '-t', '10']));
  await compose(['up', '-d']);
  const origin = `http://127.0.0.1:${port}`;
  await waitHealthy(origin, 60_000);
  const name = `${project}_tidings_1`;
  await until('the key in the logs', async () => KEY_LINE.test(await podman(env, ['logs', name])), 10_000);
  const printed = await podman(env, ['logs', name]);
  const key = KEY_LINE.exec(printed)?.[1] ?? '';
  // TIDINGS_PUBLISH alone moves the address in the printed curl lines (they said :8080 whatever it was).
  assert.ok(
    printed.includes(`  curl -X POST '${origin}/api?api_key=${key}'`),
    `the curl lines name the published address, ${origin}:\n${printed}`,
  );
  assert.equal(await apiOf(origin, key).save('B', 'https://example.com/compose'), true);
  await compose(['restart']);
  await waitHealthy(origin, 60_000);
  assert.deepEqual(await apiOf(origin, key).list('A'), ['https://example.com/compose']);
}
