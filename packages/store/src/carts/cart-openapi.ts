// The carting API in the OpenAPI document: every body is the schema its route validates with, every answer has a
// schema, and each carries an example that works on a fresh store (Try it out starts from it).
import type { JsonSchema } from '../model/json-schema.ts';
import {
  addItemsSchema,
  chooseShippingSchema,
  couponSchema,
  estimationSchema,
  removeItemsSchema,
  updateItemsSchema,
} from './cart-routes.ts';
import { placeOrderSchema } from './place-order.ts';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema, example?: unknown) => ({
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
});
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [String(status), { description: 'Error', ...json(ref('Error')) }]));
const id = {
  parameters: [{ name: 'id', in: 'path', required: true, description: 'id of the cart', schema: { type: 'integer', minimum: 1 } }],
};

const shippingRate: JsonSchema = {
  type: 'object',
  required: ['identifier', 'total_charges'],
  properties: {
    shipping_provider_service_id: { type: 'integer' },
    custom_shipping_method_id: { type: ['integer', 'null'] },
    provider: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    identifier: { type: 'string', description: 'What PUT /carts/{id}/shipping takes to choose this rate' },
    total_charges: { type: 'number' },
    lead_time: { type: ['string', 'null'] },
  },
};
const shippingRates: JsonSchema = {
  type: 'object',
  required: ['total_count', 'rates'],
  properties: { total_count: { type: 'integer' }, rates: { type: 'array', items: shippingRate } },
};
const paymentMethods: JsonSchema = {
  type: 'object',
  required: ['total_count', 'payment_methods'],
  properties: {
    total_count: { type: 'integer' },
    payment_methods: {
      type: 'array',
      items: {
        type: 'object',
        required: ['payment_method_id', 'name'],
        properties: {
          payment_method_id: { type: 'integer', description: '0: a card, no gateway' },
          name: { type: ['string', 'null'] },
          payment_type: { type: ['string', 'null'] },
        },
      },
    },
  },
};
const placedOrder: JsonSchema = {
  type: 'object',
  required: ['order_id', 'order_approved', 'message'],
  properties: {
    order_id: { type: 'integer' },
    order_approved: { type: 'boolean' },
    redirect_url: { type: 'string' },
    message: { type: 'string' },
  },
};

const address = { name: 'John Doe', address_line_1: '123 Test St', city: 'Beaumont', state: 'TX', postal_code: '77702', country: 'US' };
const rateExample = {
  shipping_provider_service_id: 0,
  custom_shipping_method_id: 1,
  provider: 'Custom',
  name: '1',
  description: 'Free Ground Shipping',
  identifier: 'Custom;1;Free Ground Shipping',
  total_charges: 0,
  lead_time: null,
};

/** The bodies' examples, for the docs and for a test that places an order with them. */
export const cartExamples = {
  addItems: { items: [{ product_id: 1, quantity: 2 }] },
  updateItems: { items: [{ cart_item_id: 1, quantity: 3 }] },
  removeItems: { cart_item_ids: [1] },
  chooseShipping: { identifier: rateExample.identifier },
  estimation: { city: 'Beaumont', state_code: 'TX', postal_code: '77702', country_code: 'US' },
  coupon: { coupon_code: 'SAVE10' },
  placeOrder: {
    customer: { first_name: 'John', last_name: 'Doe', email: 'jdoe@example.com' },
    billing_address: address,
    use_billing_address_for_shipping: true,
    payment_method_id: 0,
    credit_card: { number: '4111111111111111', name: 'John Doe', expiration_month: '12', expiration_year: '2099', cvv: '111' },
  },
};

export function cartPaths(): Record<string, unknown> {
  const security = [{ token: [] }];
  const cartAnswer = { 200: { description: 'The cart with its items and recalculated totals', ...json(ref('Cart')) } };
  const operation = (
    summary: string,
    responses: Record<string, unknown>,
    body?: { schema: JsonSchema; example: unknown; required?: boolean },
  ) => ({
    tags: ['carts'],
    security,
    summary,
    ...(body === undefined ? {} : { requestBody: { required: body.required ?? true, ...json(body.schema, body.example) } }),
    responses: { ...responses, ...errors(400, 401, 403, 404, 409, 429) },
  });
  return {
    '/carts/{id}/items': {
      ...id,
      post: operation('Add items (the same product with the same choices adds to its line)', cartAnswer, {
        schema: addItemsSchema,
        example: cartExamples.addItems,
      }),
      put: operation('Change item quantities (0 takes a line out)', cartAnswer, {
        schema: updateItemsSchema,
        example: cartExamples.updateItems,
      }),
      delete: operation('Remove items (all of them without a body)', cartAnswer, {
        schema: removeItemsSchema,
        example: cartExamples.removeItems,
        required: false,
      }),
    },
    '/carts/{id}/shipping': {
      ...id,
      get: {
        ...operation('Shipping rates for an address', {
          200: { description: 'The rates this cart may choose', ...json(shippingRates, { total_count: 1, rates: [rateExample] }) },
        }),
        parameters: ['city', 'state', 'postal_code', 'country'].map((name) => ({
          name,
          in: 'query',
          required: true,
          description: `The address's ${name.replace('_', ' ')}`,
          schema: { type: 'string', minLength: 1 },
          example: (address as Record<string, string>)[name],
        })),
      },
      put: operation('Choose a shipping rate by its identifier', cartAnswer, {
        schema: chooseShippingSchema,
        example: cartExamples.chooseShipping,
      }),
    },
    '/carts/{id}/shipping_estimation': {
      ...id,
      put: operation('Set the address shipping is estimated for', cartAnswer, {
        schema: estimationSchema,
        example: cartExamples.estimation,
      }),
    },
    '/carts/{id}/coupon_code': {
      ...id,
      put: operation('Apply a coupon code (409 when it is not valid now)', cartAnswer, {
        schema: couponSchema,
        example: cartExamples.coupon,
      }),
    },
    '/carts/{id}/payment_methods': {
      ...id,
      get: operation('Payment methods for this cart (0: card, no gateway)', {
        200: {
          description: 'The methods',
          ...json(paymentMethods, {
            total_count: 1,
            payment_methods: [{ payment_method_id: 0, name: 'Credit Card', payment_type: 'CreditCard' }],
          }),
        },
      }),
    },
    '/carts/{id}/calculated': { ...id, get: operation('The cart with its totals recalculated', cartAnswer) },
    '/carts/{id}/place_order': {
      ...id,
      post: operation(
        'Place the order: customer, addresses, order, items and payment in one transaction',
        {
          200: {
            description: 'The order placed',
            ...json(placedOrder, { order_id: 1, order_approved: true, redirect_url: '', message: 'Order Successfully Placed. OrderID 1' }),
          },
        },
        { schema: placeOrderSchema, example: cartExamples.placeOrder },
      ),
    },
  };
}
