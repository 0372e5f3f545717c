import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger } from './logger.js';

test('log lines never carry API keys or the SMTP URL', () => {
  const lines: string[] = [];
  const logger = createLogger('info', { write: (line: string) => lines.push(line) });
  logger.info(
    { apiKey: 'tdg_secret', config: { smtpUrl: 'smtp://u:hunter2@mail.example', api_key: 'tdg_other' } },
    'started',
  );
  logger.info({ smtpUrl: 'smtps://u:hunter2@mail.example' }, 'mail');
  const out = lines.join('');
  assert.doesNotMatch(out, /hunter2|tdg_/);
  assert.equal((out.match(/\[redacted\]/g) ?? []).length, 4);
});

test('URLs in log lines lose their secrets: url fields, errors (message, stack, cause, extra fields)', () => {
  const lines: string[] = [];
  const logger = createLogger('debug', { write: (line: string) => lines.push(line) });
  logger.debug({ url: 'https://reader:feedpass1@feeds.example/rss?token=feedtoken1' }, 'feed refreshed');
  logger.info({ url: '/api/v1/articles?apiKey[]=nearmiss1&x=1' }, 'a request');
  const cause = new Error('connect to postgres://u:dbpass1@db:5432/t?password=dbpass2 failed');
  const err = Object.assign(new Error('GET /api?api_key%5Bx%5D=nearmiss2 failed', { cause }), {
    input: 'smtp://mailer:smtppass1@mail.example',
  });
  logger.error({ err, url: 'https://x.example/?access_token=tok3' }, 'failed');
  logger.warn({ error: 'checkpoint of sqlite:/data/t.db?key=filekey1 failed' }, 'warned');
  const out = lines.join('');
  for (const secret of ['feedpass1', 'feedtoken1', 'nearmiss1', 'nearmiss2', 'dbpass1', 'dbpass2']) {
    assert.ok(!out.includes(secret), `${secret} in the log:\n${out}`);
  }
  for (const secret of ['smtppass1', 'tok3', 'filekey1']) assert.ok(!out.includes(secret), secret);
  const failed = JSON.parse(lines[2] ?? '{}') as { err: { message: string; stack: string } };
  assert.match(failed.err.message, /^GET \/api\?api_key%5Bx%5D=\[redacted\] failed/);
  assert.match(failed.err.stack, /^Error: GET \/api\?api_key%5Bx%5D=\[redacted\] failed\n/);
  assert.match(
    failed.err.stack, // with its cause's
    /postgres:\/\/u:\[redacted\]@db:5432\/t\?password=\[redacted\]/,
  );
  assert.match(
    lines[0] ?? '',
    /"url":"https:\/\/reader:\[redacted\]@feeds.example\/rss\?token=\[redacted\]"/,
  );
});

const LOGGER = fileURLToPath(new URL('./logger.ts', import.meta.url));

interface Chunk {
  at: number;
  stream: 'stdout' | 'stderr';
  text: string;
}

/** Runs `script` (with createLogger imported) in a child node; resolves with each output chunk's arrival. */
function run(script: string): Promise<{ code: number | null; chunks: Chunk[] }> {
  const source = `import { createLogger } from ${JSON.stringify(LOGGER)};\n${script}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: Chunk[] = [];
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]
      .setEncoding('utf8')
      .on('data', (text: string) => chunks.push({ at: Date.now(), stream, text }));
  }
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, chunks })));
}

test('a quiet process writes a log line within a fraction of a second, not when the buffer fills', async () => {
  const { code, chunks } = await run(
    `const log = createLogger('info');
     setTimeout(() => { log.info('first'); process.stdout.write('logged'); }, 300);
     setTimeout(() => {}, 3000);`,
  );
  assert.equal(code, 0);
  const logged = chunks.find((c) => c.stream === 'stdout');
  const line = chunks.find((c) => c.stream === 'stderr' && c.text.includes('"msg":"first"'));
  assert.ok(logged !== undefined && line !== undefined, 'the line was written');
  // At most one flush period (200 ms) after it was logged, give or take a busy machine; the exit is 2.7 s later.
  assert.ok(line.at - logged.at < 1200, `written ${line.at - logged.at} ms after it was logged`);
});

test('buffered lines are written when the process exits, by process.exit too', async () => {
  const { code, chunks } = await run(
    `const log = createLogger('info'); for (let i = 0; i < 3; i++) log.info({ i }, 'line'); process.exit(3);`,
  );
  assert.equal(code, 3);
  const lines = chunks
    .map((c) => c.text)
    .join('')
    .trim()
    .split('\n');
  assert.deepEqual(
    lines.map((l) => (JSON.parse(l) as { i: number }).i),
    [0, 1, 2],
  );
});
