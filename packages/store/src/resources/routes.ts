// Turns every resource declaration into the platform's route families: list, select_many, one, filled,
// nested lists, POST as upsert, partial PUT, DELETE, and links between records.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { ApiError } from '../model/api-error.ts';
import { linkNextPage, listEnvelope, listEnvelopeBody } from '../http/list-envelope.ts';
import { parseRecordId } from '../http/record-id.ts';
import { encodeAfter, parseListQuery, type ListPositions, type ListQuery, type RawQuery } from '../model/query-language.ts';
import { cursorSeal, type CursorSeal } from '../http/signed-cursor.ts';
import type { Row, StoreDatabase } from '../db/schema.ts';
import { type NestedDeclaration, type ResourceDeclaration } from '../model/declaration.ts';
import type { ResourceRouteConfig, RouteConfig } from '../model/route-config.ts';
import { answerInWrite, shownJson, type AnswerText } from '../http/answer-in-write.ts';
import { encryptedFields } from '../model/encrypted-fields.ts';
import { expandOf } from './expand.ts';
import { createSchema, updateSchema } from '../model/json-schema.ts';
import { recordExists, setLink } from '../records/links.ts';
import { recordsOf, type Page } from '../records/records.ts';
import type { RecordWrites, Upserted } from './record-writes.ts';
import { resourceNamed, resources } from '../model/registry.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Fields the server sets on this write (read-only to clients, so never taken from the body), such as who subscribed. */
    serverValues: Row | undefined;
  }
}

const ALL_METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const MAX_SELECT_MANY = 1000;

/** An id as a path gives it, or 0 when it cannot name a record. */
const idFrom = (text: string): number => parseRecordId(text) ?? 0;

export function recordId(request: FastifyRequest, resource: ResourceDeclaration): number {
  const text = (request.params as { id: string }).id;
  const id = idFrom(text);
  if (id < 1) throw new ApiError(404, `There is no ${resource.singular} with id ${text}`);
  return id;
}

const notFound = (resource: ResourceDeclaration, id: number | string) =>
  new ApiError(404, `There is no ${resource.singular} with id ${id}`);

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
  const path = `/${resource.path}/:id/${name}/:childId`;
  paths.push([path, ['PUT', 'DELETE']]);
  const handler = (linked: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const parentId = recordId(request, resource);
    const childText = (request.params as { childId: string }).childId;
    const childId = idFrom(childText);
    if (!(await recordExists(database.db, resource, parentId))) throw notFound(resource, parentId);
    const childRow = childId === 0 ? undefined : await recordsOf(database, child).get(childId);
    if (childRow === undefined) throw notFound(child, childText);
    if (!linked && !(await setLink(database.db, nested, parentId, childId, false))) {
      throw new ApiError(404, `${child.singular} ${childId} is not linked to ${resource.singular} ${parentId}`);
    }
    if (!linked) return reply.code(200).send();
    await setLink(database.db, nested, parentId, childId, true);
    return childRow;
  };
  app.put(path, { config }, handler(true));
  app.delete(path, { config }, handler(false));
}

/** `ids=1,5,9` of select_many: required, whole numbers, at most MAX_SELECT_MANY. */
function idsOf(query: RawQuery): number[] {
  const text = query.ids;
  if (typeof text !== 'string' || text.trim() === '')
    throw new ApiError(400, 'ids: this method requires one or more resource ids, as ids=1,5,9');
  const ids = text.split(',').map((part) => part.trim());
  const bad = ids.find((part) => idFrom(part) < 1);
  if (bad !== undefined) throw new ApiError(400, `ids: "${bad}" is not a record id`);
  if (ids.length > MAX_SELECT_MANY) throw new ApiError(400, `ids: at most ${MAX_SELECT_MANY} at once`);
  return [...new Set(ids.map(Number))];
}

/** Reads `fields` and `expand` of a single-record GET (page, count, sort and filters mean nothing there). */
function singleQuery(resource: ResourceDeclaration, request: FastifyRequest, positions: ListPositions): ListQuery {
  return parseListQuery(resource, request.query as RawQuery, expandOf(request), positions);
}

function pickFields(row: Row, query: ListQuery): Row {
  if (query.fields === undefined) return row;
  const keep = new Set([...query.fields, ...query.expand]);
  return Object.fromEntries(Object.entries(row).filter(([name]) => keep.has(name)));
}

/** A list page as the API answers it: the envelope, with the JSON the database wrote where it did. */
function sendPage(request: FastifyRequest, reply: FastifyReply, name: string, page: Page, query: ListQuery, positions: ListPositions) {
  if (query.page > 1 && query.after === undefined && page.rows.length === 0 && (page.texts?.length ?? 0) === 0)
    throw new ApiError(404, `Page ${query.page} is past the last page`);
  const after = page.nextAfter === undefined ? undefined : encodeAfter(page.nextAfter, page.total, positions, query);
  const position = { page: query.page, hasMore: page.hasMore, after };
  if (page.texts === undefined) return listEnvelope(request, name, page.rows, page.total, position);
  const { body, etag } = listEnvelopeBody(request, name, page.texts, page.total, position, page.textHashes);
  request.bodyEtag = etag;
  return reply.type('application/json; charset=utf-8').send(body);
}

/** 405, naming the methods a path allows, for every other method no other plugin serves there. */
function notAllowedElsewhere(app: FastifyInstance, paths: readonly [string, HTTPMethods[]][]): void {
  for (const [path, allowed] of paths) {
    if (allowed.length === 0) continue;
    // Methods other plugins serve on the same path (the carting routes under /carts/{id}/items) are theirs.
    const others = ALL_METHODS.filter((method) => !allowed.includes(method) && !app.hasRoute({ method, url: `${app.prefix}${path}` }));
    app.route({
      method: others,
      url: path,
      handler: (request) => {
        throw new ApiError(405, `${request.method} is not allowed here; use ${allowed.join(', ')}`, {
          allow: [...allowed, 'HEAD'].join(', '),
        });
      },
    });
  }
}

// The answers the routes send, as the write keeps them for an Idempotency-Key: shown as the caller is shown them (a
// resource with encrypted fields has them revealed or dropped); the JSON text of a record the database wrote is
// parsed again only there.
function answerTexts(request: FastifyRequest, carriesEncrypted: boolean) {
  const text = (row: Row | string): string =>
    !carriesEncrypted
      ? typeof row === 'string'
        ? row
        : JSON.stringify(row)
      : shownJson(request, typeof row === 'string' ? JSON.parse(row) : row);
  return {
    upsert: ({ created, row }: Upserted<Row | string>): AnswerText => ({ status: created ? 201 : 200, body: text(row) }),
    update: (row: Row | undefined): AnswerText | undefined => (row === undefined ? undefined : { status: 200, body: text(row) }),
  };
}

export function resourceRoutes(
  app: FastifyInstance,
  options: { database: StoreDatabase; authKey: Uint8Array; writes: RecordWrites },
): Promise<void> {
  const seal: CursorSeal = cursorSeal(options.authKey, 'list-position');
  const positionsOf = (list: string): ListPositions => ({ seal, list });
  const { writes } = options;
  app.decorateRequest('expanded', undefined);
  app.decorateRequest('serverValues', undefined);
  const encryptedNames = encryptedFields(resources).names;
  for (const resource of resources) {
    const can = new Set(resource.operations);
    const records = recordsOf(options.database, resource);
    const read: ResourceRouteConfig = { resource: resource.name, scope: resource.scope, access: 'read' };
    const write: ResourceRouteConfig = { ...read, access: 'write' };
    const keyedWrite: RouteConfig = { ...write, answerInWrite: true };
    const carriesEncrypted = Object.keys(resource.fields).some((name) => encryptedNames.has(name));
    const collection = `/${resource.path}`;
    const item = `${collection}/:id`;
    const collectionMethods: HTTPMethods[] = [];
    const itemMethods: HTTPMethods[] = [];

    const readOne = async (request: FastifyRequest) => {
      const id = recordId(request, resource);
      const query = singleQuery(resource, request, positionsOf(resource.name));
      const row = await records.get(id, query.expand);
      if (row === undefined) throw notFound(resource, id);
      return pickFields(row, query);
    };

    if (can.has('list')) {
      collectionMethods.push('GET');
      app.get(collection, { config: { ...read, lists: resource.name }, onSend: linkNextPage }, async (request, reply) => {
        const positions = positionsOf(resource.name);
        const query = parseListQuery(resource, request.query as RawQuery, expandOf(request), positions);
        return sendPage(request, reply, resource.name, await records.list(query), query, positions);
      });
      app.get(`${collection}/select_many`, { config: { ...read, lists: resource.name } }, async (request) => {
        const ids = idsOf(request.query as RawQuery);
        const query = singleQuery(resource, request, positionsOf(resource.name));
        const rows = await records.many(ids, query);
        return { total_count: rows.length, [resource.name]: rows };
      });
    }
    if (can.has('read')) {
      itemMethods.push('GET');
      app.get(item, { config: { ...read, lists: resource.name } }, readOne);
      app.get(`${item}/filled`, { config: { ...read, lists: resource.name, fillsAll: true } }, readOne);
    }
    if (can.has('create')) {
      collectionMethods.push('POST');
      app.post(collection, { config: keyedWrite, schema: { body: createSchema(resource) } }, async (request, reply) => {
        const kept = answerInWrite(request, answerTexts(request, carriesEncrypted).upsert);
        const { created, row } = await writes.upsertAnswer(resource, request.body as Row | null, request.serverValues ?? {}, kept?.step);
        const sent = kept?.send(reply);
        if (sent !== undefined) return sent;
        if (typeof row === 'string') return reply.code(201).type('application/json; charset=utf-8').send(row);
        return reply.code(created ? 201 : 200).send(row);
      });
    }
    if (can.has('update')) {
      itemMethods.push('PUT');
      app.put(item, { config: keyedWrite, schema: { body: updateSchema(resource) } }, async (request, reply) => {
        // A body the checks refuse is refused whatever the id; only then does an id naming no record answer 404.
        const text = (request.params as { id: string }).id;
        const id = idFrom(text);
        const kept = answerInWrite(request, answerTexts(request, carriesEncrypted).update);
        const row = await writes.update(resource, id, request.body as Row, request.serverValues ?? {}, kept?.step);
        if (row === undefined) throw notFound(resource, id < 1 ? text : id);
        return kept?.send(reply) ?? row;
      });
    }
    if (can.has('delete')) {
      itemMethods.push('DELETE');
      app.delete(item, { config: write }, async (request, reply) => {
        const text = (request.params as { id: string }).id;
        const id = idFrom(text);
        if (!(await writes.remove(resource, id))) throw notFound(resource, id < 1 ? text : id);
        return reply.code(200).send();
      });
    }

    const paths: [string, HTTPMethods[]][] = [
      [collection, collectionMethods],
      [item, itemMethods],
    ];
    if (can.has('list')) paths.push([`${collection}/select_many`, ['GET']]);
    if (can.has('read')) paths.push([`${item}/filled`, ['GET']]);

    for (const [name, nested] of can.has('read') ? Object.entries(resource.nested) : []) {
      const child = resourceNamed(nested.resource);
      const childRecords = recordsOf(options.database, child);
      const path = `${item}/${name}`;
      paths.push([path, ['GET']]);
      app.get(path, { config: { ...read, scope: child.scope, lists: child.name }, onSend: linkNextPage }, async (request, reply) => {
        const parentId = recordId(request, resource);
        if (!(await recordExists(options.database.db, resource, parentId))) throw notFound(resource, parentId);
        const positions = positionsOf(`${resource.name}/${parentId}/${name}`);
        const query = parseListQuery(child, request.query as RawQuery, expandOf(request), positions);
        return sendPage(request, reply, child.name, await childRecords.list(query, { nested, parentId }), query, positions);
      });
      if (nested.kind === 'link') linkRoutes(app, options.database, resource, name, nested, paths, write);
    }

    notAllowedElsewhere(app, paths);
  }
  return Promise.resolve();
}
