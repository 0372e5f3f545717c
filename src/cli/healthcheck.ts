import type { Command } from 'commander';
import { localeOf } from '../i18n/locale.js';
import { get } from 'node:http';
import { loadConfig, localOrigin } from '../config.js';
import { type Io, UsageError, parseId } from './context.js';

/** Longest a health check may take by default: a container runtime's own timeout is usually 30 s. */
const DEFAULT_TIMEOUT_MS = 3000;
const MAX_TIMEOUT_MS = 60_000;

/**
 * `tidings healthcheck`: asks the `serve` of this environment (PORT, HOST) for GET /healthz and exits 0 when
 * it answers 200, else 1. A container's HEALTHCHECK runs it, so the image needs no curl.
 */
export function healthcheckCommand(program: Command, io: Io): void {
  const help = localeOf(null);
  program
    .command('healthcheck')
    .description(help.t('cli.help.healthcheck.about'))
    .option('--timeout-ms <ms>', help.t('cli.help.healthcheck.timeoutMs', { ms: String(DEFAULT_TIMEOUT_MS) }))
    .action(async (opts: { timeoutMs?: string }) => {
      const timeoutMs =
        opts.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : parseId(opts.timeoutMs, '--timeout-ms');
      if (timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
        throw new UsageError(`--timeout-ms must be between 1 and ${MAX_TIMEOUT_MS}`, 2);
      }
      const url = `${localOrigin(loadConfig(io.env))}/healthz`;
      const problem = await probe(url, timeoutMs);
      if (problem !== null) throw new UsageError(`${url}: ${problem}`, 1);
      io.out(`${url}: ok`);
    });
}

/**
 * null when `url` answers 200 within `timeoutMs`; else what went wrong, in a few words. node:http rather
 * than fetch: it loads nothing more (this runs every 30 s in a container), and its timer keeps the process
 * alive until there is an answer (AbortSignal.timeout's does not: a peer that closes the socket mid-answer
 * left fetch's promise pending on an empty event loop).
 */
function probe(url: string, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      req.destroy();
      resolve(`no answer within ${timeoutMs} ms`);
    }, timeoutMs);
    const done = (problem: string | null): void => {
      clearTimeout(timer);
      resolve(problem);
    };
    const req = get(url, (res) => {
      res.resume();
      done(res.statusCode === 200 ? null : `answered ${res.statusCode ?? 'nothing'}`);
    });
    req.on('error', (err) => done(`unreachable (${err.message})`));
  });
}
