// The OpenAPI 3.1 document, generated from the same declarations and schemas the routes use.
import { idSchema } from '../http/record-id.ts';
import { oauthPaths } from '../auth/oauth-openapi.ts';
import { cartPaths } from '../carts/cart-openapi.ts';
import { bulkOperationSchema, bulkPaths } from '../bulk/bulk-openapi.ts';
import { DEFAULT_COUNT, MAX_COUNT, operators, operatorsFor } from '../model/query-language.ts';
import { visibleFields, type ResourceDeclaration } from '../model/declaration.ts';
import { createSchema, errorSchema, listSchema, recordSchema, updateSchema, type JsonSchema } from '../model/json-schema.ts';
import { resourceNamed, resources } from '../model/registry.ts';
import { NEWEST_API_VERSION } from '../model/api-versions.ts';
import { EVENT_LOG_COUNT } from '../model/event-types.ts';
import { idempotencyHeader } from '../idempotency/idempotency-header.ts';
import { rateLimitHeaderDocs } from '../limits/rate-limit-fields.ts';
import { sandboxPaths, sandboxTag } from '../sandbox/sandbox-openapi.ts';
import { documentPart } from './openapi-groups.ts';
import {
  versionHeaderDocs,
  versionParameter,
  versionsDescription,
  withFieldRemovals,
  withRemovals,
  withVersionHeader,
} from './openapi-versions.ts';

/** "a product", "an order": the article an English reader expects before a resource's singular. */
function named(singular: string): string {
  return `${/^[aeio]/.test(singular) ? 'an' : 'a'} ${singular}`;
}

function pascal(name: string): string {
  return name.replace(/(^|_)([a-z])/g, (_, __: string, c: string) => c.toUpperCase());
}

/**
 * The schema name of a resource's list page: `<Type>List`, unless that is another resource's record type
 * (`ProductList`, the record of /product_lists), where the page of products is `ProductPage` instead.
 */
function listName(resource: ResourceDeclaration): string {
  const name = `${pascal(resource.singular)}List`;
  return resources.some((other) => pascal(other.singular) === name) ? `${pascal(resource.singular)}Page` : name;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema) => ({ content: { 'application/json': { schema } } });
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [String(status), { description: 'Error', ...json(ref('Error')) }]));
const idParameter = (name: string, what: string) => ({
  name,
  in: 'path',
  required: true,
  description: `id of the ${what}`,
  schema: idSchema,
});

const listParameterNames = ['page', 'count', 'fields', 'expand', 'sort', 'after'];
const listParameters = listParameterNames.map((name) => ({ $ref: `#/components/parameters/${name}` }));

function filterDescription(resource: ResourceDeclaration): string {
  return `Filters: any field of ${resource.name} as \`field=op:value\`, op one of ${operators.join(', ')} (eq is the default); join conditions on one field with \`+AND+\` / \`+OR+\`; a leading \`OR+\` joins that field to the others with OR. Unknown parameters are ignored.`;
}

const filterExamples: Partial<Record<string, string>> = {
  string: 'startwith:abc',
  integer: 'gte:10+AND+lt:20',
  number: 'gt:5+AND+lte:25',
  datetime: 'gte:2024-01-01T00:00:00Z',
  boolean: 'eq:true',
  flag: 'eq:1',
};

/** One query parameter per field a list can be filtered by, naming the operators that field takes; keyed `resource.field`. */
function filterParameterComponents(resource: ResourceDeclaration): [string, Record<string, unknown>][] {
  return visibleFields(resource).flatMap(([name, field]) => {
    const ops = operatorsFor(field.type);
    if (ops.length === 0 || listParameterNames.includes(name)) return [];
    const parameter = {
      name,
      in: 'query',
      // The example goes in the text: Swagger UI would fill an `example` into the form, filtering every list by it.
      description: `Filter on ${name} (${field.type}): \`op:value\` with op one of ${ops.join(', ')} (a bare value means eq), e.g. \`${filterExamples[field.type] ?? 'eq:1'}\`; several joined by +AND+ or +OR+; a leading OR+ joins this field to the others with OR`,
      schema: { type: 'string' },
      'x-filter-operators': ops,
    };
    return [[`${resource.name}.${name}`, parameter] as [string, Record<string, unknown>]];
  });
}

/** The filters of a list of this resource (its own list, or a nested one), declared once in components. */
function filterParameters(resource: ResourceDeclaration): { $ref: string }[] {
  return filterParameterComponents(resource).map(([key]) => ({ $ref: `#/components/parameters/${key}` }));
}

function resourcePaths(resource: ResourceDeclaration): Record<string, unknown> {
  const type = pascal(resource.singular);
  const tags = [resource.name];
  const security = [{ token: [] }];
  const can = new Set(resource.operations);
  const scope = { 'x-scope-read': `read_${resource.scope}`, 'x-scope-write': resource.scope };
  const base = `/${resource.path}`;
  const record = { description: 'The record', ...json(ref(type)) };
  const page = { description: 'A page of records', ...json(ref(listName(resource))) };
  const collection: Record<string, unknown> = { ...scope };
  const item: Record<string, unknown> = { ...scope, parameters: [idParameter('id', resource.singular)] };
  const paths: Record<string, unknown> = {};
  if (can.has('list')) {
    collection.get = {
      tags,
      security,
      summary: `List ${resource.name}`,
      description: filterDescription(resource),
      parameters: [...listParameters, ...filterParameters(resource)],
      responses: { 200: page, ...errors(400, 401, 403, 404, 429) },
    };
    paths[`${base}/select_many`] = {
      ...scope,
      get: {
        tags,
        security,
        summary: `Several ${resource.name} by id`,
        parameters: [
          { name: 'ids', in: 'query', required: true, description: 'Comma-separated ids (400 without)', schema: { type: 'string' } },
          ...listParameters,
        ],
        responses: { 200: page, ...errors(400, 401, 403, 429) },
      },
    };
  }
  if (can.has('create')) {
    collection.post = {
      tags,
      security,
      summary: `Create ${named(resource.singular)}, or update the one whose id the body names`,
      description: 'Fields the resource does not have, and read-only ones, are ignored.',
      requestBody: { required: true, ...json(ref(`${type}Create`)) },
      responses: {
        200: { description: 'Updated (the body named an existing id)', ...json(ref(type)) },
        201: { description: 'Created', ...json(ref(type)) },
        ...errors(400, 401, 403, 409, 413, 415, 429),
      },
    };
  }
  if (can.has('read')) {
    item.get = {
      tags,
      security,
      summary: `Read ${named(resource.singular)}`,
      parameters: [{ $ref: '#/components/parameters/fields' }, { $ref: '#/components/parameters/expand' }],
      responses: { 200: record, ...errors(400, 401, 403, 404, 429) },
    };
    paths[`${base}/{id}/filled`] = {
      ...scope,
      parameters: [idParameter('id', resource.singular)],
      get: {
        tags,
        security,
        summary: `Read ${named(resource.singular)} with every nested collection`,
        responses: { 200: record, ...errors(400, 401, 403, 404, 429) },
      },
    };
  }
  if (can.has('update')) {
    item.put = {
      tags,
      security,
      summary: `Update ${named(resource.singular)} (only the fields sent)`,
      requestBody: { required: true, ...json(ref(`${type}Update`)) },
      responses: { 200: { description: 'The updated record', ...json(ref(type)) }, ...errors(400, 401, 403, 404, 409, 413, 415, 429) },
    };
  }
  if (can.has('delete'))
    item.delete = {
      tags,
      security,
      summary: `Delete ${named(resource.singular)}`,
      responses: { 200: { description: 'Deleted (empty body)' }, ...errors(400, 401, 403, 404, 409, 429) },
    };
  if (can.has('list') || can.has('create')) paths[base] = collection;
  if (can.has('read') || can.has('update') || can.has('delete')) paths[`${base}/{id}`] = item;
  for (const [name, nested] of can.has('read') ? Object.entries(resource.nested) : []) {
    const child = resourceNamed(nested.resource);
    paths[`${base}/{id}/${name}`] = {
      parameters: [idParameter('id', resource.singular)],
      get: {
        tags,
        security,
        summary: `List the ${name} of ${named(resource.singular)}`,
        description: filterDescription(child),
        parameters: [...listParameters, ...filterParameters(child)],
        responses: { 200: { description: 'A page of records', ...json(ref(listName(child))) }, ...errors(400, 401, 403, 404, 429) },
      },
    };
    if (nested.kind === 'link') {
      paths[`${base}/{id}/${name}/{childId}`] = {
        parameters: [idParameter('id', resource.singular), idParameter('childId', child.singular)],
        put: {
          tags,
          security,
          summary: `Link ${named(child.singular)} to ${named(resource.singular)}`,
          responses: {
            200: { description: `The linked ${child.singular}`, ...json(ref(pascal(child.singular))) },
            ...errors(400, 401, 403, 404, 429),
          },
        },
        delete: {
          tags,
          security,
          summary: `Unlink ${named(child.singular)} from ${named(resource.singular)}`,
          responses: { 200: { description: 'Unlinked (empty body)' }, ...errors(400, 401, 403, 404, 429) },
        },
      };
    }
  }
  return paths;
}

/** The routes that are not one resource's: bulk product import, inventory and the carting API (cart-openapi.ts). */
function operationPaths(): Record<string, unknown> {
  const security = [{ token: [] }];
  const any = { type: 'object' };
  const op = (tag: string, summary: string, ok: number, body?: JsonSchema) => ({
    tags: [tag],
    security,
    summary,
    ...(body === undefined ? {} : { requestBody: { required: true, ...json(body) } }),
    responses: { [ok]: { description: 'Done', ...json(any) }, ...errors(400, 401, 403, 404, 409, 429) },
  });
  return {
    '/products/importMany': {
      post: op('products', 'Create or update many products; each line answers its own status', 200, { type: 'array', items: any }),
    },
    '/inventory': {
      get: {
        ...op(
          'inventory',
          'Stock of one product or variant, named by one of product_id, variant_inventory_id, item_number, gtin, item_name',
          200,
        ),
        parameters: ['product_id', 'variant_inventory_id', 'item_number', 'gtin', 'item_name'].map((name) => ({
          name,
          in: 'query',
          schema: { type: 'string' },
        })),
      },
    },
    '/inventory/add': { post: op('inventory', 'Add quantity to the stock of the item named as in GET /inventory', 200, any) },
    '/inventory/remove': { post: op('inventory', 'Take quantity from the stock of the item named as in GET /inventory', 200, any) },
    '/inventory/set': { post: op('inventory', 'Set the stock of the item named as in GET /inventory to quantity', 200, any) },
    '/events': {
      get: {
        tags: ['events'],
        security,
        summary:
          'Our extension: the events webhooks carry, oldest first, kept 30 days by default; each listed only with the read scope of the records it carries',
        parameters: [
          {
            name: 'after',
            in: 'query',
            description:
              'opaque cursor: the `next` (or an event `id`) of an earlier answer, exactly as given; left out, the oldest event kept. One this server did not give out, or past the newest event, is a 400',
            schema: { type: 'string' },
          },
          {
            name: 'types',
            in: 'query',
            description: 'comma-separated event types, e.g. ProductCreated,OrderPlaced; left out, all',
            schema: { type: 'string' },
          },
          {
            name: 'count',
            in: 'query',
            description: `events per page (default ${EVENT_LOG_COUNT.default})`,
            schema: { type: 'integer', minimum: 1, maximum: EVENT_LOG_COUNT.max },
          },
        ],
        responses: {
          200: {
            description: 'Events after the cursor; `Link: <url>; rel="next"` carries the `next` cursor too',
            headers: { Link: { description: 'the next page, rel="next"', schema: { type: 'string' } } },
            ...json(ref('EventList')),
          },
          ...errors(400, 401, 429),
        },
      },
    },
    ...cartPaths(),
    ...bulkPaths(),
  };
}

const eventListSchema: JsonSchema = {
  type: 'object',
  required: ['events', 'next'],
  properties: {
    events: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'event_type', 'resource', 'record_id', 'created_at', 'data'],
        properties: {
          id: { type: 'string', description: 'the cursor of this event' },
          event_type: { type: 'string' },
          resource: { type: 'string' },
          record_id: { type: ['integer', 'null'] },
          created_at: { type: 'string', format: 'date-time' },
          data: { type: 'object', description: 'the body a webhook delivery of this event carries' },
        },
      },
    },
    next: { type: ['string', 'null'], description: 'pass as `after` to go on; the same cursor when nothing newer was there' },
  },
};

/** Every POST and PUT takes Idempotency-Key, and may answer 422 (the key was used for another request) or 409 (still running). */
function withIdempotencyKey(paths: Record<string, unknown>): Record<string, unknown> {
  for (const item of Object.values(paths) as Record<string, { parameters?: unknown[]; responses?: Record<string, unknown> }>[]) {
    for (const method of ['post', 'put']) {
      const operation = item[method];
      if (operation === undefined) continue;
      operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/idempotencyKey' }];
      operation.responses = { ...operation.responses, ...errors(409, 422) };
    }
  }
  return paths;
}

// Paths whose calls are not counted (a signed link is not an API call): their answers carry no limit fields.
const UNCOUNTED_PATHS = new Set(['/bulk_operations/{id}/result']);

const headerRef = (name: keyof typeof rateLimitHeaderDocs) => ({ $ref: `#/components/headers/${name}` });
const limitHeaders = {
  'X-AC-Call-Limit': headerRef('XAcCallLimit'),
  'RateLimit-Policy': headerRef('RateLimitPolicy'),
  RateLimit: headerRef('RateLimit'),
};

/** Every answer of a counted call carries the limit fields, and a 429 says when to retry. */
function withRateLimitHeaders(paths: Record<string, unknown>): Record<string, unknown> {
  for (const [path, item] of Object.entries(paths) as [
    string,
    Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>,
  ][]) {
    if (UNCOUNTED_PATHS.has(path)) continue;
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const responses = item[method]?.responses;
      if (responses === undefined) continue;
      for (const [status, response] of Object.entries(responses)) {
        responses[status] = {
          ...response,
          headers: { ...response.headers, ...limitHeaders, ...(status === '429' ? { 'Retry-After': headerRef('RetryAfter') } : {}) },
        };
      }
    }
  }
  return paths;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** `getProductsById`, `postCartsByIdPlaceOrder`: the name generated clients give an operation, from its method and path. */
function operationId(method: string, path: string): string {
  const words = [
    method,
    ...path
      .split('/')
      .filter((s) => s !== '')
      .map((s) => (s.startsWith('{') ? `by_${s.slice(1, -1)}` : s)),
  ];
  return words
    .flatMap((word) => word.split(/[_.-]/))
    .map((word, i) => (i === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join('');
}

/** Any request whose line and headers pass 16 KiB, or whose body passes the limit, is refused before a route reads it. */
function withHeaderLimit(paths: Record<string, unknown>): Record<string, unknown> {
  for (const item of Object.values(paths) as Record<string, { responses?: Record<string, unknown> } | undefined>[]) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation?.responses === undefined) continue;
      // A body over the limit (1 MiB by default) is refused before the route reads it.
      const tooLarge =
        (operation as { requestBody?: unknown }).requestBody === undefined || '413' in operation.responses
          ? {}
          : { 413: { $ref: '#/components/responses/BodyTooLarge' } };
      // Any query holding a NUL is refused too (http/no-nul-text.ts).
      const badRequest = '400' in operation.responses ? {} : { 400: { $ref: '#/components/responses/BadRequest' } };
      operation.responses = { ...badRequest, ...operation.responses, ...tooLarge, 431: { $ref: '#/components/responses/HeadersTooLarge' } };
    }
  }
  return paths;
}

function withOperationIds(paths: Record<string, unknown>): Record<string, unknown> {
  const seen = new Set<string>();
  for (const [path, item] of Object.entries(paths) as [string, Record<string, Record<string, unknown> | undefined>][]) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const id = operationId(method, path);
      if (seen.has(id)) throw new Error(`two operations would be named ${id}`);
      seen.add(id);
      item[method] = { operationId: id, ...operation };
    }
  }
  return paths;
}

/** Path items of several sources, their operations side by side (`/carts/{id}/items` has a nested GET and carting writes). */
function mergedPaths(sources: readonly Record<string, unknown>[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const source of sources)
    for (const [path, item] of Object.entries(source)) paths[path] = { ...paths[path], ...(item as Record<string, unknown>) };
  return paths;
}

export function openApiDocument(): Record<string, unknown> {
  const document = wholeDocument();
  // Only the components some operation reaches (no Create schema for a resource that cannot be created).
  return documentPart(document, { name: 'whole', tags: document.tags.map((t) => t.name) });
}

function wholeDocument(): Parameters<typeof documentPart>[0] {
  const schemas: Record<string, JsonSchema> = { Error: errorSchema, EventList: eventListSchema, BulkOperation: bulkOperationSchema };
  for (const resource of resources) {
    const type = pascal(resource.singular);
    schemas[type] = recordSchema(resource);
    schemas[`${type}Create`] = createSchema(resource);
    schemas[`${type}Update`] = updateSchema(resource);
    schemas[listName(resource)] = listSchema(resource);
  }
  withFieldRemovals(schemas, (name) => pascal(resourceNamed(name).singular));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Store API',
      version: NEWEST_API_VERSION,
      description: [
        'JSON over HTTPS. Names are snake_case, datetimes ISO 8601 UTC. `.json` after a path is optional.',
        '',
        '**Try it:** make a token in the [admin console](/admin) (Tools › Apps & Addons › API Apps & Integrations), press **Authorize** here and paste it as `X-AC-Auth-Token`, then **Try it out** on any operation.',
        '',
        `**Lists** carry \`total_count\` and, only when such a page exists, \`next_page\` / \`previous_page\` as absolute URLs. \`page\`, \`count\` (1-${MAX_COUNT}, default ${DEFAULT_COUNT}), \`fields\`, \`expand\` and \`sort=a,-b\` shape them; every field filters as \`field=op:value\` with op one of ${operators.map((o) => `\`${o}\``).join(', ')} (\`like\` and \`startwith\` on text only, ignoring case), e.g. \`price=gt:5+AND+lte:25\` or \`item_name=OR+startwith:a\`. AND binds tighter than OR.`,
        '',
        '**Errors** are `{status_code, message, details}`. **Rate limits** count calls per app in 10-second windows, by the store\'s plan; every answer carries `X-AC-Call-Limit: used/max` and the IETF fields `RateLimit-Policy: "default";q=max;w=10` and `RateLimit: "default";r=remaining;t=seconds`; pacing by `RateLimit` (waiting `t` seconds once `r` is 0) never meets a 429, which carries `Retry-After`.',
        '',
        `**Safe retries:** any POST or PUT may carry \`${idempotencyHeader.name}\` (1 to 255 visible ASCII characters, such as a UUID). ${idempotencyHeader.description}`,
        '',
        '**OAuth** (under `/api/oauth`, see the oauth part) gives tokens that expire, for apps acting for an admin.',
        '',
        versionsDescription,
      ].join('\n'),
    },
    servers: [{ url: '/api/v1' }],
    components: {
      securitySchemes: {
        token: {
          type: 'apiKey',
          in: 'header',
          name: 'X-AC-Auth-Token',
          description:
            'A non-expiring token from the admin console (or `store token create`), or an OAuth access token. `Authorization: Bearer` works too.',
        },
      },
      parameters: {
        ...Object.fromEntries(resources.flatMap(filterParameterComponents)),
        page: {
          name: 'page',
          in: 'query',
          description: 'Page number; a page past the end is 404',
          schema: { type: 'integer', minimum: 1, default: 1 },
        },
        count: {
          name: 'count',
          in: 'query',
          description: 'Records per page',
          schema: { type: 'integer', minimum: 1, maximum: MAX_COUNT, default: DEFAULT_COUNT },
        },
        fields: { name: 'fields', in: 'query', description: 'Comma-separated fields to return', schema: { type: 'string' } },
        expand: { name: 'expand', in: 'query', description: 'Comma-separated nested collections to inline', schema: { type: 'string' } },
        sort: {
          name: 'sort',
          in: 'query',
          description: 'Comma-separated fields; a leading - sorts descending; id breaks ties',
          schema: { type: 'string' },
        },
        apiVersion: versionParameter,
        idempotencyKey: {
          name: idempotencyHeader.name,
          in: 'header',
          required: false,
          description: idempotencyHeader.description,
          schema: { type: 'string', pattern: idempotencyHeader.pattern },
        },
        after: {
          name: 'after',
          in: 'query',
          description: 'Opaque position set by next_page when the sort fields are never null; follow next_page as given',
          schema: { type: 'string' },
        },
      },
      headers: { ...rateLimitHeaderDocs, ...versionHeaderDocs },
      responses: {
        BadRequest: {
          description: 'The request holds what the store cannot take (a NUL character in the query, say)',
          ...json(ref('Error')),
        },
        BodyTooLarge: {
          description: 'The body is larger than this store accepts (1 MiB unless its operator set another limit)',
          ...json(ref('Error')),
        },
        HeadersTooLarge: {
          description: 'The request line and headers pass 16 KiB (a query string that long, say); not counted against the limit',
          ...json(ref('Error')),
        },
      },
      schemas,
    },
    tags: [
      ...resources.map((r) => ({ name: r.name, description: `Scope group ${r.scope}: read_${r.scope} to read, ${r.scope} to write` })),
      { name: 'oauth', description: 'Tokens that expire, for apps acting for an admin of the store (under /api/oauth)' },
      {
        name: 'events',
        description:
          'Our extension: the event log to catch up from (GET /events), each event needing the read scope of the records it carries',
      },
      {
        name: 'bulk_operations',
        description:
          'Our extension: exports and imports run in the background; an export needs the read scope of its resource, an import the write scope',
      },
      sandboxTag,
    ],
    // OAuth (beside /api/v1) takes no Idempotency-Key.
    paths: withOperationIds(
      withRemovals(
        withHeaderLimit(
          withRateLimitHeaders(
            mergedPaths([
              withVersionHeader(withIdempotencyKey(mergedPaths([...resources.map(resourcePaths), operationPaths(), sandboxPaths()]))),
              oauthPaths(),
            ]),
          ),
        ),
      ),
    ) as Parameters<typeof documentPart>[0]['paths'],
  };
}
