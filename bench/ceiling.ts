/**
 * The ceiling for bench/api.ts: a bare node:http server, in its own process, that answers GET with the
 * bytes Tidings answers for the benchmark's queue and POST (after reading the whole body) with the bytes
 * of Tidings' "saved" answer, with the same headers. Nothing here can be made cheaper by Tidings, so
 * Tidings' throughput divided by this one's is the share of the machine Tidings' own work leaves.
 *
 * Usage: node --import tsx bench/ceiling.ts GET_BODY_FILE; prints {"port": N} on stdout once listening.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write('usage: ceiling.ts GET_BODY_FILE\n');
  process.exit(2);
}
const getBody = readFileSync(file);
const postBody = Buffer.from('{"code":0,"message":"saved for the next digest"}');

const headers = (body: Buffer): Record<string, string> => ({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Retry-After',
  'content-length': String(body.length),
});
const getHeaders = headers(getBody);
const postHeaders = headers(postBody);

const server = createServer((req, res) => {
  if (req.method === 'POST') {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, postHeaders);
      res.end(postBody);
    });
    return;
  }
  res.writeHead(200, getHeaders);
  res.end(getBody);
});
// The same keep-alive timeout as Fastify's default, so both answer with the same Keep-Alive header.
server.keepAliveTimeout = 72_000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
