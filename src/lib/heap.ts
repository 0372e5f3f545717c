import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/*
 * What start-up leaves in V8's heap, given back once `serve` has started (issue 26). Compiling a thousand
 * modules, the migrations and the first account allocate a lot at once: V8 grows its young generation to
 * its largest (2 × 16 MiB) for that, and leaves the start's garbage for a later full collection, which an
 * idle server may never have. The same idle `serve` was measured at 91 MiB resident one run and 124 MiB
 * the next, depending on whether such a collection happened. So `serve` holds the young generation at its
 * starting size while it starts (holdYoungGeneration), then collects once and lets it grow again
 * (releaseStartUp): a busy server grows it as before, so request throughput is unchanged (no flag caps it).
 */

/** V8's own growth factor of the young generation, or the one given on the command line. */
function growthFactor(): number {
  const given = /--semi[-_]space[-_]growth[-_]factor[= ](\d+)/.exec(
    [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '),
  );
  return given?.[1] === undefined ? 2 : Number(given[1]);
}

/** The young generation stays at the size it has now until releaseStartUp. */
export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/** One full garbage collection, then the young generation may grow again. */
export function releaseStartUp(): void {
  collectGarbage();
  setFlagsFromString(`--semi-space-growth-factor=${growthFactor()}`);
}

/** A full garbage collection, now: V8's own `gc`, exposed for the one new context that asks for it. */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  let gc: unknown;
  try {
    gc = runInNewContext('gc');
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  if (typeof gc === 'function') gc();
}
