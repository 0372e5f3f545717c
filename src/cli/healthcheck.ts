import type { Command } from 'commander';
import { get } from 'node:http';
import { loadConfig, localOrigin } from '../config.js';
import { type Locale, localeOf } from '../i18n/locale.js';
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
      const locale = localeOf(null);
      if (timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
        const values = { flag: '--timeout-ms', max: MAX_TIMEOUT_MS };
        throw new UsageError(locale.t('cli.healthcheck.timeoutInvalid', values), 2);
      }
      const url = `${localOrigin(loadConfig(io.env))}/healthz`;
      const problem = await probe(url, timeoutMs);
      if (problem !== null) throw new UsageError(problemWords(locale, url, problem), 1);
      io.out(locale.t('cli.healthcheck.ok', { url }));
    });
}

/** What went wrong with a health check, said: no answer in time, an answer other than 200, or none at all. */
type Problem =
  | { kind: 'timeout'; ms: number }
  | { kind: 'status'; status: number | undefined }
  | { kind: 'unreachable'; reason: string };

function problemWords(locale: Locale, url: string, p: Problem): string {
  const ms = p.kind === 'timeout' ? p.ms : 0;
  const status = p.kind === 'status' ? String(p.status ?? 'none') : '';
  const reason = p.kind === 'unreachable' ? p.reason : '';
  return locale.t('cli.healthcheck.failed', { url, problem: p.kind, ms, status, reason });
}

/**
 * null when `url` answers 200 within `timeoutMs`; else what went wrong. node:http rather
 * than fetch: it loads nothing more (this runs every 30 s in a container), and its timer keeps the process
 * alive until there is an answer (AbortSignal.timeout's does not: a peer that closes the socket mid-answer
 * left fetch's promise pending on an empty event loop).
 */
function probe(url: string, timeoutMs: number): Promise<Problem | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ kind: 'timeout', ms: timeoutMs });
    }, timeoutMs);
    const done = (problem: Problem | null): void => {
      clearTimeout(timer);
      resolve(problem);
    };
    const req = get(url, (res) => {
      res.resume();
      done(res.statusCode === 200 ? null : { kind: 'status', status: res.statusCode });
    });
    req.on('error', (err) => done({ kind: 'unreachable', reason: err.message }));
  });
}
