import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ImapFlow } from 'imapflow';
import type { InboundImapConfig } from '../config.js';
import { freePort, tryConnect } from './process.js';
import { selfSigned } from './tlsProxy.js';

/**
 * A real IMAP server for the tests: Debian's Dovecot (`dovecot-imapd`, installed by .ci/run), started in
 * the foreground in a temporary folder of its own on a free loopback port, one mailbox user, plain IMAP
 * (loopback only). `idle: false` takes IDLE out of its capabilities, for the polling path; `tls: true`
 * makes it an imaps:// server (implicit TLS, `ssl = required`) with a self-signed certificate made here by
 * openssl (test/tlsProxy.ts selfSigned), whose PEM file is `caFile`. Mail goes in with APPEND, as a mail
 * server's delivery would appear. /work/shared/notes/imap.md has the why of each line.
 */

const NOBODY = 65534;
export const DOVECOT_USER = 'inbox@example.test';
export const DOVECOT_PASS = 'a-test-password';

export class Dovecot {
  private child: ChildProcess | null = null;

  private constructor(
    readonly dir: string,
    readonly port: number,
    /** The certificate's PEM file (its own CA) of an imaps:// server; null: plain imap://. */
    readonly caFile: string | null,
  ) {}

  static async start(options: { idle?: boolean; tls?: boolean } = {}): Promise<Dovecot> {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-dovecot-'));
    chmodSync(dir, 0o755);
    const port = await freePort();
    const tls = options.tls === true ? selfSigned(dir, 'IP:127.0.0.1') : null;
    // Plain IMAP on the port; or implicit TLS there (imaps), and plain IMAP on none.
    const on = `address = 127.0.0.1\n    port = ${port}`;
    const listen =
      tls === null ? { imap: on, imaps: 'port = 0' } : { imap: 'port = 0', imaps: `${on}\n    ssl = yes` };
    const ssl =
      tls === null
        ? 'ssl = no'
        : `ssl = required\nssl_cert = <${tls.certFile}\nssl_key = <${join(dir, 'server.key')}`;
    const capability =
      options.idle === false
        ? 'imap_capability = IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE LITERAL+ UIDPLUS\n'
        : '';
    const conf = `protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
instance_name = test-${port}
${ssl}
disable_plaintext_auth = no
auth_mechanisms = plain login
default_login_user = dovenull
default_internal_user = dovecot
default_internal_group = dovecot
log_path = ${dir}/dovecot.log
mail_location = maildir:~/Maildir
${capability}passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = passwd-file
  args = username_format=%u ${dir}/passwd
}
service imap-login {
  inet_listener imap {
    ${listen.imap}
  }
  inet_listener imaps {
    ${listen.imaps}
  }
  chroot =
}
service anvil {
  chroot =
}
service stats {
  chroot =
}
`;
    writeFileSync(join(dir, 'dovecot.conf'), conf);
    writeFileSync(
      join(dir, 'passwd'),
      `${DOVECOT_USER}:{PLAIN}${DOVECOT_PASS}:${NOBODY}:${NOBODY}::${dir}/mail/inbox\n`,
    );
    mkdirSync(join(dir, 'mail', 'inbox'), { recursive: true });
    chownSync(join(dir, 'mail'), NOBODY, NOBODY);
    chownSync(join(dir, 'mail', 'inbox'), NOBODY, NOBODY);
    const d = new Dovecot(dir, port, tls?.certFile ?? null);
    await d.run();
    return d;
  }

  /** What TIDINGS_INBOUND_IMAP_URL says, parsed. */
  config(mailbox = 'INBOX'): InboundImapConfig {
    return {
      secure: this.caFile !== null,
      host: '127.0.0.1',
      port: this.port,
      user: DOVECOT_USER,
      pass: DOVECOT_PASS,
      mailbox,
    };
  }

  url(): string {
    const scheme = this.caFile === null ? 'imap' : 'imaps';
    return `${scheme}://${encodeURIComponent(DOVECOT_USER)}:${DOVECOT_PASS}@127.0.0.1:${this.port}/INBOX`;
  }

  /** Starts the server (again, after stop()) and waits for its port. */
  async run(): Promise<void> {
    const child = spawn('/usr/sbin/dovecot', ['-F', '-c', join(this.dir, 'dovecot.conf')], {
      stdio: 'ignore',
    });
    this.child = child;
    for (let i = 0; i < 300; i++) {
      if (child.exitCode !== null)
        throw new Error(`dovecot exited ${String(child.exitCode)}; see ${this.dir}`);
      if ((await tryConnect(this.port)) === 'connected') return;
      await sleep(50);
    }
    throw new Error('dovecot did not listen in 15 s');
  }

  /** Stops the server (SIGTERM), keeping its mail: run() brings it back on the same port. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child === null || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
    for (let i = 0; i < 100 && (await tryConnect(this.port)) === 'connected'; i++) await sleep(50);
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** A client logged in to the mailbox, for `fn`, logged out after. */
  async withClient<T>(fn: (client: ImapFlow) => Promise<T>): Promise<T> {
    const client = new ImapFlow({
      host: '127.0.0.1',
      port: this.port,
      secure: this.caFile !== null,
      ...(this.caFile === null ? {} : { tls: { ca: readFileSync(this.caFile) } }),
      auth: { user: DOVECOT_USER, pass: DOVECOT_PASS },
      logger: false,
    });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.logout().catch(() => undefined);
    }
  }

  /** APPENDs each message to INBOX (unread); resolves once the server stored them all. */
  async append(...messages: Buffer[]): Promise<void> {
    await this.withClient(async (client) => {
      for (const raw of messages) await client.append('INBOX', raw, []);
    });
  }

  /** Every message of INBOX with its flags, by UID. */
  async flags(): Promise<{ uid: number; flags: string[] }[]> {
    return this.withClient(async (client) => {
      const lock = await client.getMailboxLock('INBOX');
      try {
        const all = await client.fetchAll('1:*', { uid: true, flags: true });
        return all.map((m) => ({ uid: m.uid, flags: [...(m.flags ?? [])].sort() }));
      } finally {
        lock.release();
      }
    });
  }
}
