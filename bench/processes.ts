import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
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
