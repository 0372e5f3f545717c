import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createInterface } from 'node:readline';

/** Everything the benchmark must undo, whatever happens: child processes first, then the rest. */
export class Cleanup {
  private readonly children = new Set<ChildProcess>();
  private readonly tasks: { what: string; run: () => Promise<void> | void }[] = [];

  track(child: ChildProcess): ChildProcess {
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
    return child;
  }

  /** Runs in reverse order of registration, after every child has been stopped. */
  defer(what: string, run: () => Promise<void> | void): void {
    this.tasks.push({ what, run });
  }

  async runAll(): Promise<void> {
    await Promise.all([...this.children].map((c) => stopChild(c)));
    for (const task of this.tasks.splice(0).reverse()) {
      try {
        await task.run();
      } catch (err) {
        process.stderr.write(
          `cleanup: ${task.what} failed: ${err instanceof Error ? err.message : String(err)}\n`,
        );
      }
    }
  }

  /** Synchronous last resort for an exit that cannot wait (a second Ctrl-C, an uncaught error). */
  killAllNow(): void {
    for (const c of this.children) c.kill('SIGKILL');
  }
}

/** SIGTERM, then SIGKILL if the child has not exited within graceMs. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** Runs a command to completion and returns its stdout; throws with its stderr when it fails. */
export async function runCommand(cleanup: Cleanup, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = cleanup.track(spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited with ${code}: ${err.trim()}`);
  return out;
}

/** Waits until GET url answers 200, or fails when the child exits first or timeoutMs passes. */
export async function waitUntilReady(child: ChildProcess, url: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    }
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} was not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The first line a child prints on stdout (the ceiling prints its port). */
export async function firstLine(child: ChildProcess, timeoutMs = 20_000): Promise<string> {
  if (child.stdout === null) throw new Error('the child has no stdout pipe');
  const lines = createInterface({ input: child.stdout });
  const timer = setTimeout(() => lines.close(), timeoutMs);
  try {
    for await (const line of lines) return line;
  } finally {
    clearTimeout(timer);
  }
  throw new Error(
    `no output from the child within ${timeoutMs} ms (exit ${child.exitCode ?? child.signalCode})`,
  );
}

/**
 * Runs a benchmark's main with one Cleanup, and exits: with main's code, 2 if it threw, or 130/143 on
 * SIGINT/SIGTERM. A signal stops the children and runs the cleanup once (a second signal kills them at
 * once); the cleanup also runs when main ends, and children are killed on any exit.
 */
export async function runBench(name: string, main: (cleanup: Cleanup) => Promise<number>): Promise<never> {
  const cleanup = new Cleanup();
  let cleaning: Promise<void> | undefined;
  const cleanUp = (): Promise<void> => (cleaning ??= cleanup.runAll());
  // An object, so that the checks below are not narrowed away.
  const state: { interrupted: 'SIGINT' | 'SIGTERM' | null } = { interrupted: null };
  const signalCode = (signal: 'SIGINT' | 'SIGTERM'): number => (signal === 'SIGINT' ? 130 : 143);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (state.interrupted !== null) {
        cleanup.killAllNow();
        process.exit(1);
      }
      state.interrupted = signal;
      process.stdout.write(`\n${signal}: stopping the child processes and cleaning up…\n`);
      void cleanUp().finally(() => process.exit(signalCode(signal)));
    });
  }
  process.on('exit', () => cleanup.killAllNow());

  let code = 1;
  try {
    code = await main(cleanup);
  } catch (err) {
    // Once interrupted, the children's deaths are expected: say nothing more.
    if (state.interrupted === null) {
      process.stderr.write(
        `\n${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
    }
    code = 2;
  } finally {
    await cleanUp();
  }
  process.exit(state.interrupted === null ? code : signalCode(state.interrupted));
}

const BENCH = dirname(fileURLToPath(import.meta.url));

/**
 * Runs `node FLAGS --import tsx bench/SCRIPT ARGS…` (from the repository root) to completion, echoing its
 * output, and returns the JSON of its "RESULT " line; throws when it fails or prints none.
 */
export async function runScript<T>(
  cleanup: Cleanup,
  nodeFlags: string[],
  script: string,
  args: string[],
): Promise<T> {
  const child = cleanup.track(
    spawn(process.execPath, [...nodeFlags, '--import', 'tsx', join(BENCH, script), ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: dirname(BENCH),
    }),
  );
  const exited = new Promise<number | string>((ok) =>
    child.once('exit', (code, signal) => ok(code ?? signal ?? 'unknown')),
  );
  let result: string | undefined;
  if (child.stdout === null) throw new Error('the child has no stdout pipe');
  for await (const line of createInterface({ input: child.stdout })) {
    if (line.startsWith('RESULT ')) result = line.slice('RESULT '.length);
    else process.stdout.write(`${line}\n`);
  }
  const code = await exited;
  if (code !== 0) throw new Error(`${script} ${args[0] ?? ''} exited with ${code}`);
  if (result === undefined) throw new Error(`${script} printed no result`);
  return JSON.parse(result) as T;
}

/**
 * A fresh database for one engine, dropped at cleanup: a file in `dir` for SQLite; for PostgreSQL a new
 * database on the server of `adminUrl`, or null (with the reason printed) when that server cannot be
 * reached. `tag` tells apart the databases of one process (a file name, or a database name's suffix).
 */
export async function freshDatabase(
  engine: 'sqlite' | 'postgres',
  cleanup: Cleanup,
  dir: string,
  adminUrl: string,
  tag = '',
): Promise<string | null> {
  if (engine === 'sqlite') return join(dir, `tidings${tag}.db`);
  const name = `tidings_bench_${process.pid}${tag}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (err) {
    process.stdout.write(
      `PostgreSQL at ${adminUrl} is unreachable (${err instanceof Error ? err.message : String(err)}): ` +
        'SKIPPING the PostgreSQL runs.\n',
    );
    await admin.end().catch(() => undefined);
    return null;
  }
  // Registered before the database exists, so that an interruption from here on still drops it.
  cleanup.defer(`drop database ${name}`, async () => {
    const c = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
    await c.connect();
    try {
      await c.query(`drop database if exists ${name} with (force)`);
    } finally {
      await c.end();
    }
  });
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end().catch(() => undefined);
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
