/** At most `limit` holders at once; the others wait in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.active--;
      else next(); // the slot passes straight to the next waiter
    }
  }

  get idle(): boolean {
    return this.active === 0;
  }
}

/** One semaphore per key (a host), created on demand and dropped when idle. */
export class KeyedSemaphore {
  private readonly byKey = new Map<string, Semaphore>();

  constructor(private readonly limit: number) {}

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let s = this.byKey.get(key);
    if (s === undefined) {
      s = new Semaphore(this.limit);
      this.byKey.set(key, s);
    }
    try {
      return await s.run(fn);
    } finally {
      if (s.idle) this.byKey.delete(key);
    }
  }
}
