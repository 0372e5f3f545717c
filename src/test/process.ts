import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

/** The built CLI that the process-level tests run (npm test builds it first). */
export const DIST_MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
/** The bundle users run (package.json bin; scripts/bundle.mjs). */
export const APP_MAIN = fileURLToPath(new URL('../../dist/app/main.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(DIST_MAIN)) {
    throw new Error(`${DIST_MAIN} is missing: run \`npm run build\` first (\`npm test\` does it for you)`);
  }
}

/** A port that was free a moment ago: bound on 127.0.0.1 port 0, then released. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => {
        if (address === null || typeof address === 'string') reject(new Error('no port'));
        else resolve(address.port);
      });
    });
  });
}

/** The test runner's environment without anything that configures Tidings, plus `vars`. */
export function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(PORT|HOST|DATABASE_.*|LOG_LEVEL|TIDINGS_.*)$/.test(name)) continue;
    env[name] = value;
  }
  return { ...env, ...vars };
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * How long a test waits for a CLI command to finish or a server to say it is ready before it gives up: a
 * net for a hang, not a rule (a process that exits early is reported at once). In issue 33's loaded run
 * (load 17 on two cores) a `serve` took more than the 20 s this was.
 */
const PATIENCE_MS = 180_000;

/** Runs `node dist/cli/main.js ...args` to completion; `input`, when given, is piped to its stdin. */
export function runCli(
  args: string[],
  vars: Record<string, string>,
  timeoutMs = PATIENCE_MS,
  input?: string,
  main: string = DIST_MAIN,
): Promise<CliResult> {
  return runSpawned(args, vars, { timeoutMs, input, main, close: [] });
}

/**
 * Runs `node dist/cli/main.js ...args` to completion with the reader of its stdout (or of the streams in
 * `close`) gone before it starts, as `tidings … | head -1` is once head has read its line: every write
 * there fails (EPIPE), and what was written there is '' in the result.
 */
export function runCliOutputClosed(
  args: string[],
  vars: Record<string, string>,
  { close = ['stdout'], main = DIST_MAIN }: { close?: readonly ('stdout' | 'stderr')[]; main?: string } = {},
): Promise<CliResult> {
  return runSpawned(args, vars, { timeoutMs: PATIENCE_MS, main, close });
}

function runSpawned(
  args: string[],
  vars: Record<string, string>,
  opts: { timeoutMs: number; input?: string; main: string; close: readonly ('stdout' | 'stderr')[] },
): Promise<CliResult> {
  const { timeoutMs, input, main } = opts;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], {
      env: childEnv(vars),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    track(child);
    // Closed at once: the child cannot have written yet (node has not even loaded it), so each write fails.
    for (const name of opts.close) child[name].destroy();
    child.stdin.end(input ?? ''); // an empty, closed stdin unless given
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tidings ${args.join(' ')} took over ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `tidings account create --name NAME --json` against a database; returns the parsed line. */
export async function createAccountViaCli(
  databaseUrl: string,
  name: string,
): Promise<{ id: number; apiKey: string }> {
  const r = await runCli(['account', 'create', '--name', name, '--json'], { DATABASE_URL: databaseUrl });
  if (r.code !== 0) throw new Error(`account create exited ${String(r.code)}: ${r.stderr}`);
  const line = r.stdout.trim();
  if (!/^\{"id":\d+,"apiKey":"tdg_[0-9a-f]{76}"\}$/.test(line)) {
    throw new Error(`account create --json printed ${JSON.stringify(r.stdout)}`);
  }
  return JSON.parse(line) as { id: number; apiKey: string };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running `tidings` process (serve or worker). */
export interface CliProcess {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Settles when the process has exited (and its output is fully read). */
  exited: Promise<Exit>;
  /** SIGKILL unless already gone, then waits for the exit. Safe to call more than once. */
  stop(): Promise<Exit>;
}

export interface ServerProcess extends CliProcess {
  port: number;
  baseUrl: string;
}

export interface StartOptions {
  databaseUrl: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Called with all of stderr so far whenever more arrives, before "listening" too. */
  onStderr?: (stderr: string) => void;
  /** The entry run: the compiled CLI (default) or APP_MAIN. */
  main?: string;
  /** Its stdout's reader gone from the start (`tidings serve | head -1`): every write to stdout fails. */
  closeStdout?: boolean;
}

/** Spawns `tidings serve` on a free port and resolves once it logs "listening". */
export async function startServer(opts: StartOptions): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await startOn(port, opts);
    } catch (err) {
      // Another process took the port between freePort() and listen(): try another one.
      if (attempt < 3 && err instanceof Error && err.message.includes('EADDRINUSE')) continue;
      throw err;
    }
  }
}

function startOn(port: number, opts: StartOptions): Promise<ServerProcess> {
  const vars = { PORT: String(port), HOST: '127.0.0.1' };
  return startCli('serve', 'listening', vars, opts).then((p) => ({
    ...p,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
  }));
}

/** Spawns `tidings worker` and resolves once it logs "worker started". */
export function startWorker(opts: StartOptions): Promise<CliProcess> {
  return startCli('worker', 'worker started', {}, opts);
}

/** Spawns `tidings COMMAND` and resolves once it logs `ready` (a pino line's msg) on stderr. */
function startCli(
  command: string,
  ready: string,
  vars: Record<string, string>,
  opts: StartOptions,
): Promise<CliProcess> {
  const child = spawn(process.execPath, [opts.main ?? DIST_MAIN, command], {
    env: childEnv({
      ...vars,
      DATABASE_URL: opts.databaseUrl,
      LOG_LEVEL: 'info',
      ...opts.env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  if (opts.closeStdout === true) child.stdout.destroy();
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    stderr += s;
    opts.onStderr?.(stderr);
  });
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const started: CliProcess = {
    child,
    pid: child.pid ?? -1,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return exited;
    },
  };
  return new Promise((resolve, reject) => {
    const timeoutMs = opts.timeoutMs ?? PATIENCE_MS;
    const timer = setTimeout(() => {
      void started.stop();
      reject(
        new Error(`tidings ${command} did not log "${ready}" within ${timeoutMs} ms; stderr:\n${stderr}`),
      );
    }, timeoutMs);
    const onData = (): void => {
      const isReady = stderr.split('\n').some((line) => {
        try {
          return (JSON.parse(line) as { msg?: unknown }).msg === ready;
        } catch {
          return false;
        }
      });
      if (!isReady) return;
      clearTimeout(timer);
      child.stderr.off('data', onData);
      resolve(started);
    };
    child.stderr.on('data', onData);
    void exited.then((exit) => {
      clearTimeout(timer);
      reject(new Error(`tidings ${command} exited early (${JSON.stringify(exit)}); stderr:\n${stderr}`));
    });
  });
}

/** Resolves with the exit, or rejects when the process is still running after `ms`. */
export async function exitWithin(server: CliProcess, ms: number): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`process ${server.pid} still running ${ms} ms later`));
    }, ms);
  });
  try {
    return await Promise.race([server.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a new TCP connection to the port is accepted ('connected') or refused. */
export function tryConnect(port: number): Promise<'connected' | 'refused'> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') resolve('refused');
      else reject(err);
    });
  });
}

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request over a fresh TCP connection (no keep-alive pool). `onResponse` runs synchronously
 * the moment the status line and headers have arrived, before the body is read.
 */
export function request(
  url: string,
  opts: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    onResponse?: (status: number) => void;
  } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      opts.onResponse?.(res.statusCode ?? 0);
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (s: string) => (body += s));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.end(opts.body);
  });
}

export interface TcpProxy {
  port: number;
  /** Stops accepting and cuts every open connection: to its clients the target is now unreachable. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Connects `client` to `target` and pipes both ways (after `first`, bytes already read from the client),
 * tracking both sockets in `sockets` while open; an error on either ends both.
 */
export function forwardSocket(
  client: net.Socket,
  target: { host: string; port: number },
  sockets: Set<net.Socket>,
  first: Buffer | null,
): void {
  const upstream = net.connect(target.port, target.host);
  for (const s of [client, upstream]) {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {
      client.destroy();
      upstream.destroy();
    });
  }
  if (first !== null) upstream.write(first);
  client.pipe(upstream).pipe(client);
}

/** A plain TCP forwarder on 127.0.0.1 to `target`, to take a real server away from a client and back. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    forwardSocket(client, target, sockets, null);
  });
  const listen = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        const address = server.address();
        resolve(address !== null && typeof address !== 'string' ? address.port : port);
      });
    });
  const port = await listen(0);
  const cut = (): Promise<void> =>
    new Promise((resolve) => {
      if (!server.listening) {
        resolve();
        return;
      }
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  return {
    port,
    cut,
    restore: async () => {
      await listen(port);
    },
    close: cut,
  };
}
