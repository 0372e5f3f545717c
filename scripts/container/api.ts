/** The saved-URL API as the container test uses it: both variants (docs/api.md), and waiting for a server. */
import { setTimeout as delay } from 'node:timers/promises';

/** The first start's key line on stdout (src/cli/serve.ts). */
export const KEY_LINE = /^Its API key, shown only this once: (tdg_[0-9a-f]{76})$/m;

export type Variant = 'A' | 'B';

export interface Api {
  /** POSTs a URL; true when acknowledged (2xx). Throws when the server cannot be reached. */
  save(variant: Variant, url: string): Promise<boolean>;
  /** The queue's URLs, oldest first. */
  list(variant: Variant): Promise<string[]>;
}

export function apiOf(origin: string, key: string): Api {
  const path = (variant: Variant): string =>
    variant === 'A' ? `/api/v1/articles?apiKey=${key}` : `/api?api_key=${key}`;
  return {
    async save(variant, url) {
      const res = await fetch(origin + path(variant), {
        method: 'POST',
        body: new URLSearchParams({ url }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.text();
      return res.ok;
    },
    async list(variant) {
      const res = await fetch(origin + path(variant), { signal: AbortSignal.timeout(10_000) });
      if (!res.ok)
        throw new Error(`GET ${origin} (variant ${variant}) answered ${res.status}: ${await res.text()}`);
      const items = (await res.json()) as { url: string }[];
      return items.map((i) => i.url);
    },
  };
}

export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms: number,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await delay(250);
  }
}

/**
 * Waits until the instance has started: GET /readyz answers 200. Not /healthz, which answers 200 from the
 * moment serve listens, before it migrates and makes (and prints) the first account (issue 26): a test that
 * read the logs then found no key at load 28.
 */
export async function waitHealthy(origin: string, ms: number): Promise<void> {
  await until(
    `${origin}/readyz`,
    async () => {
      try {
        const res = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(2000) });
        await res.text();
        return res.ok;
      } catch {
        return false;
      }
    },
    ms,
  );
}
