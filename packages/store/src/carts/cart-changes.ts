// How the carting API changes a cart: the cart a path names, a line added (or added to), and each change saved with
// the cart's figures (and an Idempotency-Key's answer) in one transaction.
import type { FastifyRequest } from 'fastify';
import type { AnswerInWrite } from '../http/answer-in-write.ts';
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
}

export function carting(options: CartRoutesOptions, replies: ReplyAsker): Carting {
  return {
    options,
    db: options.database.db,
    replies,
    now: () => new Date(options.now?.() ?? Date.now()),
    cartRecords: recordsOf(options.database, carts),
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

/** A change of the cart's lines, made in the transaction given. */
export type LinesChange = (trx: Kysely<StoreSchema>) => Promise<void>;

/** How a change is saved with the cart's figures: the lines' change, and the answer (kept by the write for an Idempotency-Key). */
export interface CartWrite {
  change?: LinesChange;
  /** The answer made of the cart with its items; the cart itself when not given. */
  shape?: (cart: Row) => Row;
  kept?: AnswerInWrite<Row>;
}

/** How many times the lines are priced again when they changed meanwhile, before the request gives up (409). */
const ATTEMPTS = 5;

const linesIn = (trx: Kysely<StoreSchema>, cartId: number) =>
  trx.selectFrom('cart_items').selectAll().where('cart_id', '=', cartId).orderBy('id').execute();

/** What the figures of lines depend on: not the ids and stamps a change gave them, which differ each time it is made. */
const pricedContent = (lines: readonly Row[]) =>
  JSON.stringify(
    lines.map((line) => [line.product_id, line.item_number, line.quantity, line.price, line.cost, line.variants, line.personalizations]),
  );

class Rehearsed extends Error {
  readonly lines: Row[];
  constructor(lines: Row[]) {
    super('rehearsed change');
    this.lines = lines;
  }
}

/** The lines `change` leaves, learnt in a transaction rolled back, so they are priced (reply webhooks) outside any transaction. */
async function rehearse(c: Carting, cartId: number, change: LinesChange): Promise<Row[]> {
  try {
    await c.db.transaction().execute(async (trx) => {
      await lockOpenCart(trx, c.options.database.dialect, cartId);
      await change(trx);
      throw new Rehearsed(await linesIn(trx, cartId));
    });
  } catch (error) {
    if (error instanceof Rehearsed) return error.lines;
    throw error;
  }
  throw new Error('a rehearsed change committed');
}

/**
 * Makes the change (when given) and stores the cart's figures (and `changes`, and the lines' prices from GetPrice)
 * in one transaction, with the answer kept for an Idempotency-Key: the cart with its items. The lines are priced
 * first, from a rehearsal of the change; should they differ in the transaction (another request changed them), they
 * are priced again. Should the figures fail (a reply webhook whose failure_type is Error), nothing was written.
 */
export async function saved(c: Carting, cart: Row, changes: Row = {}, how: CartWrite = {}): Promise<Row> {
  const { db } = c;
  const cartId = Number(cart.id);
  const { change, shape, kept } = how;
  for (let attempt = 1; ; attempt += 1) {
    const items = change === undefined ? await itemsOf(c, cartId) : await rehearse(c, cartId, change);
    const { figures, lines } = await cartFigures(db, c.replies, { ...cart, ...changes }, items, c.now());
    const stamp = c.now().toISOString();
    const answer = await db.transaction().execute(async (trx) => {
      await lockOpenCart(trx, c.options.database.dialect, cartId);
      if (change !== undefined) await change(trx);
      const current = await linesIn(trx, cartId);
      if (pricedContent(current) !== pricedContent(items)) return undefined;
      // GetPrice answers a new object for each line it priced.
      for (const [i, line] of lines.entries()) {
        const was = items[i];
        if (line === was || (Number(line.price) === Number(was?.price) && Number(line.cost) === Number(was?.cost))) continue;
        await trx
          .updateTable('cart_items')
          .set({ price: line.price, cost: line.cost ?? null, updated_at: stamp })
          .where('id', '=', Number(current[i]?.id))
          .execute();
      }
      await trx
        .updateTable('carts')
        .set({ ...changes, ...figures, updated_at: stamp })
        .where('id', '=', cartId)
        .execute();
      const row = await c.cartRecords.get(cartId, ['items'], trx);
      if (row === undefined) throw new ApiError(404, `There is no cart with id ${cartId}`);
      const shaped = shape === undefined ? row : shape(row);
      await kept?.keep(trx, shaped);
      return shaped;
    });
    if (answer !== undefined) return answer;
    if (attempt === ATTEMPTS) throw new ApiError(409, `cart ${cartId}: its lines kept changing while they were priced; try again`);
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
