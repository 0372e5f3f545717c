import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/*
 * What `serve` keeps in V8's heap (issue 26). Compiling a thousand modules, the migrations and the first
 * account allocate a lot at once: V8 grows its young generation to its largest (2 × 16 MiB) for that, and
 * leaves the start's garbage for a later full collection, which an idle server may never have. At idle
 * the young generation also grows again, slowly, as the survivors of the workers' passes add up. The same
 * idle `serve` was measured at 91 MiB resident one run and 124 MiB the next. So `serve` keeps the young
 * generation at its starting size (1 MiB a semi-space, as `--max-semi-space-size=1` would, which cannot
 * be set once running) and collects start-up's garbage once when it has started.
 */

/** The young generation keeps the size it has now: it is not grown when many objects survive. */
export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
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
  if (typeof gc === 'function') (gc as () => void)();
}
