/**
 * The mail parser for newsletters (issue 34), chosen on a hostile corpus (src/test/newsletterFixtures.ts):
 * mailparser (simpleParser) and postal-mime, each case in a child process of its own, giving the parse's
 * time, the peak RSS over the child's start, the heap retained after a full GC, and what was read (the
 * subject, the HTML's length, the attachments) or the error.
 *
 *   npm run bench:newsletters
 *   BENCH_PARSERS=postal-mime node --import tsx bench/newsletters-parse.ts
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  bigAttachment,
  brokenCharsets,
  deepNesting,
  hugeHeader,
  mailchimpLike,
  manyParts,
  scriptInHtml,
  substackLike,
} from '../src/test/newsletterFixtures.js';

const PARSERS = ['mailparser', 'postal-mime'] as const;
type Parser = (typeof PARSERS)[number];

const CASES: Record<string, () => Buffer> = {
  'substack-like': () => substackLike(),
  'mailchimp-like': () => mailchimpLike(),
  'deep nesting (2,000)': () => deepNesting(2000),
  'header of 1 MB': () => hugeHeader(1024 * 1024),
  'broken charsets': () => brokenCharsets(),
  'base64 of 10 MB': () => bigAttachment(7 * 1024 * 1024),
  'parts (20,000)': () => manyParts(20_000),
  'script in HTML': () => scriptInHtml(),
};

interface Outcome {
  ms: number;
  peakRssMb: number;
  retainedMb: number;
  read: string;
}

async function parseWith(parser: Parser, raw: Buffer): Promise<string> {
  if (parser === 'mailparser') {
    const { simpleParser } = await import('mailparser');
    const m = await simpleParser(raw, { skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true });
    const html = typeof m.html === 'string' ? m.html.length : 0;
    return `subject ${JSON.stringify((m.subject ?? '').slice(0, 30))}, html ${html}, attachments ${m.attachments.length}`;
  }
  const { default: PostalMime } = await import('postal-mime');
  const m = await PostalMime.parse(raw, { maxNestingDepth: 20, maxHeadersSize: 256 * 1024 });
  return `subject ${JSON.stringify((m.subject ?? '').slice(0, 30))}, html ${m.html?.length ?? 0}, attachments ${m.attachments.length}`;
}

/** In the child: one case, one parser; prints the outcome as JSON. */
async function child(parser: Parser, name: string): Promise<void> {
  const make = CASES[name];
  if (make === undefined) throw new Error(`no case ${name}`);
  const raw = make();
  // Both libraries loaded before the clock starts: the time is the parse's.
  if (parser === 'mailparser') await import('mailparser');
  else await import('postal-mime');
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const started = performance.now();
  let read: string;
  try {
    read = await parseWith(parser, raw);
  } catch (err) {
    read = `error: ${(err instanceof Error ? err.message : String(err)).slice(0, 80)}`;
  }
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  gc?.();
  const out: Outcome = {
    ms: Math.round(ms),
    peakRssMb: Math.round((peak - base) / 1048576),
    retainedMb: Math.round(process.memoryUsage().heapUsed / 1048576),
    read,
  };
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
}

function main(): void {
  const wanted = (process.env.BENCH_PARSERS ?? PARSERS.join(','))
    .split(',')
    .filter((p): p is Parser => (PARSERS as readonly string[]).includes(p));
  const self = fileURLToPath(import.meta.url);
  console.log('| case | parser | ms | peak RSS over start (MB) | heap after (MB) | read |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const name of Object.keys(CASES)) {
    for (const parser of wanted) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', self, parser, name], {
        encoding: 'utf8',
        timeout: 120_000,
        maxBuffer: 10 * 1024 * 1024,
      });
      const line = run.stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (line === undefined) {
        console.log(
          `| ${name} | ${parser} | – | – | – | child failed: ${run.signal ?? run.status} ${run.stderr.slice(-120).replace(/\n/g, ' ')} |`,
        );
        continue;
      }
      const o = JSON.parse(line.slice(7)) as Outcome;
      console.log(
        `| ${name} | ${parser} | ${o.ms} | ${o.peakRssMb} | ${o.retainedMb} | ${o.read.replace(/\|/g, '/')} |`,
      );
    }
  }
}

const [parserArg, caseArg] = process.argv.slice(2);
if (parserArg !== undefined && caseArg !== undefined) await child(parserArg as Parser, caseArg);
else main();
