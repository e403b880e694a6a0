// The carting rules hold on the generic resource routes too (`POST /carts`, `POST|PUT|DELETE /cart_items`), not only
// on the carting API: a line's price comes from its product (GetPrice may change it when the cart's figures are
// computed), its quantity is at least 1, and a cart that became an order is closed for good. Without this, the
// `orders` scope every storefront has could set a line's price to 0.01 or reopen a placed cart.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import { textOf, type Row, type StoreDatabase, type StoreSchema } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import { parseRecordId } from '../http/record-id.ts';

/** The generic routes the rules apply to, by method and route path under the API prefix. */
const GUARDED: Record<string, readonly string[]> = {
  POST: ['/carts', '/cart_items'],
  PUT: ['/cart_items/:id'],
  DELETE: ['/cart_items/:id'],
};

export function closedCart(cart: Row): ApiError {
  return new ApiError(409, `cart ${String(cart.id)} became order ${textOf(cart.associated_order_id)}; open a new cart`);
}

/**
 * The cart, read with its row locked in the caller's transaction (PostgreSQL, MariaDB; SQLite has one writer), and
 * refused when it became an order: what changes its lines or places it runs one at a time per cart.
 */
export async function lockOpenCart(trx: Kysely<StoreSchema>, dialect: StoreDatabase['dialect'], cartId: number): Promise<Row> {
  const select = trx.selectFrom('carts').selectAll().where('id', '=', cartId);
  const cart = await (dialect === 'sqlite' ? select : select.forUpdate()).executeTakeFirst();
  if (cart === undefined) throw new ApiError(404, `There is no cart with id ${cartId}`);
  if (isPlaced(cart)) throw closedCart(cart);
  return cart;
}

export const isPlaced = (cart: Row | undefined): cart is Row => cart !== undefined && cart.associated_order_id !== null && cart.associated_order_id !== undefined;

export const cartRules = fp(
  (app: FastifyInstance, options: { database: StoreDatabase; apiPrefix: string }) => {
    const { db } = options.database;
    const cartById = (id: unknown) => {
      const cartId = parseRecordId(typeof id === 'number' || typeof id === 'string' ? id : undefined);
      return cartId === undefined ? Promise.resolve(undefined) : db.selectFrom('carts').selectAll().where('id', '=', cartId).executeTakeFirst();
    };
    const lineById = (id: unknown) => {
      const lineId = parseRecordId(typeof id === 'number' || typeof id === 'string' ? id : undefined);
      return lineId === undefined ? Promise.resolve(undefined) : db.selectFrom('cart_items').selectAll().where('id', '=', lineId).executeTakeFirst();
    };

    /** The line's price and cost from its product; a line without a product has none. */
    async function productPrice(productId: unknown): Promise<Row> {
      const id = parseRecordId(typeof productId === 'number' ? productId : undefined);
      // A product that does not exist is the write's own 409, from the reference check.
      const product = id === undefined ? undefined : await db.selectFrom('products').select(['price', 'cost']).where('id', '=', id).executeTakeFirst();
      return { price: product?.price ?? null, cost: product?.cost ?? null };
    }

    async function check(request: FastifyRequest): Promise<void> {
      const route = request.routeOptions.url?.slice(options.apiPrefix.length) ?? '';
      const body = (request.body ?? {}) as Row;
      if (route === '/carts') {
        // An upsert naming a placed cart would reopen it (associated_order_id is the server's, never the body's).
        const cart = await cartById(body.id);
        if (isPlaced(cart)) throw closedCart(cart);
        return;
      }
      const existing = route === '/cart_items' ? await lineById(body.id) : await lineById((request.params as { id?: string }).id);
      if (route === '/cart_items' && existing === undefined && body.quantity === undefined) body.quantity = 1;
      if (body.quantity === null) throw new ApiError(400, 'quantity: must be at least 1');
      for (const cart of [await cartById(existing?.cart_id), request.method === 'DELETE' ? undefined : await cartById(body.cart_id)]) {
        if (isPlaced(cart)) throw closedCart(cart);
      }
      if (request.method === 'DELETE') return;
      // A new line, or a line given another product, takes that product's price; otherwise the price stays as it is.
      if (existing === undefined || (body.product_id !== undefined && body.product_id !== existing.product_id)) {
        request.serverValues = { ...request.serverValues, ...(await productPrice(body.product_id === undefined ? existing?.product_id : body.product_id)) };
      }
    }

    app.addHook('preHandler', async (request) => {
      if (GUARDED[request.method]?.some((path) => request.routeOptions.url === `${options.apiPrefix}${path}`) !== true) return;
      await check(request);
    });
  },
  { name: 'cart-rules' },
);
