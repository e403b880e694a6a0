// What the document says of versions: the newest date as info.version, the header in the description, and each
// operation a version removes marked deprecated, with its 410 and the Deprecation and Sunset fields it answers.
import {
  API_VERSION_HEADER,
  API_VERSIONS,
  FIELD_REMOVALS,
  NEWEST_API_VERSION,
  REMOVALS,
  type FieldRemoval,
  type Removal,
} from '../model/api-versions.ts';

export const versionsDescription = `**Versions** are dates. A request may name the one it was written for in \`${API_VERSION_HEADER}: YYYY-MM-DD\` (any date: the newest version dated on or before it serves it; none, the newest); every answer carries the version that served it. This document describes ${NEWEST_API_VERSION}; the versions are ${API_VERSIONS.map((v) => v.date).join(', ')}. An operation a newer version removes is still served to earlier versions with \`Deprecation\` and \`Sunset\` fields until its sunset, and is 410 otherwise.`;

const DATE_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';

export const versionParameter = {
  name: API_VERSION_HEADER,
  in: 'header',
  required: false,
  description: `The version the request was written for, a date: the newest version dated on or before it serves it; without it, the newest (${NEWEST_API_VERSION})`,
  schema: { type: 'string', pattern: DATE_PATTERN },
  example: NEWEST_API_VERSION,
};

export const versionHeaderDocs = {
  XAcApiVersion: {
    description: 'The version that served the request',
    schema: { type: 'string', pattern: DATE_PATTERN },
    example: NEWEST_API_VERSION,
  },
};

/** Every operation under /api/v1 takes the version header, and every answer may name the version (not a 431, sent before routing). */
export function withVersionHeader(paths: Record<string, unknown>): Record<string, unknown> {
  for (const item of Object.values(paths) as Record<string, Operation & { parameters?: unknown[] }>[])
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const operation = item[method];
      if (operation === undefined) continue;
      operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/apiVersion' }];
      for (const [status, response] of Object.entries(operation.responses ?? {}))
        if (status !== '431')
          (operation.responses ?? {})[status] = {
            ...response,
            headers: { ...response.headers, [API_VERSION_HEADER]: { $ref: '#/components/headers/XAcApiVersion' } },
          };
    }
  return paths;
}

const deprecationHeaders = {
  Deprecation: {
    description: 'RFC 9745: when the version that removes this operation took effect, as a structured-field Date (@seconds)',
    schema: { type: 'string', pattern: '^@-?[0-9]+$' },
  },
  Sunset: { description: 'RFC 8594: after this HTTP-date no version serves this operation', schema: { type: 'string' } },
};

type Response = { headers?: Record<string, unknown> } & Record<string, unknown>;
type Operation = { description?: string; responses?: Record<string, Response> } & Record<string, unknown>;

function markRemoved(operation: Operation, removal: Removal): Operation {
  const responses = Object.fromEntries(
    Object.entries(operation.responses ?? {}).map(([status, response]) => [
      status,
      status.startsWith('2') ? { ...response, headers: { ...response.headers, ...deprecationHeaders } } : response,
    ]),
  );
  return {
    ...operation,
    deprecated: true,
    description: `${operation.description === undefined ? '' : `${operation.description}\n\n`}Removed in version ${removal.removedIn}: served to requests naming an earlier version in ${API_VERSION_HEADER} until ${removal.sunset}; ${removal.instead}.`,
    'x-removed-in': removal.removedIn,
    'x-sunset': removal.sunset,
    responses: {
      ...responses,
      410: {
        description: 'Not in the version the request named, or past its sunset',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  };
}

/** The paths with every operation of `removals` marked; a removal naming no operation of the document is a mistake in the data. */
export function withRemovals(paths: Record<string, unknown>, removals: readonly Removal[] = REMOVALS): Record<string, unknown> {
  for (const removal of removals) {
    const item = paths[removal.path] as Record<string, Operation | undefined> | undefined;
    const method = removal.method.toLowerCase();
    const operation = item?.[method];
    if (item === undefined || operation === undefined)
      throw new Error(`REMOVALS names ${removal.method} ${removal.path}, which the document has not`);
    item[method] = markRemoved(operation, removal);
  }
  return paths;
}

/**
 * The record schemas with each field of `removals` marked deprecated (`schemaOf` names a resource's record schema);
 * a removal naming no property of the document is a mistake in the data.
 */
export function withFieldRemovals<T extends Record<string, unknown>>(
  schemas: T,
  schemaOf: (resource: string) => string,
  removals: readonly FieldRemoval[] = FIELD_REMOVALS,
): T {
  for (const removal of removals) {
    const properties = (schemas[schemaOf(removal.resource)] as { properties?: Record<string, Record<string, unknown>> } | undefined)
      ?.properties;
    const property = properties?.[removal.field];
    if (properties === undefined || property === undefined)
      throw new Error(`FIELD_REMOVALS names ${removal.resource}.${removal.field}, which the document has not`);
    properties[removal.field] = {
      ...property,
      deprecated: true,
      description: `${typeof property.description === 'string' ? `${property.description}\n\n` : ''}Removed in version ${removal.removedIn}: answered to requests naming an earlier version in ${API_VERSION_HEADER} until ${removal.sunset}, with Deprecation and Sunset.`,
      'x-removed-in': removal.removedIn,
      'x-sunset': removal.sunset,
    };
  }
  return schemas;
}
