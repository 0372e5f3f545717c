/**
 * The page server of bench/enrich.ts, in a process of its own (its CPU and memory are not the reader's):
 * one node:http server on each of the given loopback addresses, each answering /article/N with the
 * generated page N of bench/pages.ts (made at each request, so nothing is held in memory), and /stats with
 * {"requests", "bytes"}.
 *
 * Usage: node --import tsx bench/pages-server.ts ADDRESS…; prints {"origins": […]} once listening.
 */
import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import { articlePage } from './pages.js';

const addresses = process.argv.slice(2);
const stats = { requests: 0, bytes: 0 };
const servers: Server[] = [];
const origins: string[] = [];
for (const address of addresses) {
  const server = createServer((req, res) => {
    const m = /^\/article\/(\d+)$/.exec(req.url ?? '');
    if (req.url === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
      return;
    }
    if (m === null) {
      res.writeHead(404).end();
      return;
    }
    stats.requests++;
    const body = Buffer.from(articlePage(Number(m[1]), `http://${req.headers.host ?? address}`));
    stats.bytes += body.length;
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length })
      .end(body);
  });
  server.listen(0, address);
  await once(server, 'listening');
  const a = server.address();
  if (a === null || typeof a === 'string') throw new Error('no port');
  origins.push(`http://${address}:${a.port}`);
  servers.push(server);
}
process.stdout.write(`${JSON.stringify({ origins })}\n`);
process.on('SIGTERM', () => {
  for (const s of servers) s.close();
  process.exit(0);
});
