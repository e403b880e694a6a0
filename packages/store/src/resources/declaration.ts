// One resource is declared once; routes, JSON schemas, queries and the OpenAPI document come from it.

/** The scope pair that guards a resource: `read_<group>` for GET, `<group>` for writes. */
export type ScopeGroup = 'catalog' | 'orders' | 'people' | 'content' | 'marketing' | 'settings';

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'datetime';

export interface FieldDeclaration {
  readonly type: FieldType;
  /** Must be given on creation (and may never be null). */
  readonly required?: boolean;
  /** Set by the server only (id, timestamps). */
  readonly readOnly?: boolean;
  readonly maxLength?: number;
  readonly minimum?: number;
  /** Name of the resource this id points at; checked on every write. */
  readonly references?: string;
  readonly description?: string;
}

/** A collection reachable under one record: `/{resource}/{id}/{nested}`, and `expand=` on lists. */
export type NestedDeclaration =
  /** Rows of `resource` whose `foreignKey` holds the parent's id. */
  | { readonly kind: 'children'; readonly resource: string; readonly foreignKey: string }
  /** Rows of `resource` linked to the parent through a join table. */
  | { readonly kind: 'link'; readonly resource: string; readonly table: string; readonly parentKey: string; readonly childKey: string };

export interface ResourceDeclaration {
  /** Plural snake_case: the path segment, the table, and the list envelope's key. */
  readonly name: string;
  readonly singular: string;
  readonly scope: ScopeGroup;
  /** How long clients may keep a GET response of this resource. */
  readonly maxAgeSeconds: number;
  readonly fields: Readonly<Record<string, FieldDeclaration>>;
  readonly nested: Readonly<Record<string, NestedDeclaration>>;
}

const commonFields = {
  id: { type: 'integer', readOnly: true },
  created_at: { type: 'datetime', readOnly: true },
  updated_at: { type: 'datetime', readOnly: true },
} as const satisfies Record<string, FieldDeclaration>;

/** Adds the fields every record has (id, created_at, updated_at). */
export function defineResource(declaration: Omit<ResourceDeclaration, 'nested'> & { nested?: ResourceDeclaration['nested'] }): ResourceDeclaration {
  const { id, created_at, updated_at } = commonFields;
  return { ...declaration, nested: declaration.nested ?? {}, fields: { id, ...declaration.fields, created_at, updated_at } };
}

export function writableFields(resource: ResourceDeclaration): [string, FieldDeclaration][] {
  return Object.entries(resource.fields).filter(([, field]) => field.readOnly !== true);
}
