import { createTransport } from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';

/** What an SMTP server answered a message: accepted (250, with the recipients it took) or refused. */
export type SmtpAnswer =
  | { ok: true; response: string; accepted: string[]; rejected: string[] }
  | { ok: false; code: number | null; command: string; response: string };

export interface SendOptions {
  /** Declared in MAIL FROM (SIZE=…) when given. */
  size?: number;
  /** STARTTLS required, the server's certificate checked against this CA (PEM). */
  starttls?: { ca: string };
  from?: string;
}

const addresses = (list: unknown): string[] =>
  Array.isArray(list)
    ? list.map((a) => (typeof a === 'string' ? a : String((a as { address?: string }).address)))
    : [];

/**
 * Sends one raw message over real SMTP (nodemailer, the client Tidings itself sends with) to
 * 127.0.0.1:port, RCPT TO each of `to`, and says what the server answered. A connection per message.
 */
export async function sendRaw(
  port: number,
  raw: Buffer,
  to: string[],
  options: SendOptions = {},
): Promise<SmtpAnswer> {
  const transport = createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: options.starttls === undefined,
    requireTLS: options.starttls !== undefined,
    ...(options.starttls === undefined ? {} : { tls: { ca: options.starttls.ca, servername: 'localhost' } }),
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
  });
  const envelope: Mail.Envelope & { size?: number } = {
    from: options.from ?? 'sender@newsletter.example',
    to: to.join(', '),
    ...(options.size === undefined ? {} : { size: options.size }),
  };
  try {
    const info = (await transport.sendMail({ envelope, raw })) as {
      response: string;
      accepted: unknown;
      rejected: unknown;
    };
    return {
      ok: true,
      response: info.response,
      accepted: addresses(info.accepted),
      rejected: addresses(info.rejected),
    };
  } catch (err) {
    const e = err as { responseCode?: number; command?: string; response?: string; message: string };
    return {
      ok: false,
      code: e.responseCode ?? null,
      command: e.command ?? '',
      response: e.response ?? e.message,
    };
  } finally {
    transport.close();
  }
}

/**
 * A conversation typed by hand over a plain socket, for what a polite client (nodemailer) will not send:
 * each command in turn, and the server's whole reply (all its lines) to the greeting and to each.
 */
export async function smtpDialog(port: number, commands: string[]): Promise<string[]> {
  const { connect } = await import('node:net');
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  let buffer = '';
  const waiting: ((reply: string) => void)[] = [];
  const replies: string[] = [];
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    // A reply ends with a line "NNN text" (a space, not a dash, after the code).
    for (
      let m = /(?:^|\r\n)\d{3} [^\r\n]*\r\n/.exec(buffer);
      m !== null;
      m = /(?:^|\r\n)\d{3} [^\r\n]*\r\n/.exec(buffer)
    ) {
      const end = m.index + m[0].length;
      const reply = buffer.slice(0, end).replace(/^\r\n/, '');
      buffer = buffer.slice(end);
      const next = waiting.shift();
      if (next === undefined) replies.push(reply);
      else next(reply);
    }
  });
  const reply = (): Promise<string> =>
    replies.length > 0
      ? Promise.resolve(replies.shift() ?? '')
      : new Promise((resolve) => waiting.push(resolve));
  const answers = [await reply()];
  for (const command of commands) {
    socket.write(`${command}\r\n`);
    answers.push(await reply());
  }
  socket.destroy();
  return answers;
}
