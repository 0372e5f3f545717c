import {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  createServer,
} from 'node:http';
import { type AddressInfo, type Socket, createServer as createTcpServer } from 'node:net';
import { once } from 'node:events';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface RecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
}

/**
 * A real HTTP server on a loopback address for the fetcher's tests: answers by path, records every request
 * it receives, and closes every connection at once (even a body still being sent).
 */
export class FeedServer {
  readonly requests: RecordedRequest[] = [];
  private readonly routes = new Map<string, Handler>();

  private constructor(
    private readonly server: Server,
    /** http://HOST:PORT */
    readonly origin: string,
  ) {}

  /** Linux routes all of 127/8 to loopback, so 127.0.0.2 is a second address a test policy can allow. */
  static async start(host: string): Promise<FeedServer> {
    const server = createServer();
    server.listen(0, host);
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const feedServer = new FeedServer(server, `http://${host.includes(':') ? `[${host}]` : host}:${port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      feedServer.handle(req, res);
    });
    return feedServer;
  }

  /** Answers requests for `path` with `handler`; returns the path's full URL. */
  route(path: string, handler: Handler): string {
    this.routes.set(path, handler);
    return this.url(path);
  }

  url(path: string): string {
    return `${this.origin}${path}`;
  }

  /** The requests received for one path. */
  requestsFor(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = req.url ?? '/';
    this.requests.push({ path, headers: req.headers });
    const handler = this.routes.get(path);
    if (handler === undefined) res.writeHead(404).end();
    else handler(req, res);
  }
}

/** A TCP server that accepts connections and never says a word: a TLS handshake with it hangs. */
export async function startSilentServer(host: string): Promise<{ origin: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${host}:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A port on `host` where nothing listens: it was bound a moment ago, then released. */
export async function closedPort(host: string): Promise<number> {
  const server = createTcpServer();
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
