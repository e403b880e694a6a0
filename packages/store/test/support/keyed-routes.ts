// The kinds of write an Idempotency-Key protects, as the kill tests drive them: a record, one that is an event, a record
// with an encrypted field, a cart's lines, stock, and placing an order. Each makes what its keys need through the API, names the
// request a key's copies send, counts each key's effects in the database, and names the lock that holds a key's
// request before its write (so a test can kill the store inside the write's window).
import type { Kysely, RawBuilder } from 'kysely';
import { sql } from 'kysely';
import type { Row, StoreSchema } from '../../src/db/schema.ts';

export type ApiCall = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: Row }>;
export type LockingDialect = 'postgres' | 'mysql';

export interface KeyedRequest {
  path: string;
  body: unknown;
}

export interface PreparedKeys {
  requestOf(key: string): KeyedRequest;
  /** A statement that, run in a transaction kept open, holds `key`'s request before its write. */
  holdOf(key: string, dialect: LockingDialect): RawBuilder<unknown>;
  /** How many times each key's effect happened. */
  effects(db: Kysely<StoreSchema>): Promise<Map<string, number>>;
}

export interface KeyedRoute {
  name: string;
  /** The status of a key's first answer. */
  status: number;
  prepare(api: ApiCall, keys: readonly string[]): Promise<PreparedKeys>;
  /** What the kept answer must say, beyond being the same for every copy (the record as a GET shows it). */
  check?(api: ApiCall, answer: Row): Promise<void>;
}

async function made(api: ApiCall, path: string, body: unknown): Promise<Row> {
  const answer = await api('POST', path, body);
  if (answer.status >= 300) throw new Error(`preparing: POST ${path} answered ${answer.status}: ${JSON.stringify(answer.json)}`);
  return answer.json;
}

const tally = (names: readonly unknown[]) => {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(String(name), (counts.get(String(name)) ?? 0) + 1);
  return counts;
};

const rowLock = (table: string, id: number) => sql`select id from ${sql.table(table)} where id = ${id} for update`;
const tableLock = (table: string, dialect: LockingDialect) =>
  dialect === 'postgres' ? sql`lock table ${sql.table(table)} in share mode` : sql`select id from ${sql.table(table)} for update`;

/** Each key's cart, made with `lines` in it. */
async function cartsFor(api: ApiCall, keys: readonly string[], lines: Row[]): Promise<Map<string, number>> {
  const carts = new Map<string, number>();
  for (const key of keys) {
    const cart = await made(api, '/carts', null);
    if (lines.length > 0) await made(api, `/carts/${String(cart.id)}/items`, { items: lines });
    carts.set(key, Number(cart.id));
  }
  return carts;
}

const cartOf = (carts: Map<string, number>, key: string): number => {
  const id = carts.get(key);
  if (id === undefined) throw new Error(`no cart for ${key}`);
  return id;
};

const address = { name: 'Kim Doe', address_line_1: '1 Test St', city: 'Beaumont', state: 'TX', postal_code: '77702', country: 'US' };
const card = { number: '4111 1111 1111 1111', name: 'Kim Doe', expiration_month: '12', expiration_year: '2099', cvv: '111' };

export const keyedRoutes: readonly KeyedRoute[] = [
  {
    name: 'record',
    status: 201,
    prepare: () =>
      Promise.resolve({
        requestOf: (key) => ({ path: '/manufacturers', body: { name: key } }),
        holdOf: (_key, dialect) => tableLock('manufacturers', dialect),
        effects: async (db) => tally((await db.selectFrom('manufacturers').select('name').execute()).map((row) => row.name)),
      }),
  },
  // A record whose creation is an event (ProductCreated): the event log and webhooks take part in the write.
  {
    name: 'product',
    status: 201,
    prepare: () =>
      Promise.resolve({
        requestOf: (key) => ({ path: '/products', body: { item_name: key, item_number: key, price: 1 } }),
        holdOf: (_key, dialect) => tableLock('products', dialect),
        effects: async (db) => tally((await db.selectFrom('products').select('item_number').execute()).map((row) => row.item_number)),
      }),
  },
  {
    name: 'encrypted',
    status: 201,
    prepare: () =>
      Promise.resolve({
        requestOf: (key) => ({ path: '/credit_cards', body: { card_type: key, cardholder_name: `Holder ${key}` } }),
        holdOf: (_key, dialect) => tableLock('credit_cards', dialect),
        effects: async (db) => tally((await db.selectFrom('credit_cards').select('card_type').execute()).map((row) => row.card_type)),
      }),
    // The encrypted field as a GET shows it to the same caller: revealed or left out, never the text kept at rest.
    async check(api, answer) {
      const shown = await api('GET', `/credit_cards/${String(answer.id)}`);
      if (shown.json.cardholder_name !== answer.cardholder_name)
        throw new Error(`the kept answer's cardholder_name ${String(answer.cardholder_name)} is not what GET shows`);
    },
  },
  {
    name: 'cart-items',
    status: 200,
    async prepare(api, keys) {
      const product = await made(api, '/products', { item_name: 'Bolt', item_number: 'KB-1', price: 2.5 });
      const carts = await cartsFor(api, keys, []);
      return {
        requestOf: (key) => ({ path: `/carts/${cartOf(carts, key)}/items`, body: { items: [{ product_id: product.id, quantity: 1 }] } }),
        holdOf: (key) => rowLock('carts', cartOf(carts, key)),
        async effects(db) {
          const lines = await db
            .selectFrom('cart_items')
            .select(['cart_id', 'quantity'])
            .where('cart_id', 'in', [...carts.values()])
            .execute();
          const byCart = new Map<number, number>();
          for (const line of lines) byCart.set(Number(line.cart_id), (byCart.get(Number(line.cart_id)) ?? 0) + Number(line.quantity));
          return new Map([...carts].map(([key, id]) => [key, byCart.get(id) ?? 0]));
        },
      };
    },
  },
  {
    name: 'inventory',
    status: 200,
    async prepare(api, keys) {
      const products = new Map<string, number>();
      for (const key of keys)
        products.set(key, Number((await made(api, '/products', { item_name: key, item_number: key, quantity_on_hand: 0 })).id));
      return {
        requestOf: (key) => ({ path: '/inventory/add', body: { item_number: key, quantity: 1 } }),
        holdOf: (key) => rowLock('products', products.get(key) ?? 0),
        async effects(db) {
          const rows = await db
            .selectFrom('products')
            .select(['item_number', 'quantity_on_hand'])
            .where('id', 'in', [...products.values()])
            .execute();
          return new Map(rows.map((row) => [String(row.item_number), Number(row.quantity_on_hand)]));
        },
      };
    },
  },
  {
    name: 'place-order',
    status: 200,
    async prepare(api, keys) {
      const product = await made(api, '/products', { item_name: 'Nut', item_number: 'KN-1', price: 0.4 });
      const carts = await cartsFor(api, keys, [{ product_id: product.id, quantity: 2 }]);
      return {
        requestOf: (key) => ({
          path: `/carts/${cartOf(carts, key)}/place_order`,
          body: {
            customer: { first_name: 'Kim', last_name: 'Doe', email: `${key}@example.com` },
            billing_address: address,
            use_billing_address_for_shipping: true,
            credit_card: card,
          },
        }),
        holdOf: (key) => rowLock('carts', cartOf(carts, key)),
        async effects(db) {
          const rows = await db
            .selectFrom('orders')
            .innerJoin('customers', 'customers.id', 'orders.customer_id')
            .select('customers.email')
            .execute();
          return tally(rows.map((row) => String(row.email).replace(/@example\.com$/, '')));
        },
      };
    },
  },
];
