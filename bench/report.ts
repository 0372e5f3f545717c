import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';

/** What the benches print with. */
export const log = (line: string): void => void process.stdout.write(`${line}\n`);
export const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
export const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/**
 * With BENCH_CPU_PROF=DIR, profiles the main thread from now until the returned function is called, which
 * writes DIR/NAME-PID.cpuprofile (the measured pass alone, without the start-up before it) and returns its
 * path; null without BENCH_CPU_PROF.
 */
export async function startProfiler(name: string): Promise<(() => Promise<string>) | null> {
  const dir = process.env.BENCH_CPU_PROF;
  if (dir === undefined) return null;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(resolve(dir), { recursive: true });
    const file = join(resolve(dir), `${name}-${process.pid}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    return file;
  };
}
