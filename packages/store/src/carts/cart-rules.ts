// The carting rules hold on the generic resource routes too (`POST /carts`, `POST|PUT|DELETE /cart_items`), not only
// on the carting API: a line's price comes from its product (GetPrice may change it when the cart's figures are
// computed), its quantity is at least 1, and a cart that became an order is closed for good. Without this, the
// `orders` scope every storefront has could set a line's price to 0.01 or reopen a placed cart.
import type { Kysely } from 'kysely';
import { dialectSqlOf } from '../db/dialects/of.ts';
import { textOf, type Row, type StoreDatabase, type StoreSchema } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import { parseRecordId } from '../http/record-id.ts';
import type { BeforeWriteCheck, PendingWrite } from '../records/before-write.ts';

export function closedCart(cart: Row): ApiError {
  return new ApiError(409, `cart ${String(cart.id)} became order ${textOf(cart.associated_order_id)}; open a new cart`);
}

/**
 * The cart, read with its row locked in the caller's transaction (PostgreSQL, MariaDB; SQLite has one writer), and
 * refused when it became an order: what changes its lines or places it runs one at a time per cart.
 */
export async function lockOpenCart(trx: Kysely<StoreSchema>, dialect: StoreDatabase['dialect'], cartId: number): Promise<Row> {
  const cart = await dialectSqlOf({ dialect })
    .lockForWrite(trx.selectFrom('carts').selectAll().where('id', '=', cartId))
    .executeTakeFirst();
  if (cart === undefined) throw new ApiError(404, `There is no cart with id ${cartId}`);
  if (isPlaced(cart)) throw closedCart(cart);
  return cart;
}

export const isPlaced = (cart: Row | undefined): cart is Row =>
  cart !== undefined && cart.associated_order_id !== null && cart.associated_order_id !== undefined;

/** The rules as a before-write check of the carts and their lines, whoever writes them. */
export function cartRules(database: StoreDatabase): BeforeWriteCheck {
  const { db } = database;
  const cartById = (id: unknown) => {
    const cartId = parseRecordId(typeof id === 'number' || typeof id === 'string' ? id : undefined);
    return cartId === undefined
      ? Promise.resolve(undefined)
      : db.selectFrom('carts').selectAll().where('id', '=', cartId).executeTakeFirst();
  };
  const lineById = (id: unknown) => {
    const lineId = parseRecordId(typeof id === 'number' || typeof id === 'string' ? id : undefined);
    return lineId === undefined
      ? Promise.resolve(undefined)
      : db.selectFrom('cart_items').selectAll().where('id', '=', lineId).executeTakeFirst();
  };

  /** The line's price and cost from its product; a line without a product has none. */
  async function productPrice(productId: unknown): Promise<Row> {
    const id = parseRecordId(typeof productId === 'number' ? productId : undefined);
    // A product that does not exist is the write's own 409, from the reference check.
    const product =
      id === undefined ? undefined : await db.selectFrom('products').select(['price', 'cost']).where('id', '=', id).executeTakeFirst();
    return { price: product?.price ?? null, cost: product?.cost ?? null };
  }

  async function cartWrite({ body }: PendingWrite): Promise<void> {
    // An upsert naming a placed cart would reopen it (associated_order_id is the server's, never the body's).
    const cart = await cartById(body.id);
    if (isPlaced(cart)) throw closedCart(cart);
  }

  async function lineWrite(write: PendingWrite): Promise<void> {
    const { kind, body } = write;
    const existing = await lineById(kind === 'upsert' ? body.id : write.id);
    if (kind === 'upsert' && existing === undefined && body.quantity === undefined) body.quantity = 1;
    if (body.quantity === null) throw new ApiError(400, 'quantity: must be at least 1');
    for (const cart of [await cartById(existing?.cart_id), kind === 'remove' ? undefined : await cartById(body.cart_id)]) {
      if (isPlaced(cart)) throw closedCart(cart);
    }
    if (kind === 'remove') return;
    // A new line, or a line given another product, takes that product's price; otherwise the price stays as it is.
    if (existing === undefined || (body.product_id !== undefined && body.product_id !== existing.product_id)) {
      write.serverValues = {
        ...write.serverValues,
        ...(await productPrice(body.product_id === undefined ? existing?.product_id : body.product_id)),
      };
    }
  }

  return {
    checkFor(resource) {
      if (resource.name === 'carts') return (write) => (write.kind === 'upsert' ? cartWrite(write) : undefined);
      if (resource.name === 'cart_items') return lineWrite;
      return undefined;
    },
  };
}
