/**
 * A module loaded at its first use instead of at start (issue 26): a server that never sends an email,
 * never reads a feed or never sees a passkey never pays for nodemailer, feedsmith or @simplewebauthn in
 * start-up time or memory. `lazy(() => import('x'))` imports once; every later call gets the same
 * promise. `loaded()` gives the module without waiting, or undefined when nothing has asked for it yet
 * (then nothing can hold one of its objects either: an `instanceof` check can answer no).
 */
export interface Lazy<T> {
  (): Promise<T>;
  loaded(): T | undefined;
}

export function lazy<T>(load: () => Promise<T>): Lazy<T> {
  let promise: Promise<T> | undefined;
  let value: T | undefined;
  const get = (): Promise<T> =>
    (promise ??= load().then((module) => {
      value = module;
      return module;
    }));
  return Object.assign(get, { loaded: () => value });
}
