// One resource is declared once; routes, JSON schemas, queries, migrations and the OpenAPI document come from it.
// Declarations are data (`declarations/*.ts`): each field is one short text, read here into a FieldDeclaration.

/** The scope pair that guards a resource: `read_<group>` for GET, `<group>` for writes. */
export type ScopeGroup = 'catalog' | 'orders' | 'people' | 'content' | 'marketing' | 'webhooks' | 'settings';

/**
 * `flag`: a yes/no the platform writes as 0 or 1 (`is_hidden` of products); true/false are accepted too, 0/1 answered.
 * `json`: an array or object kept as JSON text (`variants` of an order item).
 */
export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'flag' | 'datetime' | 'json';

/**
 * What each type's column holds on all three databases: integer is a 32-bit INT, number a decimal(14, 4),
 * datetime ISO 8601 UTC text of years 0000 to 9999. Anything beyond is refused, never stored approximately.
 */
export const columnRanges = {
  integer: { minimum: -2147483648, maximum: 2147483647 },
  number: { minimum: -9999999999.9999, maximum: 9999999999.9999 },
} as const;

/** A declared field of this resource, never one inherited from Object.prototype (`constructor`, `__proto__`). */
export function fieldOf(resource: ResourceDeclaration, name: string): FieldDeclaration | undefined {
  return Object.hasOwn(resource.fields, name) ? resource.fields[name] : undefined;
}

/** A declared nested collection of this resource, never an inherited name. */
export function nestedOf(resource: ResourceDeclaration, name: string): NestedDeclaration | undefined {
  return Object.hasOwn(resource.nested, name) ? resource.nested[name] : undefined;
}

export interface FieldDeclaration {
  readonly type: FieldType;
  /** Must be given on creation (and may never be null). */
  readonly required?: boolean;
  /** Set by the server only (id, timestamps). */
  readonly readOnly?: boolean;
  /** Stored but never part of the API (state a route keeps for itself). */
  readonly hidden?: boolean;
  readonly maxLength?: number;
  /** The only values a string field takes. */
  readonly enum?: readonly string[];
  readonly minimum?: number;
  /** Name of the resource this id points at; checked on every write (0 means none, as on the platform). */
  readonly references?: string;
  readonly description?: string;
  /** Kept encrypted at rest; answered only to OAuth tokens granted `decrypt` (never to non-expiring tokens). */
  readonly encrypted?: boolean;
}

/** A collection reachable under one record: `/{resource}/{id}/{nested}`, and `expand=` on lists. */
export type NestedDeclaration =
  /** Rows of `resource` whose `foreignKey` holds the parent's id. */
  | { readonly kind: 'children'; readonly resource: string; readonly foreignKey: string }
  /** Rows of `resource` linked to the parent through a join table. */
  | { readonly kind: 'link'; readonly resource: string; readonly table: string; readonly parentKey: string; readonly childKey: string };

export const children = (resource: string, foreignKey: string): NestedDeclaration => ({ kind: 'children', resource, foreignKey });
export const link = (resource: string, table: string, parentKey: string, childKey: string): NestedDeclaration => ({
  kind: 'link',
  resource,
  table,
  parentKey,
  childKey,
});

/** What the platform lets clients do with a resource (`/stores` is read-only, for one). */
export type Operation = 'list' | 'read' | 'create' | 'update' | 'delete';
const allOperations: readonly Operation[] = ['list', 'read', 'create', 'update', 'delete'];

export interface ResourceDeclaration {
  /** Plural snake_case: the path segment and the list envelope's key. */
  readonly name: string;
  readonly singular: string;
  /** Where its routes are, under /api/v1 (the name, unless the platform put it elsewhere). */
  readonly path: string;
  /** The table; several declarations may share one (`product_nested_variant` is a view of `product_variants`). */
  readonly table: string;
  readonly scope: ScopeGroup;
  readonly operations: readonly Operation[];
  /** How long clients may keep a GET response of this resource. */
  readonly maxAgeSeconds: number;
  readonly fields: Readonly<Record<string, FieldDeclaration>>;
  readonly nested: Readonly<Record<string, NestedDeclaration>>;
  readonly closedWith?: ClosedWith;
}

/**
 * A record that belongs to a parent which closes for good (a cart line to a cart that became an order): its writes
 * check, inside their own transaction and holding the parent's row lock, that the parent's `closedBy` is still unset.
 */
export interface ClosedWith {
  /** The field referring to the parent (declared with `-> resource`). */
  readonly field: string;
  /** The parent's column that, once set, closes it. */
  readonly closedBy: string;
}

/**
 * A resource as written in `declarations/`. A field is `type[(maxLength)] [required] [encrypted] [hidden] [-> resource]`,
 * e.g. `'string(255) required'` or `'integer -> customers'`.
 */
export interface ResourceSource {
  readonly name: string;
  readonly singular: string;
  readonly path?: string;
  readonly table?: string;
  readonly scope: ScopeGroup;
  readonly methods?: readonly Operation[];
  readonly maxAgeSeconds?: number;
  /** Each field as its short text, or as a FieldDeclaration when it needs more (an enum, a description). */
  readonly fields: Readonly<Record<string, string | FieldDeclaration>>;
  readonly nested?: Readonly<Record<string, NestedDeclaration>>;
  readonly closedWith?: ClosedWith;
}

const defaultMaxAge: Record<ScopeGroup, number> = {
  catalog: 60,
  orders: 30,
  people: 60,
  content: 300,
  marketing: 120,
  webhooks: 0,
  settings: 300,
};
const fieldTypes: readonly FieldType[] = ['string', 'integer', 'number', 'boolean', 'flag', 'datetime', 'json'];
const FIELD_TEXT = /^(\w+)(?:\((\d+)\))?((?: (?:required|encrypted|hidden))*)(?: -> (\w+))?$/;

export function parseField(text: string): FieldDeclaration {
  const match = FIELD_TEXT.exec(text);
  const type = match?.[1] as FieldType | undefined;
  if (match === null || type === undefined || !fieldTypes.includes(type)) throw new Error(`"${text}" is not a field declaration`);
  const flags = new Set((match[3] ?? '').trim().split(' '));
  return {
    type,
    ...(match[2] === undefined ? {} : { maxLength: Number(match[2]) }),
    ...(flags.has('required') ? { required: true } : {}),
    ...(flags.has('encrypted') ? { encrypted: true } : {}),
    ...(flags.has('hidden') ? { hidden: true } : {}),
    ...(match[4] === undefined ? {} : { references: match[4] }),
  };
}

const commonFields = {
  id: { type: 'integer', readOnly: true },
  created_at: { type: 'datetime', readOnly: true },
  updated_at: { type: 'datetime', readOnly: true },
} as const satisfies Record<string, FieldDeclaration>;

/**
 * Money the platform never means as negative: prices, costs, charges, totals and balances, in whatever resource holds
 * them (a product at -50 would pay its buyers). Adjustments, markups and modifiers stay signed: a variant or a rate
 * may be cheaper than its base.
 */
export const UNSIGNED_MONEY: ReadonlySet<string> = new Set([
  'price',
  'cost',
  'retail',
  'specific_base_price',
  'handling_fee',
  'insurance_cost',
  'shipping_override',
  'credit_limit',
  'subtotal',
  'tax_total',
  'shipping_total',
  'handling_total',
  'discount_total',
  'grand_total',
  'cost_total',
  'discounted_shipping_total',
  'additional_fees',
  'gift_certificate_discount',
  'non_shipping_discount',
  'delivery_tax',
  'tax',
  'tax_rate',
  'discount_amount',
  'discount_percentage',
  'original_amount',
  'current_amount',
  'manufacturer_invoice_amount',
  'provider_total_shipping_cost',
  'provider_other_charges',
  'provider_insurance_cost',
  'provider_handling_cost',
]);

/** Reads a written declaration, adding the fields every record has (id, created_at, updated_at). */
export function defineResource(source: ResourceSource): ResourceDeclaration {
  const { id, created_at, updated_at } = commonFields;
  const fields = Object.fromEntries(
    Object.entries(source.fields).map(([name, text]) => {
      const field = typeof text === 'string' ? parseField(text) : text;
      return [name, field.type === 'number' && field.minimum === undefined && UNSIGNED_MONEY.has(name) ? { ...field, minimum: 0 } : field];
    }),
  );
  return {
    name: source.name,
    singular: source.singular,
    path: source.path ?? source.name,
    table: source.table ?? source.name,
    scope: source.scope,
    operations: source.methods ?? allOperations,
    maxAgeSeconds: source.maxAgeSeconds ?? defaultMaxAge[source.scope],
    nested: source.nested ?? {},
    fields: { id, ...fields, created_at, updated_at },
    ...(source.closedWith === undefined ? {} : { closedWith: source.closedWith }),
  };
}

/**
 * A fact about a declaration, worked out on first use and kept: declarations never change, and writes read
 * these lists on every request (a product has over 140 fields).
 */
export function perResource<T>(compute: (resource: ResourceDeclaration) => T): (resource: ResourceDeclaration) => T {
  const known = new WeakMap<ResourceDeclaration, T>();
  return (resource) => {
    if (known.has(resource)) return known.get(resource) as T;
    const value = compute(resource);
    known.set(resource, value);
    return value;
  };
}

/** Fields a client may send. */
export const writableFields: (resource: ResourceDeclaration) => readonly (readonly [string, FieldDeclaration])[] = perResource((resource) =>
  Object.entries(resource.fields).filter(([, field]) => field.readOnly !== true && field.hidden !== true),
);

/** Fields the API answers with. */
export const visibleFields: (resource: ResourceDeclaration) => readonly (readonly [string, FieldDeclaration])[] = perResource((resource) =>
  Object.entries(resource.fields).filter(([, field]) => field.hidden !== true),
);

/** The columns a record is read from (a table may hold more that the database derives, as products' kept JSON). */
export const columnsOf: (resource: ResourceDeclaration) => string[] = perResource((resource) => Object.keys(resource.fields));
