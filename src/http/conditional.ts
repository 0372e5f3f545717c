import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Conditional GET for generated documents: the ETag is a hash of the body itself, so it changes exactly
 * when the bytes do (a new digest, a renamed account, a rotated token in the links, a new version of the
 * renderer), and Last-Modified is the time the newest content was built. If-None-Match wins over
 * If-Modified-Since when both are sent (RFC 9110, 13.2.2).
 */
export function sendConditional(
  request: FastifyRequest,
  reply: FastifyReply,
  doc: { contentType: string; body: string | Buffer; lastModified: string },
): FastifyReply {
  const etag = `"${hash('sha256', doc.body, 'base64url').slice(0, 27)}"`;
  const modified = Date.parse(doc.lastModified);
  reply.header('etag', etag).header('cache-control', 'private, no-cache');
  if (!Number.isNaN(modified)) reply.header('last-modified', new Date(modified).toUTCString());
  if (notModified(request, etag, modified)) return reply.code(304).send();
  return reply.type(doc.contentType).send(doc.body);
}

function notModified(request: FastifyRequest, etag: string, modified: number): boolean {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return etagListMatches(ifNoneMatch, etag);
  const ifModifiedSince = request.headers['if-modified-since'];
  if (ifModifiedSince === undefined || Number.isNaN(modified)) return false;
  const since = Date.parse(ifModifiedSince);
  // HTTP dates have whole seconds: the content counts as modified only after the second it names.
  return !Number.isNaN(since) && Math.floor(modified / 1000) <= Math.floor(since / 1000);
}

/** If-None-Match's weak comparison: `*`, or any tag of the list equal to ours with W/ ignored. */
export function etagListMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const ours = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === ours);
}
