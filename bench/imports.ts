/**
 * bench:imports: what reading an uploaded export costs in the web app's import thread (issue 33): its time
 * and the smallest heap it is read in, for the largest files an upload takes.
 *
 * Files, generated: a Wallabag JSON export of BENCH_ENTRIES entries (5,000) of about 10 KB of HTML each
 * (about 50 MB); an Omnivore zip of as many items whose content files hold the same HTML (about 50 MB of
 * content); a bookmarks file of 100,000 links in folders; and the file of 100,000 nested <DL> and
 * 10,000 links. Each is read by the built import thread (dist/imports/importWorker.js, as the server starts
 * it: imports/importThread.ts) until it answers with its counts or its refusal:
 *
 * 1. with the thread's heap of IMPORT_THREAD_LIMITS (384 MB): the time to the answer and the process's CPU;
 * 2. for the Wallabag and Omnivore files, the smallest old-space heap, to 8 MB, the file is read in (below it the thread ends with
 *    ERR_WORKER_OUT_OF_MEMORY, or V8 aborts the whole process: nodejs/node#47224), found by bisection
 *    between 16 and 1,024 MB.
 *
 * Each read runs in a child process of its own (this file with `child FILE MB`), so that an abort ends
 * only that read.
 *
 * Target: the 50 MB Wallabag export and the Omnivore zip read within the thread's 384 MB. Exits 1 when
 * missed. Env: BENCH_ENTRIES (5000). Run: npm run bench:imports (builds first).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { strToU8, zipSync } from 'fflate';
import { IMPORT_THREAD_LIMITS } from '../src/imports/importThread.js';
import { startThread } from '../src/lib/threads.js';
import { envInt } from './env.js';
import { fmt, load, log } from './report.js';

const ENTRIES = envInt('BENCH_ENTRIES', 5000);
const THREAD_FROM = new URL('../dist/imports/importThread.js', import.meta.url).href;

const PARAGRAPH =
  '<p>The tide comes in <b>twice</b> a day; <a href="/x" onclick="y()">see</a> the <em>moon</em> and the sun, which pull the sea.</p><script>track()</script>';
const CONTENT = PARAGRAPH.repeat(Math.ceil(10_000 / PARAGRAPH.length));

function wallabag(): Uint8Array {
  return strToU8(
    JSON.stringify(
      Array.from({ length: ENTRIES }, (_, i) => ({
        is_archived: i % 2,
        is_starred: 0,
        tags: [`t${i % 7}`],
        title: `Entry ${i}`,
        url: `https://w${i % 50}.example/${i}`,
        content: CONTENT,
        created_at: '2020-01-01T00:00:00+00:00',
      })),
    ),
  );
}

function omnivore(): Uint8Array {
  const items = Array.from({ length: ENTRIES }, (_, i) => ({
    id: `id${i}`,
    slug: `item-${i}`,
    title: `Item ${i}`,
    url: `https://o${i % 50}.example/${i}`,
    labels: ['sea'],
    savedAt: '2023-02-03T04:05:06.000Z',
    state: i % 2 === 0 ? 'Archived' : 'Succeeded',
  }));
  const files: Record<string, Uint8Array> = {};
  for (let part = 0; part < items.length; part += 1000) {
    files[`metadata_${part}_to_${part + 999}.json`] = strToU8(JSON.stringify(items.slice(part, part + 1000)));
  }
  for (const item of items) files[`content/${item.slug}.html`] = strToU8(CONTENT);
  return zipSync(files, { level: 6 });
}

function bookmarks(): Uint8Array {
  let html = '<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<TITLE>Bookmarks</TITLE>\n<H1>Bookmarks</H1>\n<DL><p>\n';
  for (let folder = 0; folder < 1000; folder++) {
    html += `<DT><H3>Folder ${folder}</H3>\n<DL><p>\n<DT><H3>Inner</H3>\n<DL><p>\n`;
    for (let i = 0; i < 100; i++) {
      html += `<DT><A HREF="https://b${folder % 97}.example/${folder}/${i}" ADD_DATE="1600000000" TAGS="a,b">Link ${i}</A>\n`;
    }
    html += '</DL><p>\n</DL><p>\n';
  }
  return strToU8(`${html}</DL><p>\n`);
}

const nested = (): Uint8Array =>
  strToU8(
    `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n${'<DL>'.repeat(100_000)}${'<DT><A HREF="https://n.example/">n</A>\n'.repeat(10_000)}`,
  );

interface Read {
  answer: 'read' | 'refused' | 'out of memory' | 'aborted';
  ms: number;
  cpuMs: number;
  detail: string;
}

/** The file read by the import thread with `oldMb` of heap, to its first answer after 'started'. */
function readInThread(bytes: Uint8Array, oldMb: number): Promise<Read> {
  const own = bytes.slice();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const worker = startThread(THREAD_FROM, 'importWorker', {
    workerData: { bytes: own, format: 'auto', at: new Date().toISOString() },
    transferList: [own.buffer],
    resourceLimits: { maxOldGenerationSizeMb: oldMb },
  });
  return new Promise((resolve) => {
    const done = (answer: Read['answer'], detail: string): void => {
      const used = process.cpuUsage(cpu);
      resolve({
        answer,
        ms: performance.now() - started,
        cpuMs: (used.user + used.system) / 1000,
        detail,
      });
      void worker.terminate();
    };
    worker.on('message', (msg: { kind: string; links?: number; error?: { message: string } }) => {
      if (msg.kind === 'read') done('read', `${fmt(msg.links ?? 0)} links`);
      else if (msg.kind === 'refused') done('refused', msg.error?.message.slice(0, 80) ?? '');
    });
    worker.on('error', (err: Error & { code?: string }) => {
      done(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out of memory' : 'refused', err.message);
    });
  });
}

/** A read in a child process: `readInThread` there; an abort (V8 out of memory in the thread) as such. */
function readInChild(file: string, oldMb: number): Promise<Read> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), 'child', file, String(oldMb)],
      { maxBuffer: 1024 * 1024 },
      (err, stdout) => {
        const line = stdout.trim().split('\n').pop() ?? '';
        if (err === null && line.startsWith('{')) resolve(JSON.parse(line) as Read);
        else resolve({ answer: 'aborted', ms: NaN, cpuMs: NaN, detail: String(err?.message).slice(0, 80) });
      },
    );
  });
}

const fitsIn = async (file: string, mb: number): Promise<boolean> => {
  const { answer } = await readInChild(file, mb);
  return answer !== 'out of memory' && answer !== 'aborted';
};

/** The smallest heap, to 8 MB, in which the thread reads the file (bisection; null: not within 1,024). */
async function smallestHeap(file: string): Promise<number | null> {
  let low = 16;
  let high = 1024;
  if (!(await fitsIn(file, high))) return null;
  if (await fitsIn(file, low)) return low;
  while (high - low > 8) {
    const mid = Math.round((low + high) / 2);
    if (await fitsIn(file, mid)) high = mid;
    else low = mid;
  }
  return high;
}

if (process.argv[2] === 'child') {
  const [file, mb] = process.argv.slice(3);
  log(JSON.stringify(await readInThread(readFileSync(file ?? ''), Number(mb))));
} else {
  log(`bench:imports, ${ENTRIES} entries, load ${load()}`);
  const dir = mkdtempSync(join(tmpdir(), 'tidings-bench-imports-'));
  let missed = false;
  try {
    for (const [name, make, target] of [
      ['Wallabag JSON', wallabag, true],
      ['Omnivore zip', omnivore, true],
      ['bookmarks, 100,000 links', bookmarks, false],
      ['100,000 nested <DL>', nested, false],
    ] as const) {
      const bytes = make();
      const file = join(dir, 'export');
      writeFileSync(file, bytes);
      const at384 = await readInChild(file, IMPORT_THREAD_LIMITS.oldMb);
      const read =
        `${name}: ${(bytes.length / 2 ** 20).toFixed(1)} MiB; with ${IMPORT_THREAD_LIMITS.oldMb} MB: ` +
        `${at384.answer} (${at384.detail}) in ${fmt(at384.ms)} ms, ${fmt(at384.cpuMs)} ms of CPU`;
      if (!target) {
        log(read);
        continue;
      }
      const heap = await smallestHeap(file);
      const fits = heap !== null && heap <= IMPORT_THREAD_LIMITS.oldMb;
      if (!fits) missed = true;
      log(
        `${read}; smallest heap ${heap === null ? 'over 1,024' : heap} MB (target ${fits ? 'met' : 'MISSED'})`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  log(`load ${load()}`);
  process.exitCode = missed ? 1 : 0;
}
