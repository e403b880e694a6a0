// JSON Schemas of a declared resource: what a record looks like, and what create and update accept.
import type { FieldDeclaration, ResourceDeclaration } from './declaration.ts';
import { writableFields } from './declaration.ts';
import { resourceNamed } from './registry.ts';

export type JsonSchema = Record<string, unknown>;

const jsonTypes = { string: 'string', integer: 'integer', number: 'number', boolean: 'boolean', datetime: 'string' } as const;

export function fieldSchema(field: FieldDeclaration, nullable: boolean): JsonSchema {
  const schema: JsonSchema = { type: nullable ? [jsonTypes[field.type], 'null'] : jsonTypes[field.type] };
  if (field.type === 'datetime') schema.format = 'date-time';
  if (field.maxLength !== undefined) schema.maxLength = field.maxLength;
  if (field.required === true && field.type === 'string') schema.minLength = 1;
  if (field.minimum !== undefined) schema.minimum = field.minimum;
  if (field.references !== undefined) schema.description = `id of a ${resourceNamed(field.references).singular}`;
  if (field.readOnly === true) schema.readOnly = true;
  if (field.description !== undefined) schema.description = field.description;
  return schema;
}

/** A record as the API returns it; `withNested` adds the collections `expand=` can inline. */
export function recordSchema(resource: ResourceDeclaration, withNested = true): JsonSchema {
  const properties: Record<string, JsonSchema> = Object.fromEntries(
    Object.entries(resource.fields).map(([name, field]) => [name, fieldSchema(field, name !== 'id' && field.readOnly !== true && field.required !== true)]),
  );
  if (withNested) {
    for (const [name, nested] of Object.entries(resource.nested)) {
      properties[name] = { type: 'array', items: recordSchema(resourceNamed(nested.resource), false) };
    }
  }
  return { type: 'object', properties };
}

export function createSchema(resource: ResourceDeclaration): JsonSchema {
  const writable = writableFields(resource);
  return {
    type: 'object',
    properties: Object.fromEntries(writable.map(([name, field]) => [name, fieldSchema(field, field.required !== true)])),
    required: writable.filter(([, field]) => field.required === true).map(([name]) => name),
    additionalProperties: false,
  };
}

export function updateSchema(resource: ResourceDeclaration): JsonSchema {
  return { ...createSchema(resource), required: [] };
}

export function listSchema(resource: ResourceDeclaration): JsonSchema {
  return {
    type: 'object',
    properties: {
      total_count: { type: 'integer' },
      next_page: { type: 'string', format: 'uri' },
      previous_page: { type: 'string', format: 'uri' },
      [resource.name]: { type: 'array', items: recordSchema(resource) },
    },
    required: ['total_count', resource.name],
  };
}

export const errorSchema: JsonSchema = {
  type: 'object',
  properties: { status_code: { type: 'integer' }, message: { type: 'string' }, details: { type: 'string' } },
  required: ['status_code', 'message', 'details'],
};
