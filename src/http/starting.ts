import http from 'node:http';
import { API_ERRORS } from './errorCodes.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * The server `serve` listens with before anything else is loaded (issue 26): until the app is ready,
 * /healthz answers 200 (the process is alive), /readyz 503 as for any other not-ready state, and every other
 * request waits, unread, and is then given to the app, so no client sees start-up but as a slower answer.
 * The app (Fastify) takes this server over through `factory` (its serverFactory option).
 */
export interface StartingServer {
  readonly server: http.Server;
  /** Fastify's serverFactory: its request handler, and its timeouts on this server. */
  readonly factory: (handler: Handler, opts: Record<string, unknown>) => http.Server;
  /** The app is ready: the requests held so far, and all later ones, go to it. */
  ready(): void;
  /** Start-up failed: stops listening and drops every connection, held requests' too. */
  abort(): void;
}

/**
 * Requests held at most while starting: past it a request is answered 503 with Retry-After at once, so a
 * flood during a slow start (PostgreSQL away) cannot hold the process's memory.
 */
export const MAX_HELD = 1000;

export async function listenStarting(
  port: number,
  host: string,
  maxHeld = MAX_HELD,
): Promise<StartingServer> {
  let app: Handler | null = null;
  let handler: Handler | null = null;
  let held: [http.IncomingMessage, http.ServerResponse][] = [];
  const server = http.createServer((req, res) => {
    if (app !== null) {
      app(req, res);
      return;
    }
    const path = (req.url ?? '').split('?')[0]?.replace(/\/$/, '');
    const read = req.method === 'GET' || req.method === 'HEAD';
    if (read && path === '/healthz') send(req, res, 200, { status: 'ok' }, {});
    else if ((read && path === '/readyz') || held.length >= maxHeld) {
      const { status, code } = API_ERRORS.unavailable;
      const message = 'the server is starting: its database is being opened and brought up to date';
      send(req, res, status, { code, message }, { 'retry-after': '5' });
    } else held.push([req, res]);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    factory: (fastifyHandler, opts) => {
      handler = fastifyHandler;
      if (typeof opts.keepAliveTimeout === 'number') server.keepAliveTimeout = opts.keepAliveTimeout;
      if (typeof opts.requestTimeout === 'number') server.requestTimeout = opts.requestTimeout;
      if (typeof opts.connectionTimeout === 'number') server.setTimeout(opts.connectionTimeout);
      return server;
    },
    ready: () => {
      if (handler === null) throw new Error('the app has not taken the starting server over');
      app = handler;
      const waiting = held;
      held = [];
      for (const [req, res] of waiting) app(req, res);
    },
    abort: () => {
      held = [];
      server.close();
      server.closeAllConnections();
    },
  };
}

function send(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  body: object,
  headers: Record<string, string>,
): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(json),
    ...headers,
  });
  res.end(req.method === 'HEAD' ? undefined : json);
}
