// Turns every resource declaration into its routes: list, get, create, update, delete and nested lists.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { ApiError } from '../http/api-error.ts';
import { listEnvelope } from '../http/list-envelope.ts';
import { encodeAfter, parseListQuery, type ListQuery, type RawQuery } from '../http/query-language.ts';
import type { Row, StoreDatabase } from '../db/schema.ts';
import type { NestedDeclaration, ResourceDeclaration, ScopeGroup } from './declaration.ts';
import { createSchema, errorSchema, listSchema, recordSchema, updateSchema } from './json-schema.ts';
import { recordExists, recordsOf, setLink, type Page } from './records.ts';
import { resourceNamed, resources } from './registry.ts';

/** What a route tells the auth plugin: the scope group, and whether it reads or writes. */
export interface ResourceRouteConfig {
  resource: string;
  scope: ScopeGroup;
  access: 'read' | 'write';
}

const ALL_METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

function recordId(request: FastifyRequest, resource: ResourceDeclaration): number {
  const text = (request.params as { id: string }).id;
  const id = Number(text);
  if (!/^\d{1,15}$/.test(text) || id < 1) throw new ApiError(404, `There is no ${resource.singular} with id ${text}`);
  return id;
}

/** The body with its datetime fields (named once per resource, at registration) in ISO 8601 UTC. */
function normalizeTimes(datetimeFields: readonly string[], body: Row): Row {
  const out: Row = { ...body };
  for (const name of datetimeFields) {
    if (typeof out[name] === 'string') out[name] = new Date(out[name]).toISOString();
  }
  return out;
}

/** `PUT /products/5/categories/3` links, `DELETE` unlinks; both answer 404 when either record is missing. */
function linkRoutes(
  app: FastifyInstance,
  database: StoreDatabase,
  resource: ResourceDeclaration,
  name: string,
  nested: Extract<NestedDeclaration, { kind: 'link' }>,
  paths: [string, HTTPMethods[]][],
  config: ResourceRouteConfig,
): void {
  const child = resourceNamed(nested.resource);
  const path = `/${resource.name}/:id/${name}/:childId`;
  paths.push([path, ['PUT', 'DELETE']]);
  const handler = (linked: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const parentId = recordId(request, resource);
    const childText = (request.params as { childId: string }).childId;
    const childId = /^\d{1,15}$/.test(childText) ? Number(childText) : 0;
    if (!(await recordExists(database.db, resource, parentId))) throw new ApiError(404, `There is no ${resource.singular} with id ${parentId}`);
    const childRow = childId === 0 ? undefined : await recordsOf(database, child).get(childId);
    if (childRow === undefined) throw new ApiError(404, `There is no ${child.singular} with id ${childText}`);
    if (!linked && !(await setLink(database.db, nested, parentId, childId, false))) {
      throw new ApiError(404, `${child.singular} ${childId} is not linked to ${resource.singular} ${parentId}`);
    }
    if (!linked) return reply.code(200).send();
    await setLink(database.db, nested, parentId, childId, true);
    return childRow;
  };
  app.put(path, { config, schema: { response: { 200: recordSchema(child, false), '4xx': errorSchema } } }, handler(true));
  app.delete(path, { config }, handler(false));
}

export function resourceRoutes(app: FastifyInstance, options: { database: StoreDatabase }): Promise<void> {
  for (const resource of resources) {
    const records = recordsOf(options.database, resource);
    const datetimeFields = Object.entries(resource.fields).flatMap(([name, field]) => (field.type === 'datetime' ? [name] : []));
    const read: ResourceRouteConfig = { resource: resource.name, scope: resource.scope, access: 'read' };
    const write: ResourceRouteConfig = { ...read, access: 'write' };
    const one = { 200: recordSchema(resource), '4xx': errorSchema };
    const collection = `/${resource.name}`;
    const item = `/${resource.name}/:id`;

    const sendPage = (request: FastifyRequest, name: string, page: Page, query: ListQuery) => {
      if (query.page > 1 && query.after === undefined && page.rows.length === 0) throw new ApiError(404, `Page ${query.page} is past the last page`);
      const after = page.nextAfter === undefined ? undefined : encodeAfter(page.nextAfter);
      return listEnvelope(request, name, page.rows, page.total, { page: query.page, hasMore: page.hasMore, after });
    };

    app.get(collection, { config: read, schema: { response: { 200: listSchema(resource), '4xx': errorSchema } } }, async (request) => {
      const query = parseListQuery(resource, request.query as RawQuery);
      return sendPage(request, resource.name, await records.list(query), query);
    });

    app.post(collection, { config: write, schema: { body: createSchema(resource), response: { 201: recordSchema(resource), '4xx': errorSchema } } }, async (request, reply) => {
      const created = await records.create(normalizeTimes(datetimeFields, request.body as Row));
      return reply.code(201).send(created);
    });

    app.get(item, { config: read, schema: { response: one } }, async (request) => {
      const id = recordId(request, resource);
      const row = await records.get(id);
      if (row === undefined) throw new ApiError(404, `There is no ${resource.singular} with id ${id}`);
      return row;
    });

    app.put(item, { config: write, schema: { body: updateSchema(resource), response: one } }, async (request) => {
      const id = recordId(request, resource);
      const row = await records.update(id, normalizeTimes(datetimeFields, request.body as Row));
      if (row === undefined) throw new ApiError(404, `There is no ${resource.singular} with id ${id}`);
      return row;
    });

    app.delete(item, { config: write }, async (request, reply) => {
      const id = recordId(request, resource);
      if (!(await records.remove(id))) throw new ApiError(404, `There is no ${resource.singular} with id ${id}`);
      return reply.code(200).send();
    });

    const paths: [string, HTTPMethods[]][] = [
      [collection, ['GET', 'POST']],
      [item, ['GET', 'PUT', 'DELETE']],
    ];

    for (const [name, nested] of Object.entries(resource.nested)) {
      const child = resourceNamed(nested.resource);
      const childRecords = recordsOf(options.database, child);
      const path = `${item}/${name}`;
      paths.push([path, ['GET']]);
      app.get(path, { config: { ...read, scope: child.scope }, schema: { response: { 200: listSchema(child), '4xx': errorSchema } } }, async (request) => {
        const parentId = recordId(request, resource);
        if (!(await recordExists(options.database.db, resource, parentId))) throw new ApiError(404, `There is no ${resource.singular} with id ${parentId}`);
        const query = parseListQuery(child, request.query as RawQuery);
        return sendPage(request, child.name, await childRecords.list(query, { nested, parentId }), query);
      });
      if (nested.kind === 'link') linkRoutes(app, options.database, resource, name, nested, paths, write);
    }

    for (const [path, allowed] of paths) {
      const others = ALL_METHODS.filter((method) => !allowed.includes(method));
      app.route({
        method: others,
        url: path,
        handler: (request) => {
          throw new ApiError(405, `${request.method} is not allowed here; use ${allowed.join(', ')}`, { allow: [...allowed, 'HEAD'].join(', ') });
        },
      });
    }
  }
  return Promise.resolve();
}
