/**
 * The small part of autocannon 8's programmatic API that the benchmark uses (the package ships no types,
 * and this is less than adding @types/autocannon for).
 */
declare module 'autocannon' {
  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  export interface Request extends RequestParams {
    /** Called before each request is sent; returns what to send. */
    setupRequest?: (request: RequestParams) => RequestParams;
  }

  export interface Options {
    /** Several URLs: the connections are spread over them in turn. */
    url: string | string[];
    connections?: number;
    pipelining?: number;
    duration?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    requests?: Request[];
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    total: number;
  }

  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    latency: Histogram;
    requests: Histogram & { sent: number };
  }

  export default function autocannon(
    options: Options,
    callback: (err: Error | null, result: Result) => void,
  ): unknown;
}
