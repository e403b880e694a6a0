// The platform's /inventory (docs/resources/inventory.md): not a table but a view of stock, per product or
// per variant inventory row. GET finds one item by one identifier; POST /inventory/add, /remove and /set
// change its quantity in stock (a product's quantity_on_hand, a variant's inventory). The declaration
// (declarations/catalog.ts) gives the record's fields; nothing is stored under its own name.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { ApiError } from '../model/api-error.ts';
import { idSchema, parseRecordId } from '../http/record-id.ts';
import type { Row, StoreDatabase } from '../db/schema.ts';
import { columnRanges } from '../model/declaration.ts';
import { recordsOf } from '../records/records.ts';
import { resourceNamed } from '../model/registry.ts';
import type { ResourceRouteConfig, RouteConfig } from '../model/route-config.ts';
import { answerInWrite, shownJson } from '../http/answer-in-write.ts';
import type { WriteSteps } from '../db/group-commit.ts';

/** The identifiers the platform takes, in the order they are tried when several are given. */
const IDENTIFIERS = ['variant_inventory_id', 'product_id', 'item_number', 'gtin', 'item_name'] as const;
type Identifier = (typeof IDENTIFIERS)[number];

function* nothing(): WriteSteps<void> {}

export interface InventoryItem {
  product_id: number;
  variant_inventory_id: number | null;
  item_number: string | null;
  item_name: string | null;
  gtin: string | null;
  quantity: number;
}

/** Where an item's quantity lives: a product's row, or a variant inventory row. */
type Stock = { kind: 'product'; id: number } | { kind: 'variant'; id: number };

const CHANGES = {
  add: (current: number, quantity: number) => current + quantity,
  remove: (current: number, quantity: number) => current - quantity,
  set: (_current: number, quantity: number) => quantity,
};

const changeBody = {
  type: 'object',
  required: ['quantity'],
  properties: {
    product_id: idSchema,
    variant_inventory_id: idSchema,
    item_number: { type: 'string', minLength: 1 },
    gtin: { type: 'string', minLength: 1 },
    item_name: { type: 'string', minLength: 1 },
    quantity: { type: 'integer', minimum: 0, maximum: columnRanges.integer.maximum },
  },
};

function identifierOf(values: Record<string, unknown>): { name: Identifier; value: string | number } {
  for (const name of IDENTIFIERS) {
    const value = values[name];
    if (typeof value === 'number' || (typeof value === 'string' && value !== '')) return { name, value };
  }
  throw new ApiError(400, `name the item by one of ${IDENTIFIERS.join(', ')}`);
}

/** An id from the query string: whole, positive and within an INT column, or 400. */
function idOf(name: string, value: string | number): number {
  const id = parseRecordId(value);
  if (id === undefined) throw new ApiError(400, `${name}: "${value}" is not a record id`);
  return id;
}

export function inventoryRoutes(app: FastifyInstance, options: { database: StoreDatabase }): Promise<void> {
  const { db } = options.database;
  const products = recordsOf(options.database, resourceNamed('products'));
  const variants = recordsOf(options.database, resourceNamed('variant_inventory'));
  // Reads depend on products and variant rows, so their writes drop cached answers; writes change both.
  const read: ResourceRouteConfig = { resource: 'inventory', scope: 'catalog', access: 'read', reads: ['products', 'variant_inventory'] };
  const write: ResourceRouteConfig = { ...read, access: 'write', touches: ['products', 'variant_inventory'] };
  const keyed: RouteConfig = { ...write, answerInWrite: true };

  /** The lowest id among products, then among variant rows, that the identifier names. */
  async function find(name: Identifier, value: string | number): Promise<Stock | undefined> {
    if (name === 'variant_inventory_id') {
      const row = await db.selectFrom('variant_inventory').select('id').where('id', '=', idOf(name, value)).executeTakeFirst();
      return row === undefined ? undefined : { kind: 'variant', id: row.id as number };
    }
    const productColumn = name === 'product_id' ? 'id' : name;
    const productValue = name === 'product_id' ? idOf(name, value) : String(value);
    const product = await db
      .selectFrom('products')
      .select('id')
      .where(productColumn, '=', productValue)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (product !== undefined) return { kind: 'product', id: product.id as number };
    // Variants have their own item numbers and GTINs; their name is their product's.
    if (name !== 'item_number' && name !== 'gtin') return undefined;
    const variant = await db
      .selectFrom('variant_inventory')
      .select('id')
      .where(name, '=', String(value))
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return variant === undefined ? undefined : { kind: 'variant', id: variant.id as number };
  }

  /** The statement that reads an item's stock, and the item made of its row. */
  function itemQuery(stock: Stock) {
    if (stock.kind === 'product')
      return db.selectFrom('products').select(['id', 'item_number', 'item_name', 'gtin', 'quantity_on_hand']).where('id', '=', stock.id);
    return db
      .selectFrom('variant_inventory')
      .innerJoin('products', 'products.id', 'variant_inventory.product_id')
      .select([
        'products.id',
        'variant_inventory.item_number',
        'products.item_name',
        'variant_inventory.gtin',
        'variant_inventory.inventory',
      ])
      .where('variant_inventory.id', '=', stock.id);
  }
  const itemFrom = (stock: Stock, row: Row | undefined): InventoryItem | undefined =>
    row === undefined ? undefined : stock.kind === 'product' ? item(row, null, row.quantity_on_hand) : item(row, stock.id, row.inventory);

  async function itemOf(stock: Stock): Promise<InventoryItem | undefined> {
    return itemFrom(stock, await itemQuery(stock).executeTakeFirst());
  }

  /** After the change, in its transaction: the item read back and kept as an Idempotency-Key's answer. */
  function keptItem(request: FastifyRequest, stock: Stock) {
    const kept = answerInWrite(request, (found: InventoryItem) => ({ status: 200, body: shownJson(request, found) }));
    if (kept === undefined) return undefined;
    return {
      kept,
      *after(): WriteSteps<void> {
        const found = itemFrom(stock, (yield itemQuery(stock).compile()).rows[0]);
        if (found !== undefined) yield* kept.step(found);
      },
    };
  }

  const item = (row: Row, variantId: number | null, quantity: unknown): InventoryItem => ({
    product_id: Number(row.id),
    variant_inventory_id: variantId,
    item_number: (row.item_number as string | null) ?? null,
    item_name: (row.item_name as string | null) ?? null,
    gtin: (row.gtin as string | null) ?? null,
    // Nothing recorded is nothing in stock.
    quantity: quantity === null || quantity === undefined ? 0 : Number(quantity),
  });

  async function stockOf(values: Record<string, unknown>): Promise<Stock> {
    const { name, value } = identifierOf(values);
    const stock = await find(name, value);
    if (stock === undefined) throw new ApiError(404, `There is no product or variant with ${name} ${value}`);
    return stock;
  }

  app.get('/inventory', { config: read }, async (request: FastifyRequest) => {
    const found = await itemOf(await stockOf(request.query as Record<string, unknown>));
    if (found === undefined) throw new ApiError(404, 'That item was deleted meanwhile');
    return found;
  });

  for (const [change, apply] of Object.entries(CHANGES)) {
    app.post(`/inventory/${change}`, { config: keyed, schema: { body: changeBody } }, async (request, reply) => {
      const body = request.body as Record<string, unknown> & { quantity: number };
      const stock = await stockOf(body);
      const column = stock.kind === 'product' ? 'quantity_on_hand' : 'inventory';
      const before = (await itemOf(stock))?.quantity ?? 0;
      const after = apply(before, body.quantity);
      if (after > columnRanges.integer.maximum || after < columnRanges.integer.minimum)
        throw new ApiError(400, `quantity: ${change} would leave ${after} in stock, beyond what can be kept`);
      // Added or removed in the database, not from the value read above, so concurrent changes all count.
      const value =
        change === 'set' ? body.quantity : sql`coalesce(${sql.ref(column)}, 0) ${sql.raw(change === 'add' ? '+' : '-')} ${body.quantity}`;
      const records = stock.kind === 'product' ? products : variants;
      // Through the records, so the write sends the resource's webhook events like any other.
      const keeping = keptItem(request, stock);
      const keep = keeping === undefined ? undefined : (row: Row | undefined) => (row === undefined ? nothing() : keeping.after());
      if ((await records.update(stock.id, { [column]: value }, keep)) === undefined)
        throw new ApiError(404, 'That item was deleted meanwhile');
      return keeping?.kept.send(reply) ?? itemOf(stock);
    });
  }

  for (const path of ['/inventory', ...Object.keys(CHANGES).map((change) => `/inventory/${change}`)]) {
    const allowed = path === '/inventory' ? 'GET' : 'POST';
    app.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((method) => method !== allowed),
      url: path,
      handler: (request) => {
        throw new ApiError(405, `${request.method} is not allowed here; use ${allowed}`, {
          allow: allowed === 'GET' ? 'GET, HEAD' : allowed,
        });
      },
    });
  }
  return Promise.resolve();
}
