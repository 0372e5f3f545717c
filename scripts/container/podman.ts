/**
 * Podman for npm run test:container: the tools installed when missing, Podman configured for machines
 * like CI's (no systemd, limits that cannot be raised), and a local Node base image when the default one
 * cannot be pulled (docs/operating.md, "Containers"; the containers note in the issue).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (killed after `timeoutMs`) and returns its output; never throws on its status. */
export function run(
  command: string,
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string; echo?: boolean } = {},
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: opts.env ?? process.env,
      cwd: opts.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
      if (opts.echo === true) process.stdout.write(s);
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
      if (opts.echo === true) process.stderr.write(s);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** run(), and an error with the command's output unless it exited 0. */
export async function must(
  command: string,
  args: readonly string[],
  opts: Parameters<typeof run>[2] = {},
): Promise<string> {
  const r = await run(command, args, opts);
  if (r.code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${String(r.code)}:\n${r.stderr}${r.stdout}`.trim());
  }
  return r.stdout;
}

async function has(tool: string): Promise<boolean> {
  return (await run('sh', ['-c', `command -v ${tool}`])).code === 0;
}

/**
 * What the test needs, each with the Debian package that brings it: the tools, and CNI's dnsname plugin,
 * without which the compose stacks' containers cannot find each other by service name (`postgres`:
 * getaddrinfo ENOTFOUND; Podman 4.3 on Debian 12 uses CNI, and a Podman installed without its
 * recommended packages lacks the plugin).
 */
const NEEDS: readonly { name: string; pkg: string; present: () => Promise<boolean> }[] = [
  ...['podman', 'runc', 'mmdebstrap', 'podman-compose'].map((tool) => ({
    name: tool,
    pkg: tool,
    present: () => has(tool),
  })),
  {
    name: 'the CNI dnsname plugin',
    pkg: 'golang-github-containernetworking-plugin-dnsname',
    present: () => Promise.resolve(existsSync('/usr/lib/cni/dnsname')),
  },
];

/** Installs what NEEDS names from Debian when it is missing (sudo unless root). */
export async function ensureTools(): Promise<void> {
  const missing: (typeof NEEDS)[number][] = [];
  for (const need of NEEDS) if (!(await need.present())) missing.push(need);
  if (missing.length === 0) return;
  const names = missing.map((m) => m.name).join(', ');
  console.log(`== installing ${names}`);
  const root = process.getuid?.() === 0;
  if (!root && !(await has('sudo'))) {
    throw new Error(`${names} missing, and neither root nor sudo to install them`);
  }
  const apt = (args: string[]): Promise<string> =>
    must(root ? 'apt-get' : 'sudo', root ? args : ['apt-get', ...args], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeoutMs: 600_000,
    });
  await apt(['update', '-qq']);
  await apt(['install', '-y', '-qq', ...missing.map((m) => m.pkg)]);
  for (const need of missing) {
    if (!(await need.present())) throw new Error(`${need.name} is still missing after apt-get`);
  }
}

/**
 * The environment every podman and podman-compose call gets: a containers.conf of its own that selects
 * runc and cgroupfs (no systemd here) and fixed limits (the defaults try to raise them and are refused),
 * and chroot isolation for builds; podman-compose then needs no extra flags.
 */
export function podmanEnv(): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-podman-'));
  const conf = join(dir, 'containers.conf');
  writeFileSync(
    conf,
    [
      '[containers]',
      'default_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]',
      '[engine]',
      'runtime = "runc"',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      '',
    ].join('\n'),
  );
  return { ...process.env, CONTAINERS_CONF: conf, BUILDAH_ISOLATION: 'chroot' };
}

/** podman with podmanEnv(). */
export function podman(
  env: NodeJS.ProcessEnv,
  args: readonly string[],
  timeoutMs = 120_000,
): Promise<string> {
  return must('podman', args, { env, timeoutMs });
}

/**
 * A base image like node:20-bookworm-slim from Debian's packages and this machine's Node: Debian bookworm
 * (minbase, CA certificates), node, npm and Node's headers under /usr/local, a user node (uid 1000), and the
 * environment a build here needs (the machine's CA bundle for npm, the headers for node-gyp).
 */
export async function makeNodeBase(env: NodeJS.ProcessEnv, name: string): Promise<void> {
  const node = realpathSync(process.execPath);
  const prefix = dirname(dirname(node));
  const npm = join(prefix, 'lib/node_modules/npm');
  const headers = join(prefix, 'include/node');
  for (const path of [npm, headers]) {
    if (!existsSync(path))
      throw new Error(`${path} is missing: cannot copy this machine's Node into a base image`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'tidings-base-'));
  const tar = join(dir, 'base.tar');
  const hooks = [
    'mkdir -p "$1/usr/local/bin" "$1/usr/local/lib/node_modules" "$1/usr/local/include"',
    `copy-in ${node} /usr/local/bin`,
    `copy-in ${npm} /usr/local/lib/node_modules`,
    `copy-in ${headers} /usr/local/include`,
    'ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"',
    'ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
    // As the official image: a user node, uid and gid 1000, with a home.
    'echo "node:x:1000:1000::/home/node:/bin/sh" >>"$1/etc/passwd"',
    'echo "node:x:1000:" >>"$1/etc/group"',
    'echo "node:*:19000:0:99999:7:::" >>"$1/etc/shadow"',
    'mkdir -p "$1/home/node" && chown 1000:1000 "$1/home/node"',
  ];
  try {
    await must(
      'mmdebstrap',
      [
        '--variant=minbase',
        '--include=ca-certificates',
        ...hooks.map((h) => `--customize-hook=${h}`),
        'bookworm',
        tar,
      ],
      { timeoutMs: 600_000 },
    );
    await podman(
      env,
      [
        'import',
        '--change',
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        '--change',
        'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt',
        '--change',
        'ENV npm_config_nodedir=/usr/local',
        '--change',
        'CMD ["node"]',
        tar,
        name,
      ],
      300_000,
    );
  } finally {
    await run('rm', ['-rf', dir]);
  }
}
