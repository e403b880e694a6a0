// Serves the OpenAPI document and the docs page; both are public and built once.
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from '../resources/openapi.ts';
import { resources } from '../resources/registry.ts';
import { docsPage } from './docs-page.ts';

export function apiDocs(app: FastifyInstance): Promise<void> {
  const document = JSON.stringify(openApiDocument());
  const page = docsPage(resources);
  app.get('/openapi.json', { config: { public: true } }, (_request, reply) => reply.type('application/json; charset=utf-8').send(document));
  app.get('/docs', { config: { public: true } }, (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
  return Promise.resolve();
}
