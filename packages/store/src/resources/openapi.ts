// The OpenAPI 3.1 document, generated from the same declarations and schemas the routes use.
import { DEFAULT_COUNT, MAX_COUNT, operators } from '../http/query-language.ts';
import type { ResourceDeclaration } from './declaration.ts';
import { createSchema, errorSchema, listSchema, recordSchema, updateSchema, type JsonSchema } from './json-schema.ts';
import { resourceNamed, resources } from './registry.ts';

function pascal(name: string): string {
  return name.replace(/(^|_)([a-z])/g, (_, __: string, c: string) => c.toUpperCase());
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema) => ({ content: { 'application/json': { schema } } });
const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [String(status), { description: 'Error', ...json(ref('Error')) }]));
const idParameter = (name: string, what: string) => ({ name, in: 'path', required: true, description: `id of the ${what}`, schema: { type: 'integer', minimum: 1 } });

const listParameters = ['page', 'count', 'fields', 'expand', 'sort', 'after'].map((name) => ({ $ref: `#/components/parameters/${name}` }));

function filterDescription(resource: ResourceDeclaration): string {
  return `Filters: any field of ${resource.name} as \`field=op:value\`, op one of ${operators.join(', ')} (eq is the default); join conditions on one field with \`+AND+\` / \`+OR+\`; a leading \`OR+\` joins that field to the others with OR. Unknown parameters are ignored.`;
}

function resourcePaths(resource: ResourceDeclaration): Record<string, unknown> {
  const type = pascal(resource.singular);
  const tags = [resource.name];
  const security = [{ token: [] }];
  const scope = { 'x-scope-read': `read_${resource.scope}`, 'x-scope-write': resource.scope };
  const paths: Record<string, unknown> = {
    [`/${resource.name}`]: {
      ...scope,
      get: { tags, security, summary: `List ${resource.name}`, description: filterDescription(resource), parameters: listParameters, responses: { 200: { description: 'A page of records', ...json(ref(`${type}List`)) }, ...errors(400, 401, 403, 404, 429) } },
      post: { tags, security, summary: `Create a ${resource.singular}`, requestBody: { required: true, ...json(ref(`${type}Create`)) }, responses: { 201: { description: 'Created', ...json(ref(type)) }, ...errors(400, 401, 403, 409, 413, 415, 429) } },
    },
    [`/${resource.name}/{id}`]: {
      ...scope,
      parameters: [idParameter('id', resource.singular)],
      get: { tags, security, summary: `Read a ${resource.singular}`, responses: { 200: { description: 'The record', ...json(ref(type)) }, ...errors(401, 403, 404, 429) } },
      put: { tags, security, summary: `Update a ${resource.singular} (only the fields sent)`, requestBody: { required: true, ...json(ref(`${type}Update`)) }, responses: { 200: { description: 'The updated record', ...json(ref(type)) }, ...errors(400, 401, 403, 404, 409, 413, 415, 429) } },
      delete: { tags, security, summary: `Delete a ${resource.singular}`, responses: { 200: { description: 'Deleted (empty body)' }, ...errors(401, 403, 404, 409, 429) } },
    },
  };
  for (const [name, nested] of Object.entries(resource.nested)) {
    const child = resourceNamed(nested.resource);
    paths[`/${resource.name}/{id}/${name}`] = {
      parameters: [idParameter('id', resource.singular)],
      get: { tags, security, summary: `List the ${name} of a ${resource.singular}`, parameters: listParameters, responses: { 200: { description: 'A page of records', ...json(ref(`${pascal(child.singular)}List`)) }, ...errors(400, 401, 403, 404, 429) } },
    };
    if (nested.kind === 'link') {
      paths[`/${resource.name}/{id}/${name}/{childId}`] = {
        parameters: [idParameter('id', resource.singular), idParameter('childId', child.singular)],
        put: { tags, security, summary: `Link a ${child.singular} to a ${resource.singular}`, responses: { 200: { description: `The linked ${child.singular}`, ...json(ref(pascal(child.singular))) }, ...errors(401, 403, 404, 429) } },
        delete: { tags, security, summary: `Unlink a ${child.singular} from a ${resource.singular}`, responses: { 200: { description: 'Unlinked (empty body)' }, ...errors(401, 403, 404, 429) } },
      };
    }
  }
  return paths;
}

export function openApiDocument(): Record<string, unknown> {
  const schemas: Record<string, JsonSchema> = { Error: errorSchema };
  for (const resource of resources) {
    const type = pascal(resource.singular);
    schemas[type] = recordSchema(resource);
    schemas[`${type}Create`] = createSchema(resource);
    schemas[`${type}Update`] = updateSchema(resource);
    schemas[`${type}List`] = listSchema(resource);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Store API',
      version: '1',
      description:
        'JSON over HTTPS. Names are snake_case, datetimes ISO 8601 UTC. `.json` after a path is optional. Lists carry `total_count` and, only when such a page exists, `next_page` / `previous_page` as absolute URLs. Every error is `{status_code, message, details}`.',
    },
    servers: [{ url: '/api/v1' }],
    components: {
      securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'X-AC-Auth-Token' } },
      parameters: {
        page: { name: 'page', in: 'query', description: 'Page number; a page past the end is 404', schema: { type: 'integer', minimum: 1, default: 1 } },
        count: { name: 'count', in: 'query', description: 'Records per page', schema: { type: 'integer', minimum: 1, maximum: MAX_COUNT, default: DEFAULT_COUNT } },
        fields: { name: 'fields', in: 'query', description: 'Comma-separated fields to return', schema: { type: 'string' } },
        expand: { name: 'expand', in: 'query', description: 'Comma-separated nested collections to inline', schema: { type: 'string' } },
        sort: { name: 'sort', in: 'query', description: 'Comma-separated fields; a leading - sorts descending; id breaks ties', schema: { type: 'string' } },
        after: { name: 'after', in: 'query', description: 'Opaque position set by next_page when the sort fields are never null; follow next_page as given', schema: { type: 'string' } },
      },
      schemas,
    },
    tags: resources.map((r) => ({ name: r.name, description: `Scope group ${r.scope}: read_${r.scope} to read, ${r.scope} to write` })),
    paths: Object.assign({}, ...resources.map(resourcePaths)) as Record<string, unknown>,
  };
}
