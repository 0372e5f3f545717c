import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's EPUBCheck (`apt-get install epubcheck`; .ci/run installs it when missing). */
export const EPUBCHECK_JAR = process.env.TIDINGS_EPUBCHECK ?? '/usr/share/java/epubcheck.jar';

/** Undefined when EPUBCheck can run, else why not. With CI=true a missing EPUBCheck is an error, never a skip. */
export function epubcheckSkipReason(): string | undefined {
  if (existsSync(EPUBCHECK_JAR)) return undefined;
  const reason = `no EPUBCheck at ${EPUBCHECK_JAR} (apt-get install epubcheck, or set TIDINGS_EPUBCHECK)`;
  if (process.env.CI === 'true') throw new Error(`${reason}; CI=true requires it`);
  return reason;
}

export interface EpubCheckReport {
  fatals: number;
  errors: number;
  warnings: number;
  /** Everything EPUBCheck printed: the assertion's message. */
  output: string;
}

/** Runs EPUBCheck on the bytes of an EPUB and reads its tally ("Messages: 0 fatals / 0 errors / …"). */
export async function epubcheck(bytes: Uint8Array): Promise<EpubCheckReport> {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-epubcheck-'));
  const file = join(dir, 'book.epub');
  writeFileSync(file, bytes);
  try {
    // A book with errors exits 1: its report is on stdout either way.
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
      execFile(
        'java',
        ['-jar', EPUBCHECK_JAR, file],
        { maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
        (_err, out, err) => {
          resolve({ stdout: out, stderr: err });
        },
      );
    });
    const output = `${stdout}\n${stderr}`;
    const m = /Messages: (\d+) fatals? \/ (\d+) errors? \/ (\d+) warnings?/.exec(output);
    if (m === null) throw new Error(`EPUBCheck gave no tally:\n${output}`);
    return { fatals: Number(m[1]), errors: Number(m[2]), warnings: Number(m[3]), output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
