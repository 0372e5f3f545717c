import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';

/** The points of an SMTP conversation a fault can be set on: the greeting, AUTH, MAIL FROM, RCPT TO, DATA. */
export type SmtpStep = 'CONNECT' | 'AUTH' | 'MAIL' | 'RCPT' | 'DATA';

/**
 * What the server does at a step instead of going on: answer with an SMTP error, drop the connection
 * without a word, or never answer at all. `times` faults apply that many times (default: until cleared).
 */
export type SmtpFault = { step: SmtpStep; times?: number } & (
  { action: 'reply'; code: number; message?: string } | { action: 'drop' } | { action: 'hang' }
);

export interface ReceivedMail {
  /** The message as it arrived, headers and body. */
  raw: Buffer;
  /** The envelope: MAIL FROM and RCPT TO. */
  from: string;
  to: string[];
  /** Who logged in for it, or null. */
  user: string | null;
}

export interface SmtpServerOptions {
  /** Accounts that may log in; when given, sending without logging in is refused (530). */
  users?: Readonly<Record<string, string>>;
  /** TLS from the first byte (smtps), with smtp-server's built-in self-signed certificate. */
  secure?: boolean;
}

/**
 * A real SMTP server on 127.0.0.1 for the mail tests (the `smtp-server` package): records every message
 * it accepts and every login attempt, and can be told to fail at a chosen step. close() ends every
 * connection at once, hanging ones included.
 */
export class SmtpTestServer {
  readonly messages: ReceivedMail[] = [];
  readonly logins: { user: string; ok: boolean }[] = [];
  /** Errors the server reported (a client hanging up mid-handshake, say): recorded, not thrown. */
  readonly errors: Error[] = [];
  private faults: SmtpFault[] = [];
  private readonly sockets = new Map<number, Socket>();
  private readonly server: SMTPServer;
  private port = 0;

  private constructor(private readonly options: SmtpServerOptions) {
    const users = options.users;
    this.server = new SMTPServer({
      secure: options.secure ?? false,
      logger: false,
      banner: 'Tidings test server',
      // Plain loopback: no STARTTLS (its certificate is self-signed) and logins allowed in clear.
      disabledCommands: options.secure === true ? [] : ['STARTTLS'],
      allowInsecureAuth: true,
      authOptional: users === undefined,
      authMethods: ['PLAIN', 'LOGIN'],
      closeTimeout: 100,
      onConnect: (session, callback) => {
        this.step('CONNECT', session, callback);
      },
      onAuth: (auth, session, callback) => {
        this.step('AUTH', session, (err) => {
          if (err) {
            callback(err);
            return;
          }
          const user = auth.username ?? '';
          const ok = users !== undefined && users[user] === auth.password;
          this.logins.push({ user, ok });
          if (ok) callback(null, { user });
          else callback(smtpError(535, '5.7.8 Authentication credentials invalid'));
        });
      },
      onMailFrom: (_address: SMTPServerAddress, session, callback) => {
        this.step('MAIL', session, callback);
      },
      onRcptTo: (_address: SMTPServerAddress, session, callback) => {
        this.step('RCPT', session, callback);
      },
      onData: (stream, session, callback) => {
        void this.receive(stream, session, callback);
      },
    });
  }

  static async start(options: SmtpServerOptions = {}): Promise<SmtpTestServer> {
    const s = new SmtpTestServer(options);
    s.server.on('error', (err: Error) => s.errors.push(err));
    s.server.server.on('connection', (socket: Socket) => {
      const port = socket.remotePort;
      if (port === undefined) return;
      s.sockets.set(port, socket);
      socket.on('close', () => s.sockets.delete(port));
    });
    s.server.listen(0, '127.0.0.1');
    await once(s.server.server, 'listening');
    s.port = (s.server.server.address() as AddressInfo).port;
    return s;
  }

  /** smtp(s)://[user:pass@]127.0.0.1:PORT, credentials percent-encoded. */
  url(credentials?: { user: string; pass: string }): string {
    const auth =
      credentials === undefined
        ? ''
        : `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.pass)}@`;
    return `${this.options.secure === true ? 'smtps' : 'smtp'}://${auth}127.0.0.1:${this.port}`;
  }

  /** Faults for the sessions from now on (replacing any set before); none: behave. */
  fail(...faults: SmtpFault[]): void {
    this.faults = faults.map((f) => ({ ...f }));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets.values()) socket.destroy();
    await new Promise<void>((resolve) => {
      this.server.close(resolve);
    });
  }

  /** Applies the fault set on `step`, if any, else lets the conversation go on. */
  private step(step: SmtpStep, session: SMTPServerSession, callback: (err?: Error | null) => void): void {
    const fault = this.faults.find((f) => f.step === step && (f.times === undefined || f.times > 0));
    if (fault === undefined) {
      callback();
      return;
    }
    if (fault.times !== undefined) fault.times--;
    switch (fault.action) {
      case 'reply':
        callback(smtpError(fault.code, fault.message ?? `${fault.code} test fault at ${step}`));
        return;
      case 'drop':
        this.sockets.get(session.remotePort)?.destroy();
        return;
      case 'hang':
        return; // never answer: the client's timeout has to end it
    }
  }

  private async receive(
    stream: Readable,
    session: SMTPServerSession,
    callback: (err?: Error | null, message?: string) => void,
  ): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    this.step('DATA', session, (err) => {
      if (err) {
        callback(err);
        return;
      }
      this.messages.push({
        raw: Buffer.concat(chunks),
        from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
        to: session.envelope.rcptTo.map((r) => r.address),
        user: typeof session.user === 'string' ? session.user : null,
      });
      callback(null, `Ok: queued as ${this.messages.length}`);
    });
  }
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}
