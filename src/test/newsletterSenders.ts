import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSigned } from './tlsProxy.js';

/** A short plain newsletter from `from` with the given List-Unsubscribe headers (none by default). */
export function letterFrom(
  from: string,
  options: { to: string; id: string; unsubscribe?: string; post?: string; subject?: string },
): Buffer {
  const lines = [
    `From: ${from}`,
    `To: ${options.to}`,
    `Subject: ${options.subject ?? `Letter ${options.id}`}`,
    'Date: Fri, 06 Nov 2026 08:00:00 +0000',
    `Message-ID: <${options.id}@lists.example>`,
    'MIME-Version: 1.0',
    ...(options.unsubscribe === undefined ? [] : [`List-Unsubscribe: ${options.unsubscribe}`]),
    ...(options.post === undefined ? [] : [`List-Unsubscribe-Post: ${options.post}`]),
    'Content-Type: text/html; charset=utf-8',
    '',
    `<p>Please confirm your subscription: <a href="https://lists.example/confirm/${options.id}">Yes, subscribe me</a>.</p>`,
    '<p>We write about rivers, and the towns that move with them, once a week.</p>',
    '',
  ];
  return Buffer.from(lines.join('\r\n'), 'utf8');
}

export interface UnsubscribeRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  cookie: string | undefined;
  authorization: string | undefined;
  body: string;
}

/** A real HTTPS server on 127.0.0.1 (a certificate made here) recording the one-click requests it gets. */
export interface UnsubscribeServer {
  /** https://127.0.0.1:PORT */
  origin: string;
  /** The certificate to trust (PEM). */
  ca: string;
  requests: UnsubscribeRequest[];
  close(): Promise<void>;
}

export async function startUnsubscribeServer(status = 200): Promise<UnsubscribeServer> {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-unsub-'));
  const { cert, key } = selfSigned(dir, 'IP:127.0.0.1');
  rmSync(dir, { recursive: true, force: true });
  const requests: UnsubscribeRequest[] = [];
  const server = createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'],
        cookie: req.headers.cookie,
        authorization: req.headers.authorization,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(status, { 'content-type': 'text/plain' }).end('You are unsubscribed.');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    ca: cert,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
