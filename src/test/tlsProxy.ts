/**
 * PostgreSQL with TLS, for tests on a server that has none: a loopback proxy that answers a client's
 * SSLRequest with 'S', speaks TLS with a certificate made here by openssl, and forwards the plain
 * protocol to the real server. A client that does not ask for TLS is forwarded as it is.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { forwardSocket } from './process.js';

/** Protocol code of an SSLRequest (PostgreSQL's frontend/backend protocol). */
const SSL_REQUEST = 80877103;

export interface TlsProxy {
  port: number;
  /** The PEM file of the self-signed certificate the proxy shows (its own CA). */
  caFile: string;
  /** How many clients asked for TLS and completed the handshake. */
  handshakes(): number;
  close(): Promise<void>;
}

/** A self-signed certificate for `subjectAltName` (e.g. "IP:127.0.0.1"), written to `dir`. */
export function selfSigned(
  dir: string,
  subjectAltName: string,
): { cert: string; key: string; certFile: string } {
  const certFile = join(dir, 'server.crt');
  const keyFile = join(dir, 'server.key');
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-days', '1', '-subj', '/CN=tidings-test', '-addext', `subjectAltName=${subjectAltName}`],
      ...['-keyout', keyFile, '-out', certFile],
    ],
    { stdio: 'ignore' },
  );
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile };
}

export async function startTlsProxy(
  target: { host: string; port: number },
  subjectAltName = 'IP:127.0.0.1',
): Promise<TlsProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-tls-'));
  const { cert, key, certFile } = selfSigned(dir, subjectAltName);
  const sockets = new Set<net.Socket>();
  let handshakes = 0;
  const forward = (client: net.Socket, first: Buffer | null): void => {
    forwardSocket(client, target, sockets, first);
  };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.once('readable', function readHead() {
      const head = socket.read(8) as Buffer | null;
      if (head === null) {
        socket.once('readable', readHead);
        return;
      }
      if (head.readInt32BE(0) !== 8 || head.readInt32BE(4) !== SSL_REQUEST) {
        forward(socket, head);
        return;
      }
      socket.write('S');
      const secure = new tls.TLSSocket(socket, { isServer: true, cert, key });
      secure.on('error', () => socket.destroy());
      secure.once('secure', () => {
        handshakes++;
        forward(secure, null);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    caFile: certFile,
    handshakes: () => handshakes,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        for (const s of sockets) s.destroy();
      }),
  };
}
