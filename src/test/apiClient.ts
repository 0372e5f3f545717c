import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { API_ERRORS as errorCatalog } from '../http/errors.js';
import { type EngineContext, newAccount, testServer } from './harness.js';

/** The API's two variants (see src/http/api.ts). */
export const A = '/api/v1/articles';
export const B = '/api';

/** The API's numeric error codes by name. */
export const codes = Object.fromEntries(Object.entries(errorCatalog).map(([k, v]) => [k, v.code])) as Record<
  keyof typeof errorCatalog,
  number
>;

/** Checks an API error answer: its status, its JSON {code, message} and, when given, its code. */
export function assertError(
  res: LightMyRequestResponse,
  status: number,
  code?: number,
): { code: number; message: string } {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json<{ code: number; message: string }>();
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message']);
  assert.equal(typeof body.code, 'number');
  assert.ok(body.message.length > 0);
  if (code !== undefined) assert.equal(body.code, code, body.message);
  return body;
}

/** A test server with a queue limit of 50, and an account of its own with its key. */
export async function startApi(
  ctx: EngineContext,
): Promise<{ app: FastifyInstance; key: string; accountId: number }> {
  const app = testServer(ctx.store(), { queueLimit: 50 });
  await app.ready();
  const { apiKey: key, id: accountId } = await newAccount(ctx.store());
  return { app, key, accountId };
}

/** The queue as a GET on `path` lists it. */
export async function listQueue(
  app: FastifyInstance,
  path: string,
): Promise<{ url: string; title: string }[]> {
  const res = await app.inject({ method: 'GET', url: path });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}
