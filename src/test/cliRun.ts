import { runCli } from '../cli/run.js';

/** What one in-process command line returned: its exit code and the lines it printed. */
export interface CliRun {
  code: number;
  out: string[];
  err: string[];
}

/**
 * The CLI run in-process on the database at `url()` (read at each run: the engine's database is made per
 * suite), with `env` besides, its output captured.
 */
export function cliOn(url: () => string, env: Record<string, string> = {}) {
  return async (...args: string[]): Promise<CliRun> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { DATABASE_URL: url(), ...env },
    });
    return { code, out, err };
  };
}
