// The platform's carting API (docs/api-carting.md): items, shipping rates and method, estimation address,
// coupon code, payment methods, recalculated totals, and placing the order.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { answerInWrite, shownJson, type AnswerText } from '../http/answer-in-write.ts';
import { ApiError } from '../model/api-error.ts';
import { validationProblems } from '../http/error-format.ts';
import { idSchema } from '../http/record-id.ts';
import { columnRanges } from '../model/declaration.ts';
import type { Row } from '../db/schema.ts';
import type { ResourceRouteConfig, RouteConfig } from '../model/route-config.ts';
import { addLine, cartOf, carting, itemsOf, openCartOf, saved, type Carting, type LinesChange, type NewLine } from './cart-changes.ts';
import { couponDiscount, couponDiscountMissing, shippingRates, subtotalOf } from './cart-pricing.ts';
import { isPlaced } from './cart-rules.ts';
import type { CartRoutesOptions } from './cart-routes-options.ts';
import { placeOrder, placeOrderEvents, placeOrderProblems, placeOrderSchema, type PlaceOrderBody } from './place-order.ts';

const read: ResourceRouteConfig = { resource: 'carts', scope: 'orders', access: 'read' };
const write: ResourceRouteConfig = { ...read, access: 'write', touches: ['cart_items'] };
// POST and PUT keep an Idempotency-Key's answer in their write's transaction.
const keyed: RouteConfig = { ...write, answerInWrite: true };
/** The answer kept for an Idempotency-Key, as the caller is shown it. */
const keptAnswer = (request: FastifyRequest) =>
  answerInWrite(request, (answer: Row): AnswerText => ({ status: 200, body: shownJson(request, answer) }));

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
          personalizations: {
            type: 'array',
            maxItems: 50,
            items: {
              type: 'object',
              required: ['personalization_id', 'answer'],
              properties: { personalization_id: idSchema, answer: { type: 'string', maxLength: 2000 } },
            },
          },
        },
      },
    },
  },
};
export const updateItemsSchema = {
  type: 'object',
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      minItems: 1,
      maxItems: 500,
      items: {
        type: 'object',
        required: ['cart_item_id', 'quantity'],
        properties: { cart_item_id: idSchema, quantity: { type: 'integer', minimum: 0, maximum: columnRanges.integer.maximum } },
      },
    },
  },
};
export const removeItemsSchema = {
  type: ['object', 'null'],
  properties: { cart_item_ids: { type: 'array', maxItems: 500, items: idSchema } },
};
const text = (max: number) => ({ type: 'string', maxLength: max });
export const chooseShippingSchema = { type: 'object', required: ['identifier'], properties: { identifier: text(500) } };
export const estimationSchema = {
  type: 'object',
  properties: { city: text(100), state_code: text(50), postal_code: text(20), country_code: text(50) },
};
export const couponSchema = { type: 'object', required: ['coupon_code'], properties: { coupon_code: text(100) } };

export function cartRoutes(app: FastifyInstance, options: CartRoutesOptions): Promise<void> {
  const c = carting(options, app.webhookReplies);
  lineRoutes(app, c);
  shippingRoutes(app, c);
  checkoutRoutes(app, c);
  return Promise.resolve();
}

/** Adding, changing and removing the cart's lines. */
function lineRoutes(app: FastifyInstance, c: Carting): void {
  app.post('/carts/:id/items', { config: keyed, schema: { body: addItemsSchema } }, async (request, reply) => {
    const cart = await openCartOf(c, request);
    const { items } = request.body as { items: NewLine[] };
    const kept = keptAnswer(request);
    const change: LinesChange = async (trx) => {
      for (const [index, item] of items.entries()) await addLine(c, trx, Number(cart.id), item, index);
    };
    const answer = await saved(c, cart, {}, { change, kept });
    return kept?.send(reply) ?? answer;
  });

  app.put('/carts/:id/items', { config: keyed, schema: { body: updateItemsSchema } }, async (request, reply) => {
    const cart = await openCartOf(c, request);
    const { items } = request.body as { items: { cart_item_id: number; quantity: number }[] };
    const present = new Set((await itemsOf(c, Number(cart.id))).map((line) => Number(line.id)));
    const unknown = items.filter((item) => !present.has(item.cart_item_id)).map((item) => item.cart_item_id);
    if (unknown.length > 0) throw new ApiError(409, `cart_item_id: ${unknown.join(', ')} not in cart ${String(cart.id)}`);
    const kept = keptAnswer(request);
    const change: LinesChange = async (trx) => {
      for (const item of items) {
        // A quantity of 0 takes the line out.
        if (item.quantity === 0) await trx.deleteFrom('cart_items').where('id', '=', item.cart_item_id).execute();
        else
          await trx
            .updateTable('cart_items')
            .set({ quantity: item.quantity, updated_at: c.now().toISOString() })
            .where('id', '=', item.cart_item_id)
            .execute();
      }
    };
    const answer = await saved(c, cart, {}, { change, kept });
    return kept?.send(reply) ?? answer;
  });

  app.delete('/carts/:id/items', { config: write, schema: { body: removeItemsSchema } }, async (request) => {
    const cart = await openCartOf(c, request);
    const ids = (request.body as { cart_item_ids?: number[] } | null | undefined)?.cart_item_ids;
    const change: LinesChange = async (trx) => {
      let remove = trx.deleteFrom('cart_items').where('cart_id', '=', Number(cart.id));
      if (ids !== undefined) remove = remove.where('id', 'in', ids.length === 0 ? [0] : ids);
      await remove.execute();
    };
    return saved(c, cart, {}, { change });
  });
}

/** The shipping rates, the chosen method and the estimation address. */
function shippingRoutes(app: FastifyInstance, c: Carting): void {
  app.get('/carts/:id/shipping', { config: read }, async (request) => {
    const cart = await cartOf(c, request);
    const query = request.query as Record<string, unknown>;
    const missing = ['city', 'state', 'postal_code', 'country'].filter((name) => typeof query[name] !== 'string' || query[name] === '');
    if (missing.length > 0) throw new ApiError(400, missing.map((name) => `${name}: is required`).join('; '));
    const rates = await shippingRates(c.db, subtotalOf(await itemsOf(c, Number(cart.id))));
    return { total_count: rates.length, rates };
  });

  app.put('/carts/:id/shipping', { config: keyed, schema: { body: chooseShippingSchema } }, async (request, reply) => {
    const cart = await openCartOf(c, request);
    const { identifier } = request.body as { identifier: string };
    const rates = await shippingRates(c.db, subtotalOf(await itemsOf(c, Number(cart.id))));
    if (!rates.some((rate) => rate.identifier === identifier))
      throw new ApiError(409, `identifier: "${identifier}" is not one of this cart's shipping rates`);
    const kept = keptAnswer(request);
    const answer = await saved(c, cart, { selected_shipping_method: identifier }, { kept });
    return kept?.send(reply) ?? answer;
  });

  app.put('/carts/:id/shipping_estimation', { config: keyed, schema: { body: estimationSchema } }, async (request, reply) => {
    const cart = await openCartOf(c, request);
    const body = request.body as Record<string, string | undefined>;
    const changes: Row = {};
    for (const name of ['city', 'state_code', 'postal_code', 'country_code'])
      if (body[name] !== undefined) changes[`shipping_estimate_${name}`] = body[name];
    const kept = keptAnswer(request);
    const answer = await saved(c, cart, changes, { kept });
    return kept?.send(reply) ?? answer;
  });
}

/** The coupon code, the payment methods, the calculated cart, and placing the order. */
function checkoutRoutes(app: FastifyInstance, c: Carting): void {
  const { db, replies } = c;
  app.put('/carts/:id/coupon_code', { config: keyed, schema: { body: couponSchema } }, async (request, reply) => {
    const cart = await openCartOf(c, request);
    const { coupon_code } = request.body as { coupon_code: string };
    // Refused here when not valid; checked again when the order is placed.
    await couponDiscount(db, coupon_code, 0, c.now());
    // A valid code no discount action reaches costs nothing, which a client would otherwise only guess from a 0.
    const missing = await couponDiscountMissing(db, coupon_code);
    const webhook =
      missing !== undefined && (await replies.subscribed('GetDiscount'))
        ? '; a GetDiscount webhook may still discount it (it gets the code as campaign_code)'
        : '';
    const shape = (answer: Row): Row =>
      missing === undefined
        ? answer
        : {
            ...answer,
            warnings: [
              `coupon_code: "${coupon_code}" is applied but no discount method gives it a discount: ${missing}${webhook}. A coupon discounts through an enabled discount method with a discount rule of type "CouponCode" whose target is the code, and an active discount action`,
            ],
          };
    const kept = keptAnswer(request);
    const answer = await saved(c, cart, { coupon_code }, { shape, kept });
    return kept?.send(reply) ?? answer;
  });

  app.get('/carts/:id/payment_methods', { config: read }, async (request) => {
    await cartOf(c, request);
    const methods = await db
      .selectFrom('payment_methods')
      .select(['id', 'name', 'payment_type'])
      .where('is_hidden', '=', false)
      .orderBy('sort_order')
      .orderBy('id')
      .execute();
    // Method 0 takes a card without a gateway; every store has it.
    const list = [
      { payment_method_id: 0, name: 'Credit Card', payment_type: 'CreditCard' },
      ...methods.map((m) => ({ payment_method_id: Number(m.id), name: m.name, payment_type: m.payment_type })),
    ];
    return { total_count: list.length, payment_methods: list };
  });

  // Prices, discounts and tax may change at any time (webhooks answer them), so this is never a cached answer.
  const calculated: ResourceRouteConfig = { ...read, alwaysFresh: true, touches: ['cart_items'] };
  app.get('/carts/:id/calculated', { config: calculated }, async (request) => {
    const cart = await cartOf(c, request);
    // A placed cart is closed for good: its figures are the order's, never computed (or repriced) again.
    if (isPlaced(cart)) return (await c.cartRecords.get(Number(cart.id), ['items'])) ?? cart;
    return saved(c, cart);
  });

  const orderEvents = placeOrderEvents(c.options);
  const touchesAll: ResourceRouteConfig = {
    ...write,
    touches: [
      'cart_items',
      'customers',
      'addresses',
      'orders',
      'order_items',
      'order_addresses',
      'order_payments',
      'coupon_codes',
      'products',
    ],
  };
  // The schema's problems and the body's missing parts are answered together (attachValidation keeps the first for here).
  app.post(
    '/carts/:id/place_order',
    { config: { ...touchesAll, answerInWrite: true }, schema: { body: placeOrderSchema }, attachValidation: true },
    async (request, reply) => {
      const validation = (request.validationError as FastifyError | undefined)?.validation;
      const schemaProblems = validation === undefined ? [] : validationProblems(validation);
      if (schemaProblems.length > 0)
        throw new ApiError(400, [...new Set([...schemaProblems, ...placeOrderProblems(request.body)])].join('; '));
      const cart = await openCartOf(c, request);
      const kept = keptAnswer(request);
      const answer = await placeOrder({ ...c.options, replies, events: orderEvents }, cart, request.body as PlaceOrderBody, c.now(), kept);
      return kept?.send(reply) ?? answer;
    },
  );
}
