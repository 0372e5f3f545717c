/**
 * deploy/tidings.service and deploy/tidings-worker.service: systemd accepts them (`systemd-analyze
 * verify`, no warning either) and rates their exposure 2.5 or lower ("OK") offline; they run the built
 * CLI the README installs; deploy/tidings.env names only real settings. No running systemd is needed;
 * with CI=true a missing systemd-analyze fails the test (.ci/run installs Debian's systemd package).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { configSchema, loadConfig } from '../config.js';

const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));
const UNITS = ['tidings.service', 'tidings-worker.service'] as const;
/** The node binary the units name; verify checks that it is executable. */
const UNIT_NODE = '/usr/bin/node';
const MAX_EXPOSURE = 2.5;

function analyzeSkipReason(): string | undefined {
  const r = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  if (r.status === 0) return undefined;
  const reason = 'systemd-analyze is missing (apt-get install systemd)';
  if (process.env.CI === 'true') throw new Error(`${reason}; CI=true requires it`);
  return reason;
}

function analyze(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('systemd-analyze', args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The value of every `Key=` line of a unit, in order (a key may repeat). */
function values(unit: string, key: string): string[] {
  return unit
    .split('\n')
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));
}

function readUnit(name: string): string {
  return readFileSync(join(DEPLOY, name), 'utf8');
}

const skip = analyzeSkipReason();
const work = mkdtempSync(join(tmpdir(), 'tidings-units-'));
after(() => rmSync(work, { recursive: true, force: true }));

/**
 * The unit as shipped, in a directory of its own. verify refuses an ExecStart binary that does not exist
 * (and nothing else that is machine-specific); where node is not at /usr/bin/node, this machine's node
 * stands in for it, and the test says so.
 */
function stage(name: string): { dir: string; note: string } {
  const dir = mkdtempSync(join(work, 'unit-'));
  if (existsSync(UNIT_NODE)) {
    copyFileSync(join(DEPLOY, name), join(dir, name));
    return { dir, note: 'as shipped' };
  }
  writeFileSync(join(dir, name), readUnit(name).replaceAll(`${UNIT_NODE} `, `${process.execPath} `));
  return { dir, note: `with ${process.execPath} for ${UNIT_NODE}, which this machine lacks` };
}

describe('systemd units', { skip }, () => {
  for (const name of UNITS) {
    test(`${name}: systemd-analyze verify passes without a warning`, (t) => {
      const { dir, note } = stage(name);
      t.diagnostic(note);
      const r = analyze(['verify', name], dir);
      assert.equal(r.stderr, '', `verify wrote: ${r.stderr}`);
      assert.equal(r.status, 0);
    });

    test(`${name}: systemd-analyze security --offline rates it ≤ ${MAX_EXPOSURE} (OK)`, (t) => {
      const { dir } = stage(name);
      const r = analyze(['security', '--offline=true', name], dir);
      assert.equal(r.status, 0, r.stderr);
      const m = /Overall exposure level for \S+: (\d+\.\d) (\S+)/.exec(r.stdout);
      assert.ok(m !== null, `no overall exposure in:\n${r.stdout}`);
      const [, score = '', verdict] = m;
      t.diagnostic(`${name}: exposure ${score} ${verdict}`);
      assert.ok(Number(score) <= MAX_EXPOSURE, `exposure ${score} > ${MAX_EXPOSURE}`);
      assert.equal(verdict, 'OK');
      // The figure the unit's own comment and docs/operating.md quote.
      assert.ok(readUnit(name).includes(`→  ${score} OK`), `${name}'s comment does not quote ${score}`);
      const docs = readFileSync(join(DEPLOY, '../docs/operating.md'), 'utf8');
      const row = new RegExp(`^\\| \`${name}\` +\\| ${score.replace('.', '\\.')} OK +\\|`, 'm');
      assert.ok(row.test(docs), `docs/operating.md does not record ${name}'s ${score}`);
    });
  }
});

describe('what the units run', () => {
  const serve = readUnit('tidings.service');
  const worker = readUnit('tidings-worker.service');
  const bin = (
    JSON.parse(readFileSync(join(DEPLOY, '../package.json'), 'utf8')) as { bin: { tidings: string } }
  ).bin.tidings;

  test('each runs the package bin of a checkout in /opt/tidings with its own command', () => {
    assert.deepEqual(values(serve, 'ExecStart'), [`${UNIT_NODE} /opt/tidings/${bin} serve`]);
    assert.deepEqual(values(worker, 'ExecStart'), [`${UNIT_NODE} /opt/tidings/${bin} worker`]);
  });

  test('the SQLite database lies in the state directory, and the env file is read after it', () => {
    for (const unit of [serve, worker]) {
      assert.deepEqual(values(unit, 'StateDirectory'), ['tidings']);
      assert.deepEqual(values(unit, 'Environment'), ['DATABASE_URL=/var/lib/tidings/tidings.db']);
      assert.deepEqual(values(unit, 'EnvironmentFile'), ['/etc/tidings/env']);
      assert.deepEqual(values(unit, 'User'), ['tidings']);
    }
  });

  test('both are hardened alike, and leave W^X off for V8 JIT', () => {
    const hardening = (unit: string): string =>
      unit.slice(unit.indexOf('# Hardening.'), unit.indexOf('[Install]'));
    assert.equal(hardening(worker), hardening(serve));
    assert.deepEqual(values(serve, 'MemoryDenyWriteExecute'), []);
    for (const [key, value] of [
      ['ProtectSystem', 'strict'],
      ['NoNewPrivileges', 'yes'],
      ['PrivateTmp', 'yes'],
      ['ProtectHome', 'yes'],
      ['RestrictAddressFamilies', 'AF_UNIX AF_INET AF_INET6'],
      ['Restart', 'on-failure'],
    ] as const) {
      assert.deepEqual(values(serve, key), [value], key);
    }
    assert.ok(values(serve, 'SystemCallFilter').includes('@system-service'));
  });

  test('deploy/tidings.env names real settings only, valid ones, and sh reads it as systemd does', () => {
    // Every assignment, commented or not, in file order (a later one overrides, as in systemd).
    const text = readFileSync(join(DEPLOY, 'tidings.env'), 'utf8');
    const lines = text.split('\n').filter((l) => /^#?[A-Z][A-Z0-9_]*=/.test(l));
    const names = lines.map((l) => l.replace(/^#/, '').split('=')[0] ?? '');
    const known = Object.keys(configSchema.shape);
    for (const n of names) assert.ok(known.includes(n), `${n} is not a setting`);
    // What the docs' `sh -ac '. /etc/tidings/env; …'` line for the operator's commands sees.
    const all = join(work, 'all.env');
    writeFileSync(all, lines.map((l) => l.replace(/^#/, '')).join('\n'));
    const r = spawnSync(
      'sh',
      ['-ac', `. "$1"; exec "$2" -e 'console.log(JSON.stringify(process.env))'`, 'sh', all, process.execPath],
      {
        encoding: 'utf8',
        env: {},
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const env = JSON.parse(r.stdout) as Record<string, string>;
    assert.equal(env.TIDINGS_MAIL_FROM, 'Tidings <digest@example.org>');
    assert.equal(env.DATABASE_URL, 'postgres://tidings:secret@db.internal:5432/tidings');
    assert.doesNotThrow(() => loadConfig(env));
  });
});
