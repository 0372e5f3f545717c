import type { FastifyInstance } from 'fastify';
import { API_ERRORS as errorCatalog } from './errors.js';
import { MAX_TITLE_LENGTH, MAX_URL_LENGTH } from '../queue/url.js';

const errorSchema = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'integer', description: 'Stable number per condition; see docs/api.md.' },
    message: { type: 'string' },
  },
};

const savedUrl = {
  type: 'object',
  required: ['url', 'title'],
  additionalProperties: false,
  properties: { url: { type: 'string', format: 'uri' }, title: { type: 'string' } },
};

const postBody = {
  type: 'object',
  required: ['url'],
  properties: {
    url: { type: 'string', maxLength: MAX_URL_LENGTH, description: 'Absolute http or https URL.' },
    title: { type: 'string', maxLength: MAX_TITLE_LENGTH, description: 'Defaults to the url.' },
  },
};

const errorResponses = (statuses: number[]): Record<string, unknown> =>
  Object.fromEntries(
    statuses.map((s) => [
      String(s),
      {
        description: Object.entries(errorCatalog)
          .filter(([, v]) => v.status === s)
          .map(([k, v]) => `${v.code} ${k}`)
          .join(', '),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );

function operations(variant: 'A' | 'B', keyParam: string): Record<string, unknown> {
  const key = { name: keyParam, in: 'query', required: variant === 'A', schema: { type: 'string' } };
  const bodyProps =
    variant === 'B'
      ? {
          ...postBody,
          properties: {
            ...postBody.properties,
            api_key: { type: 'string', description: 'Only when absent from the query.' },
          },
        }
      : postBody;
  const success =
    variant === 'A'
      ? {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { const: 0 }, message: { type: 'string' } },
        }
      : {
          type: 'object',
          required: ['message'],
          additionalProperties: false,
          properties: { message: { const: 'success' } },
        };
  return {
    get: {
      summary: `List the queue (variant ${variant})`,
      parameters: [key],
      responses: {
        '200': {
          description: 'The saved URLs waiting for the next digest, oldest first.',
          content: { 'application/json': { schema: { type: 'array', items: savedUrl } } },
        },
        ...errorResponses([401, 429, 500, 503]),
      },
    },
    post: {
      summary: `Save a URL (variant ${variant})`,
      parameters: [key],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: bodyProps },
          'application/x-www-form-urlencoded': { schema: bodyProps },
          'multipart/form-data': { schema: bodyProps },
        },
      },
      responses: {
        '200': {
          description: 'Saved (or already queued).',
          content: { 'application/json': { schema: success } },
        },
        ...errorResponses([400, 401, 409, 413, 429, 500, 503]),
      },
    },
  };
}

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Tidings saved-URL API',
    version: '1',
    description:
      'Two variants of one API over the same per-account queue. Every error is JSON {code, message}. See docs/api.md.',
  },
  paths: {
    '/api/v1/articles': operations('A', 'apiKey'),
    '/api': operations('B', 'api_key'),
    '/healthz': {
      get: { summary: 'Liveness', responses: { '200': { description: 'The process answers.' } } },
    },
    '/readyz': {
      get: {
        summary: 'Readiness (database reachable)',
        responses: { '200': { description: 'Ready.' }, ...errorResponses([503]) },
      },
    },
  },
  components: { schemas: { Error: errorSchema, SavedUrl: savedUrl } },
};

export function registerOpenApi(app: FastifyInstance): void {
  const body = JSON.stringify(openApiDocument);
  app.get('/openapi.json', (_req, reply) =>
    reply.header('content-type', 'application/json; charset=utf-8').send(body),
  );
}
