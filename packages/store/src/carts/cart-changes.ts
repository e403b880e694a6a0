// How the carting API changes a cart: the cart a path names, a line added (or added to), the lines changed and put
// back should the figures fail, and the cart's figures saved after each change.
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { dialectSqlOf } from '../db/dialects/of.ts';
import type { Row, StoreSchema } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import { columnsOf } from '../model/declaration.ts';
import { resourceNamed } from '../model/registry.ts';
import { recordsOf, type Records } from '../records/records.ts';
import { recordId } from '../resources/routes.ts';
import type { ReplyAsker } from '../webhooks/reply-events.ts';
import { cartFigures } from './cart-pricing.ts';
import { closedCart, isPlaced, lockOpenCart } from './cart-rules.ts';
import type { CartRoutesOptions } from './cart-routes-options.ts';

const carts = resourceNamed('carts');

/** What the carting routes share. */
export interface Carting {
  readonly options: CartRoutesOptions;
  readonly db: Kysely<StoreSchema>;
  readonly replies: ReplyAsker;
  readonly now: () => Date;
  readonly cartRecords: Records;
  readonly log: FastifyBaseLogger;
}

export function carting(options: CartRoutesOptions, replies: ReplyAsker, log: FastifyBaseLogger): Carting {
  return {
    options,
    db: options.database.db,
    replies,
    now: () => new Date(options.now?.() ?? Date.now()),
    cartRecords: recordsOf(options.database, carts),
    log,
  };
}

/** A line the caller adds: a product, with its variants and personalizations. */
export interface NewLine {
  product_id: number;
  quantity: number;
  variant_ids?: number[];
  personalizations?: Row[];
}

/** The cart the path names. */
export async function cartOf(c: Carting, request: FastifyRequest): Promise<Row> {
  const id = recordId(request, carts);
  const cart = await c.db.selectFrom('carts').selectAll().where('id', '=', id).executeTakeFirst();
  if (cart === undefined) throw new ApiError(404, `There is no cart with id ${id}`);
  return cart;
}

/** The cart the path names, refused once it became an order. */
export async function openCartOf(c: Carting, request: FastifyRequest): Promise<Row> {
  const cart = await cartOf(c, request);
  if (isPlaced(cart)) throw closedCart(cart);
  return cart;
}

export const itemsOf = (c: Carting, cartId: number) =>
  c.db.selectFrom('cart_items').selectAll().where('cart_id', '=', cartId).orderBy('id').execute();

/** Stores the cart's current figures (and `changes`, and the lines' prices from GetPrice), then answers the cart with its items. */
export async function saved(c: Carting, cart: Row, changes: Row = {}): Promise<Row> {
  const { db } = c;
  const cartId = Number(cart.id);
  const items = await itemsOf(c, cartId);
  const { figures, lines } = await cartFigures(db, c.replies, { ...cart, ...changes }, items, c.now());
  const stamp = c.now().toISOString();
  // GetPrice answers a new object for each line it priced.
  const repriced = lines.filter(
    (line, i) => line !== items[i] && (Number(line.price) !== Number(items[i]?.price) || Number(line.cost) !== Number(items[i]?.cost)),
  );
  const updateCart = db
    .updateTable('carts')
    .set({ ...changes, ...figures, updated_at: stamp })
    .where('id', '=', cartId);
  if (repriced.length === 0) await updateCart.execute();
  else {
    await db.transaction().execute(async (trx) => {
      for (const line of repriced)
        await trx
          .updateTable('cart_items')
          .set({ price: line.price, cost: line.cost ?? null, updated_at: stamp })
          .where('id', '=', Number(line.id))
          .execute();
      await trx.executeQuery(updateCart.compile());
    });
  }
  const answer = await c.cartRecords.get(cartId, ['items']);
  if (answer === undefined) throw new ApiError(404, `There is no cart with id ${cartId}`);
  return answer;
}

/**
 * Changes the cart's lines, then its figures. Should the figures fail (a reply webhook whose failure_type is
 * Error), the lines are put back as they were, so the failed request changed nothing and its retry does not add twice.
 */
export async function changeLines(c: Carting, cart: Row, change: (trx: Kysely<StoreSchema>) => Promise<void>): Promise<Row> {
  const cartId = Number(cart.id);
  const before = await itemsOf(c, cartId);
  await c.db.transaction().execute(async (trx) => {
    await lockOpenCart(trx, c.options.database.dialect, cartId);
    await change(trx);
  });
  try {
    return await saved(c, cart);
  } catch (error) {
    await c.db
      .transaction()
      .execute(async (trx) => {
        await trx.deleteFrom('cart_items').where('cart_id', '=', cartId).execute();
        for (const line of before) await trx.insertInto('cart_items').values(line).execute();
      })
      // The request's own error is the one to answer; the cart keeps the change and its next calculation fixes the figures.
      .catch((undoError: unknown) => c.log.error({ err: undoError, cartId }, 'putting back the lines of a cart whose figures failed'));
    throw error;
  }
}

/** Adds `item` (the `index`-th of the request) to the cart: to its line of the same product and choices, else as a new line priced from its product. */
export async function addLine(c: Carting, trx: Kysely<StoreSchema>, cartId: number, item: NewLine, index: number): Promise<void> {
  const product = await trx
    .selectFrom('products')
    .select(columnsOf(resourceNamed('products')))
    .where('id', '=', item.product_id)
    .executeTakeFirst();
  if (product === undefined) throw new ApiError(409, `items[${index}].product_id: there is no product with id ${item.product_id}`);
  const variantIds = [...new Set(item.variant_ids ?? [])].sort((a, b) => a - b);
  const variants =
    variantIds.length === 0
      ? []
      : await trx
          .selectFrom('product_variants')
          .selectAll()
          .where('id', 'in', variantIds)
          .where('product_id', '=', item.product_id)
          .execute();
  if (variants.length !== variantIds.length)
    throw new ApiError(409, `items[${index}].variant_ids: not every variant belongs to product ${item.product_id}`);
  const variantJson = JSON.stringify(
    variants.map((v) => ({
      id: Number(v.id),
      description: v.description ?? null,
      variant_group_id: v.variant_group_id === null ? null : Number(v.variant_group_id),
    })),
  );
  const personalizations = JSON.stringify(item.personalizations ?? []);
  // The same product with the same choices adds to the line already in the cart.
  const same = (
    await trx.selectFrom('cart_items').selectAll().where('cart_id', '=', cartId).where('product_id', '=', item.product_id).execute()
  ).find((line) => line.variants === variantJson && line.personalizations === personalizations);
  const stamp = c.now().toISOString();
  if (same !== undefined) {
    await trx
      .updateTable('cart_items')
      .set({ quantity: Number(same.quantity) + item.quantity, updated_at: stamp })
      .where('id', '=', Number(same.id))
      .execute();
    return;
  }
  const price = Number(product.price ?? 0) + variants.reduce((sum, v) => sum + Number(v.price_adjustment ?? 0), 0);
  await dialectSqlOf(c.options.database).insertRow(trx, 'cart_items', {
    cart_id: cartId,
    product_id: item.product_id,
    item_number: product.item_number ?? null,
    item_name: product.item_name ?? null,
    quantity: item.quantity,
    price,
    cost: product.cost ?? null,
    warehouse_id: product.warehouse_id ?? null,
    is_subscription_product: Boolean(product.is_subscription_product),
    variants: variantJson,
    personalizations,
    created_at: stamp,
    updated_at: stamp,
  });
}
