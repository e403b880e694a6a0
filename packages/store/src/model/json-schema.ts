// JSON Schemas of a declared resource: what a record looks like, and what create and update accept.
import {
  columnRanges,
  perResource,
  visibleFields,
  writableFields,
  type FieldDeclaration,
  type ResourceDeclaration,
} from './declaration.ts';
import { resourceNamed } from './registry.ts';

export type JsonSchema = Record<string, unknown>;

function withNull(schema: JsonSchema, nullable: boolean): JsonSchema {
  if (!nullable) return schema;
  const type = schema.type;
  return type === undefined ? schema : { ...schema, type: [...(Array.isArray(type) ? (type as string[]) : [type as string]), 'null'] };
}

function described(schema: JsonSchema, field: FieldDeclaration): JsonSchema {
  if (field.references !== undefined) schema.description = `id of a ${resourceNamed(field.references).singular}`;
  if (field.description !== undefined) schema.description = field.description;
  return schema;
}

/** A field as the API answers it. */
export function outputFieldSchema(field: FieldDeclaration, nullable: boolean): JsonSchema {
  const base: Record<typeof field.type, JsonSchema> = {
    string: { type: 'string' },
    datetime: { type: 'string', format: 'date-time' },
    integer: { type: 'integer' },
    number: { type: 'number' },
    boolean: { type: 'boolean' },
    flag: { type: 'integer', enum: [0, 1] },
    // Any JSON: serialised as given.
    json: {},
  };
  const schema = withNull({ ...base[field.type] }, nullable && field.type !== 'boolean' && field.type !== 'flag');
  if (field.readOnly === true) schema.readOnly = true;
  return described(schema, field);
}

/**
 * A field as create and update accept it. Numbers are accepted for text fields (the platform's clients send
 * `provider_base_shipping_cost` as a number) and kept as their text; yes/no fields are never null.
 */
function inputFieldSchema(field: FieldDeclaration): JsonSchema {
  const base: Record<typeof field.type, JsonSchema> = {
    string: { type: ['string', 'number'] },
    datetime: { type: 'string', format: 'date-time' },
    integer: { type: 'integer' },
    number: { type: 'number' },
    boolean: { type: 'boolean' },
    flag: { type: ['boolean', 'integer'], minimum: 0, maximum: 1 },
    json: { type: ['array', 'object'], items: {} },
  };
  const nullable = field.required !== true && field.type !== 'boolean' && field.type !== 'flag';
  const schema: JsonSchema = { ...base[field.type] };
  if (field.maxLength !== undefined) schema.maxLength = field.maxLength;
  if (field.enum !== undefined) schema.enum = nullable ? [...field.enum, null] : field.enum;
  if (field.required === true && field.type === 'string') schema.minLength = 1;
  if (field.type === 'integer' || field.type === 'number') {
    // What the columns hold on every database.
    const range = columnRanges[field.type];
    schema.minimum = Math.max(field.minimum ?? range.minimum, range.minimum);
    schema.maximum = range.maximum;
  } else if (field.minimum !== undefined) schema.minimum = field.minimum;
  // PostgreSQL text cannot hold U+0000.
  if (field.type === 'string') schema.pattern = '^[^\\u0000]*$';
  return described(withNull(schema, nullable), field);
}

const ALWAYS_SET = new Set(['id', 'created_at', 'updated_at']);

/** A record as the API returns it; `withNested` adds the collections `expand=` can inline. */
export function recordSchema(resource: ResourceDeclaration, withNested = true): JsonSchema {
  const properties: Record<string, JsonSchema> = Object.fromEntries(
    // Read-only is no promise of a value (a cart's totals wait for its first pricing); the id and the stamps always have one.
    visibleFields(resource).map(([name, field]) => [name, outputFieldSchema(field, !ALWAYS_SET.has(name) && field.required !== true)]),
  );
  if (withNested) {
    for (const [name, nested] of Object.entries(resource.nested)) {
      properties[name] = { type: 'array', items: recordSchema(resourceNamed(nested.resource), false) };
    }
  }
  return { type: 'object', properties };
}

export const requiredFields: (resource: ResourceDeclaration) => readonly string[] = perResource((resource) =>
  writableFields(resource)
    .filter(([, field]) => field.required === true)
    .map(([name]) => name),
);

/**
 * POST creates, or updates when `id` names an existing record (so required fields apply only without an id).
 * Fields the resource does not have are ignored, as the platform's clients expect; read-only ones too.
 */
export function createSchema(resource: ResourceDeclaration): JsonSchema {
  const required = requiredFields(resource);
  return {
    type: ['object', 'null'],
    properties: {
      id: { type: ['integer', 'null'], ...columnRanges.integer },
      ...Object.fromEntries(writableFields(resource).map(([name, field]) => [name, inputFieldSchema(field)])),
    },
    ...(required.length === 0 ? {} : { if: { not: { required: ['id'] } }, then: { required } }),
  };
}

export function updateSchema(resource: ResourceDeclaration): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(writableFields(resource).map(([name, field]) => [name, inputFieldSchema(field)])),
  };
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
