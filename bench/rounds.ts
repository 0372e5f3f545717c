/**
 * Rounds of load alternating between the ceiling and Tidings (bench:api, bench:scale): a warm-up of each,
 * then ceiling, Tidings, ceiling, Tidings… with autocannon, and the medians of the rounds.
 */
import autocannon, { type Options, type Result } from 'autocannon';

export interface RoundsPlan {
  rounds: number;
  /** Seconds per measured run. */
  duration: number;
  /** Seconds of the warm-up run of each target. */
  warmup: number;
  /** autocannon connections, spread evenly over the URLs of a run when it has several. */
  connections: number;
}

export interface Measured {
  rps: number;
  p99: number;
}

export interface Alternated {
  ceiling: Measured;
  tidings: Measured;
  /** Tidings' median req/s over the ceiling's. */
  ratio: number;
}

export type Who = 'ceiling' | 'tidings';

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
};
export const fmtRps = (n: number): string => Math.round(n).toLocaleString('en-US');
export const fmtMs = (n: number): string => `${n.toFixed(2)} ms`;
const log = (line: string): void => void process.stdout.write(`${line}\n`);

function cannon(options: Options, connections: number): Promise<Result> {
  return new Promise((ok, fail) => {
    autocannon({ connections, pipelining: 1, timeout: 10, ...options }, (err, result) => {
      if (err !== null) fail(err);
      else ok(result);
    });
  });
}

/** One run of `duration` seconds; throws when any request failed, which would make the numbers meaningless. */
async function measure(
  label: string,
  options: Options,
  duration: number,
  connections: number,
): Promise<Result> {
  const result = await cannon({ ...options, duration }, connections);
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0 || result['2xx'] === 0) {
    throw new Error(
      `${label}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers ` +
        `(${result['2xx']} 2xx); the benchmark is not valid`,
    );
  }
  return result;
}

/**
 * Warms up each target, then alternates ceiling and Tidings runs for plan.rounds rounds, printing each run
 * under `label`, and returns the medians (req/s and p99) and the ratio.
 */
export async function alternate(
  label: string,
  options: (who: Who) => Options,
  plan: RoundsPlan,
): Promise<Alternated> {
  const order: Who[] = ['ceiling', 'tidings'];
  for (const who of order)
    await measure(`${label} ${who} warm-up`, options(who), plan.warmup, plan.connections);
  const runs: Record<Who, Result[]> = { ceiling: [], tidings: [] };
  for (let round = 1; round <= plan.rounds; round++) {
    for (const who of order) {
      const r = await measure(`${label} ${who}`, options(who), plan.duration, plan.connections);
      runs[who].push(r);
      log(
        `  ${label} round ${round}  ${who.padEnd(7)} ` +
          `${fmtRps(r.requests.average).padStart(8)} req/s  p99 ${fmtMs(r.latency.p99)}`,
      );
    }
  }
  const sum = (rs: Result[]): Measured => ({
    rps: median(rs.map((r) => r.requests.average)),
    p99: median(rs.map((r) => r.latency.p99)),
  });
  const ceiling = sum(runs.ceiling);
  const tidings = sum(runs.tidings);
  return { ceiling, tidings, ratio: tidings.rps / ceiling.rps };
}
