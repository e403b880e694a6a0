// The platform's carting API (docs/api-carting.md): items, shipping rates and method, estimation address,
// coupon code, payment methods, recalculated totals, and placing the order.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { ApiError } from '../model/api-error.ts';
import { validationProblems } from '../http/error-format.ts';
import { idSchema } from '../http/record-id.ts';
import { columnRanges, columnsOf } from '../model/declaration.ts';
import { dialectSqlOf } from '../db/dialects/of.ts';
import { textOf, type Row, type StoreSchema } from '../db/schema.ts';
import { recordsOf } from '../records/records.ts';
import type { ResourceRouteConfig } from '../model/route-config.ts';
import { recordId } from '../resources/routes.ts';
import { resourceNamed } from '../model/registry.ts';
import { cartFigures, couponDiscount, couponDiscountMissing, shippingRates, subtotalOf } from './cart-pricing.ts';
import { isPlaced, lockOpenCart } from './cart-rules.ts';
import type { CartRoutesOptions } from './cart-routes-options.ts';
import { placeOrder, placeOrderEvents, placeOrderProblems, placeOrderSchema, type PlaceOrderBody } from './place-order.ts';

const carts = resourceNamed('carts');
const read: ResourceRouteConfig = { resource: 'carts', scope: 'orders', access: 'read' };
const write: ResourceRouteConfig = { ...read, access: 'write', touches: ['cart_items'] };

export const addItemsSchema = {
  type: 'object',
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      minItems: 1,
      maxItems: 500,
      items: {
        type: 'object',
        required: ['product_id', 'quantity'],
        properties: {
          product_id: idSchema,
          quantity: { type: 'integer', minimum: 1, maximum: columnRanges.integer.maximum },
          variant_ids: { type: 'array', maxItems: 50, items: idSchema },
          personalizations: { type: 'array', maxItems: 50, items: { type: 'object', required: ['personalization_id', 'answer'], properties: { personalization_id: idSchema, answer: { type: 'string', maxLength: 2000 } } } },
        },
      },
    },
  },
};
export const updateItemsSchema = {
  type: 'object',
  required: ['items'],
  properties: { items: { type: 'array', minItems: 1, maxItems: 500, items: { type: 'object', required: ['cart_item_id', 'quantity'], properties: { cart_item_id: idSchema, quantity: { type: 'integer', minimum: 0, maximum: columnRanges.integer.maximum } } } } },
};
export const removeItemsSchema = { type: ['object', 'null'], properties: { cart_item_ids: { type: 'array', maxItems: 500, items: idSchema } } };
const text = (max: number) => ({ type: 'string', maxLength: max });
export const chooseShippingSchema = { type: 'object', required: ['identifier'], properties: { identifier: text(500) } };
export const estimationSchema = { type: 'object', properties: { city: text(100), state_code: text(50), postal_code: text(20), country_code: text(50) } };
export const couponSchema = { type: 'object', required: ['coupon_code'], properties: { coupon_code: text(100) } };

export function cartRoutes(app: FastifyInstance, options: CartRoutesOptions): Promise<void> {
  const { db } = options.database;
  const replies = app.webhookReplies;
  const now = () => new Date(options.now?.() ?? Date.now());
  const cartRecords = recordsOf(options.database, carts);
  const orderEvents = placeOrderEvents(options);

  async function cartOf(request: FastifyRequest): Promise<Row> {
    const id = recordId(request, carts);
    const cart = await db.selectFrom('carts').selectAll().where('id', '=', id).executeTakeFirst();
    if (cart === undefined) throw new ApiError(404, `There is no cart with id ${id}`);
    return cart;
  }

  function openCart(cart: Row): void {
    if (cart.associated_order_id !== null && cart.associated_order_id !== undefined) {
      throw new ApiError(409, `cart ${String(cart.id)} became order ${textOf(cart.associated_order_id)}; open a new cart`);
    }
  }

  const itemsOf = (cartId: number) => db.selectFrom('cart_items').selectAll().where('cart_id', '=', cartId).orderBy('id').execute();

  /** Stores the cart's current figures (and `changes`, and the lines' prices from GetPrice), then answers the cart with its items. */
  async function saved(cart: Row, changes: Row = {}): Promise<Row> {
    const cartId = Number(cart.id);
    const items = await itemsOf(cartId);
    const { figures, lines } = await cartFigures(db, replies, { ...cart, ...changes }, items, now());
    const stamp = now().toISOString();
    // GetPrice answers a new object for each line it priced.
    const repriced = lines.filter((line, i) => line !== items[i] && (Number(line.price) !== Number(items[i]?.price) || Number(line.cost) !== Number(items[i]?.cost)));
    const updateCart = db.updateTable('carts').set({ ...changes, ...figures, updated_at: stamp }).where('id', '=', cartId);
    if (repriced.length === 0) await updateCart.execute();
    else {
      await db.transaction().execute(async (trx) => {
        for (const line of repriced) await trx.updateTable('cart_items').set({ price: line.price, cost: line.cost ?? null, updated_at: stamp }).where('id', '=', Number(line.id)).execute();
        await trx.executeQuery(updateCart.compile());
      });
    }
    const answer = await cartRecords.get(cartId, ['items']);
    if (answer === undefined) throw new ApiError(404, `There is no cart with id ${cartId}`);
    return answer;
  }

  /**
   * Changes the cart's lines, then its figures. Should the figures fail (a reply webhook whose failure_type is
   * Error), the lines are put back as they were, so the failed request changed nothing and its retry does not add twice.
   */
  async function changeLines(cart: Row, change: (trx: Kysely<StoreSchema>) => Promise<void>): Promise<Row> {
    const cartId = Number(cart.id);
    const before = await itemsOf(cartId);
    await db.transaction().execute(async (trx) => {
      await lockOpenCart(trx, options.database.dialect, cartId);
      await change(trx);
    });
    try {
      return await saved(cart);
    } catch (error) {
      await db
        .transaction()
        .execute(async (trx) => {
          await trx.deleteFrom('cart_items').where('cart_id', '=', cartId).execute();
          for (const line of before) await trx.insertInto('cart_items').values(line).execute();
        })
        // The request's own error is the one to answer; the cart keeps the change and its next calculation fixes the figures.
        .catch((undoError: unknown) => app.log.error({ err: undoError, cartId }, 'putting back the lines of a cart whose figures failed'));
      throw error;
    }
  }

  app.post('/carts/:id/items', { config: write, schema: { body: addItemsSchema } }, async (request) => {
    const cart = await cartOf(request);
    openCart(cart);
    const { items } = request.body as { items: { product_id: number; quantity: number; variant_ids?: number[]; personalizations?: Row[] }[] };
    return changeLines(cart, async (trx) => {
      for (const [index, item] of items.entries()) {
        const product = await trx.selectFrom('products').select(columnsOf(resourceNamed('products'))).where('id', '=', item.product_id).executeTakeFirst();
        if (product === undefined) throw new ApiError(409, `items[${index}].product_id: there is no product with id ${item.product_id}`);
        const variantIds = [...new Set(item.variant_ids ?? [])].sort((a, b) => a - b);
        const variants = variantIds.length === 0 ? [] : await trx.selectFrom('product_variants').selectAll().where('id', 'in', variantIds).where('product_id', '=', item.product_id).execute();
        if (variants.length !== variantIds.length) throw new ApiError(409, `items[${index}].variant_ids: not every variant belongs to product ${item.product_id}`);
        const variantJson = JSON.stringify(variants.map((v) => ({ id: Number(v.id), description: v.description ?? null, variant_group_id: v.variant_group_id === null ? null : Number(v.variant_group_id) })));
        const personalizations = JSON.stringify(item.personalizations ?? []);
        // The same product with the same choices adds to the line already in the cart.
        const same = (await trx.selectFrom('cart_items').selectAll().where('cart_id', '=', Number(cart.id)).where('product_id', '=', item.product_id).execute()).find(
          (line) => line.variants === variantJson && line.personalizations === personalizations,
        );
        const stamp = now().toISOString();
        if (same !== undefined) {
          await trx.updateTable('cart_items').set({ quantity: Number(same.quantity) + item.quantity, updated_at: stamp }).where('id', '=', Number(same.id)).execute();
          continue;
        }
        const price = Number(product.price ?? 0) + variants.reduce((sum, v) => sum + Number(v.price_adjustment ?? 0), 0);
        await dialectSqlOf(options.database).insertRow(trx, 'cart_items', {
          cart_id: Number(cart.id),
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
    });
  });

  app.put('/carts/:id/items', { config: write, schema: { body: updateItemsSchema } }, async (request) => {
    const cart = await cartOf(request);
    openCart(cart);
    const { items } = request.body as { items: { cart_item_id: number; quantity: number }[] };
    const present = new Set((await itemsOf(Number(cart.id))).map((line) => Number(line.id)));
    const unknown = items.filter((item) => !present.has(item.cart_item_id)).map((item) => item.cart_item_id);
    if (unknown.length > 0) throw new ApiError(409, `cart_item_id: ${unknown.join(', ')} not in cart ${String(cart.id)}`);
    return changeLines(cart, async (trx) => {
      for (const item of items) {
        // A quantity of 0 takes the line out.
        if (item.quantity === 0) await trx.deleteFrom('cart_items').where('id', '=', item.cart_item_id).execute();
        else await trx.updateTable('cart_items').set({ quantity: item.quantity, updated_at: now().toISOString() }).where('id', '=', item.cart_item_id).execute();
      }
    });
  });

  app.delete('/carts/:id/items', { config: write, schema: { body: removeItemsSchema } }, async (request) => {
    const cart = await cartOf(request);
    openCart(cart);
    const ids = (request.body as { cart_item_ids?: number[] } | null | undefined)?.cart_item_ids;
    return changeLines(cart, async (trx) => {
      let remove = trx.deleteFrom('cart_items').where('cart_id', '=', Number(cart.id));
      if (ids !== undefined) remove = remove.where('id', 'in', ids.length === 0 ? [0] : ids);
      await remove.execute();
    });
  });

  app.get('/carts/:id/shipping', { config: read }, async (request) => {
    const cart = await cartOf(request);
    const query = request.query as Record<string, unknown>;
    const missing = ['city', 'state', 'postal_code', 'country'].filter((name) => typeof query[name] !== 'string' || query[name] === '');
    if (missing.length > 0) throw new ApiError(400, missing.map((name) => `${name}: is required`).join('; '));
    const rates = await shippingRates(db, subtotalOf(await itemsOf(Number(cart.id))));
    return { total_count: rates.length, rates };
  });

  app.put('/carts/:id/shipping', { config: write, schema: { body: chooseShippingSchema } }, async (request) => {
    const cart = await cartOf(request);
    openCart(cart);
    const { identifier } = request.body as { identifier: string };
    const rates = await shippingRates(db, subtotalOf(await itemsOf(Number(cart.id))));
    if (!rates.some((rate) => rate.identifier === identifier)) throw new ApiError(409, `identifier: "${identifier}" is not one of this cart's shipping rates`);
    return saved(cart, { selected_shipping_method: identifier });
  });

  app.put('/carts/:id/shipping_estimation', { config: write, schema: { body: estimationSchema } }, async (request) => {
    const cart = await cartOf(request);
    openCart(cart);
    const body = request.body as Record<string, string | undefined>;
    const changes: Row = {};
    for (const name of ['city', 'state_code', 'postal_code', 'country_code']) if (body[name] !== undefined) changes[`shipping_estimate_${name}`] = body[name];
    return saved(cart, changes);
  });

  app.put('/carts/:id/coupon_code', { config: write, schema: { body: couponSchema } }, async (request) => {
    const cart = await cartOf(request);
    openCart(cart);
    const { coupon_code } = request.body as { coupon_code: string };
    // Refused here when not valid; checked again when the order is placed.
    await couponDiscount(db, coupon_code, 0, now());
    const answer = await saved(cart, { coupon_code });
    // A valid code no discount action reaches costs nothing, which a client would otherwise only guess from a 0.
    const missing = await couponDiscountMissing(db, coupon_code);
    if (missing === undefined) return answer;
    const webhook = (await replies.subscribed('GetDiscount')) ? '; a GetDiscount webhook may still discount it (it gets the code as campaign_code)' : '';
    return { ...answer, warnings: [`coupon_code: "${coupon_code}" is applied but no discount method gives it a discount: ${missing}${webhook}. A coupon discounts through an enabled discount method with a discount rule of type "CouponCode" whose target is the code, and an active discount action`] };
  });

  app.get('/carts/:id/payment_methods', { config: read }, async (request) => {
    await cartOf(request);
    const methods = await db.selectFrom('payment_methods').select(['id', 'name', 'payment_type']).where('is_hidden', '=', false).orderBy('sort_order').orderBy('id').execute();
    // Method 0 takes a card without a gateway; every store has it.
    const list = [{ payment_method_id: 0, name: 'Credit Card', payment_type: 'CreditCard' }, ...methods.map((m) => ({ payment_method_id: Number(m.id), name: m.name, payment_type: m.payment_type }))];
    return { total_count: list.length, payment_methods: list };
  });

  // Prices, discounts and tax may change at any time (webhooks answer them), so this is never a cached answer.
  const calculated: ResourceRouteConfig = { ...read, alwaysFresh: true, touches: ['cart_items'] };
  app.get('/carts/:id/calculated', { config: calculated }, async (request) => {
    const cart = await cartOf(request);
    // A placed cart is closed for good: its figures are the order's, never computed (or repriced) again.
    if (isPlaced(cart)) return (await cartRecords.get(Number(cart.id), ['items'])) ?? cart;
    return saved(cart);
  });

  const touchesAll: ResourceRouteConfig = { ...write, touches: ['cart_items', 'customers', 'addresses', 'orders', 'order_items', 'order_addresses', 'order_payments', 'coupon_codes', 'products'] };
  // The schema's problems and the body's missing parts are answered together (attachValidation keeps the first for here).
  app.post('/carts/:id/place_order', { config: touchesAll, schema: { body: placeOrderSchema }, attachValidation: true }, async (request) => {
    const validation = (request.validationError as FastifyError | undefined)?.validation;
    const schemaProblems = validation === undefined ? [] : validationProblems(validation);
    if (schemaProblems.length > 0) throw new ApiError(400, [...new Set([...schemaProblems, ...placeOrderProblems(request.body)])].join('; '));
    const cart = await cartOf(request);
    openCart(cart);
    return placeOrder({ ...options, replies, events: orderEvents }, cart, request.body as PlaceOrderBody, now());
  });

  return Promise.resolve();
}
