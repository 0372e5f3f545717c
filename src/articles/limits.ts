/**
 * What one saved page may cost to read, so that no page can hold the server or grow its memory (issue 25,
 * F1). A page past one of them is recorded as failed with the reason, and never tried again. Size is
 * bounded before these: the body by TIDINGS_PAGE_MAX_BYTES, what is parsed by MAX_PARSE_CHARS (html.ts);
 * both cut the page rather than fail it.
 */

/**
 * Elements nested deeper than this fail the page before it is parsed: htmlparser2, under every DOM, costs
 * the square of the depth (1,000,000 nested <div> held the server 9.5 minutes). linkedom parses 1,000
 * levels in about 10 ms; articles nest a few dozen.
 */
export const MAX_NESTING = 1000;

/**
 * Nesting past which a page is not given to Readability (it gets its metadata only): Readability is
 * quadratic or worse on deep markup (3,000 nested <div> took it 1 s on linkedom, more than 8 minutes on
 * jsdom).
 */
export const READABLE_DEPTH = 400;

/**
 * Elements past which a page fails before it is parsed: linkedom takes about 2 s and 50 MB for 60,000
 * (a 200,000-element page took 10 s and 671 MB), and Readability refuses more than this anyway. A long
 * article has a few thousand.
 */
export const MAX_ELEMENTS = 60_000;

/**
 * How long the extraction of one page (decoding, parsing, Readability, sanitising) may take in its thread
 * before the thread is ended and the page failed. Pages take about 25 ms; a 60,000-element page a few
 * seconds; what takes longer is markup built to be slow.
 */
export const PAGE_TIME_LIMIT_MS = 20_000;

/**
 * The heap of each extraction thread, in MB: old space, and the young generation (where a DOM's
 * short-lived nodes are made and die). A page that would need more ends its thread, not the process, and
 * fails. Measured with `npm run bench:enrich` (BENCHMARKS.md, session 7, 2,000 pages on a quiet 2-core
 * machine): a young generation of 24 MB gave 39.9 pages/s and a peak RSS of 306 MiB; 8 MB gave 42.5, 44.7
 * and 42.9 pages/s and 288, 285 and 295 MiB.
 */
export const THREAD_OLD_MB = 128;
export const THREAD_YOUNG_MB = 8;

/** The reasons a page past a limit is recorded with (the page's `error`), in plain words. */
export const LIMIT_REASONS = {
  nesting: `the page's markup nests more than ${MAX_NESTING} levels deep, more than Tidings reads`,
  // Spelled when first needed: number formatting loads ICU's data (~5 MiB resident; issue 26).
  get elements(): string {
    return `the page has more than ${MAX_ELEMENTS.toLocaleString('en')} elements, more than Tidings reads`;
  },
  time: (ms: number): string =>
    `reading the page took longer than ${ms / 1000} s, the limit, and was stopped`,
  memory: (mb: number): string =>
    `reading the page needed more than ${mb} MB of memory, the limit, and was stopped`,
};
