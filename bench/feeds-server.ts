/**
 * The feed fixture server for bench/feeds-poll.ts, in a process of its own: one node:http server listening
 * on each of the given loopback addresses (Linux routes all of 127/8 to loopback), each on a port of its
 * own choosing, all answering the same paths:
 *
 * - /static/N.xml: a small RSS feed (5 items) that never changes, with an ETag and a Last-Modified;
 *   304 Not Modified when the request's If-None-Match names that ETag.
 * - /changing/N.xml: a small RSS feed that gains one new item (dated now) at every request, with a new
 *   ETag each time: a conditional request gets the whole new feed.
 * - /stats: {"requests", "ok", "notModified"} counted by every listener together.
 *
 * Usage: node --import tsx bench/feeds-server.ts ADDRESS…; prints {"origins": ["http://ADDRESS:PORT", …]}
 * on stdout once every listener is up, and stops on SIGTERM.
 */
import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { rfc822, rssDocument } from './feeds-corpus.js';

const addresses = process.argv.slice(2);
if (addresses.length === 0) {
  process.stderr.write('usage: feeds-server.ts ADDRESS…\n');
  process.exit(2);
}

const FEED_ITEMS = 5;
const STARTED = new Date(Math.floor(Date.now() / 1000) * 1000);
const LAST_MODIFIED = rfc822(STARTED).replace('+0000', 'GMT');
const stats = { requests: 0, ok: 0, notModified: 0 };
const versions = new Map<number, number>();
const staticBodies = new Map<number, Buffer>();

function feed(n: number, newest: number, newestDate: Date, kind: string): Buffer {
  return Buffer.from(
    rssDocument({
      seed: n,
      items: FEED_ITEMS,
      paragraphs: 2,
      newest,
      newestDate,
      site: `https://${kind}-${n}.example.net`,
      title: `Bench ${kind} feed ${n}`,
    }),
  );
}

function send(res: ServerResponse, etag: string, body: Buffer): void {
  stats.ok++;
  res.writeHead(200, {
    'content-type': 'application/rss+xml; charset=utf-8',
    'content-length': String(body.length),
    etag,
    'last-modified': LAST_MODIFIED,
  });
  res.end(body);
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const path = req.url ?? '/';
  if (path === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
    return;
  }
  const m = /^\/(static|changing)\/(\d+)\.xml$/.exec(path);
  const n = Number(m?.[2]);
  if (m === null || !Number.isSafeInteger(n)) {
    res.writeHead(404).end();
    return;
  }
  stats.requests++;
  if (m[1] === 'static') {
    const etag = `"s${n}"`;
    if (req.headers['if-none-match'] === etag) {
      stats.notModified++;
      res.writeHead(304, { etag, 'last-modified': LAST_MODIFIED }).end();
      return;
    }
    let body = staticBodies.get(n);
    if (body === undefined) {
      body = feed(n, 1000 + FEED_ITEMS, new Date(STARTED.getTime() - (n % 600) * 60_000), 'static');
      staticBodies.set(n, body);
    }
    send(res, etag, body);
    return;
  }
  const version = (versions.get(n) ?? 0) + 1;
  versions.set(n, version);
  send(res, `"c${n}-${version}"`, feed(n, 1000 + FEED_ITEMS + version, new Date(), 'changing'));
}

const servers: Server[] = [];
const origins: string[] = [];
for (const address of addresses) {
  const server = createServer(handle);
  server.listen(0, address);
  await once(server, 'listening');
  const bound = server.address();
  if (bound === null || typeof bound === 'string') throw new Error('no TCP address');
  servers.push(server);
  origins.push(`http://${address}:${bound.port}`);
}
process.stdout.write(`${JSON.stringify({ origins })}\n`);
process.once('SIGTERM', () => {
  for (const server of servers) {
    server.close();
    server.closeAllConnections();
  }
});
