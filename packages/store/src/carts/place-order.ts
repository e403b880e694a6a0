// POST /carts/{id}/place_order: the customer (found or made), their address, the order's addresses, the
// order with its items, and its payment, all in one transaction, with the webhook events of the new
// customer and order queued in it. No gateway is called.
import type { AnswerInWrite } from '../http/answer-in-write.ts';
import { ID_RANGE, idSchema } from '../http/record-id.ts';
import type { Kysely } from 'kysely';
import { ApiError } from '../model/api-error.ts';
import { dialectSqlOf } from '../db/dialects/of.ts';
import { runSteps } from '../db/group-commit.ts';
import { textOf, type Row, type StoreSchema } from '../db/schema.ts';
import { encryptedFieldsOf, rowShaper } from '../records/row-shape.ts';
import { resourceNamed } from '../model/registry.ts';
import type { ReplyAsker } from '../webhooks/reply-events.ts';
import { announceQueued, resourceWriteEvents, type WriteEvents } from '../webhooks/resource-events.ts';
import { cartFigures, type CartFigures } from './cart-pricing.ts';
import { lockOpenCart } from './cart-rules.ts';
import { askCheckoutMessages } from './cart-questions.ts';
import type { CartRoutesOptions } from './cart-routes-options.ts';
import { checkCard, type CardInput } from './payment-card.ts';

interface PersonInput {
  id?: number;
  first_name?: string;
  last_name?: string;
  email?: string;
  company?: string;
  phone?: string;
  alternate_phone?: string;
  fax?: string;
}

interface AddressInput {
  id?: number;
  name?: string;
  address_line_1?: string;
  address_line_2?: string;
  city?: string;
  state?: string;
  postal_code?: string;
  country?: string;
  notes?: string;
}

export interface PlaceOrderBody {
  customer: PersonInput;
  billing_address: AddressInput;
  shipping_address?: AddressInput;
  use_billing_address_for_shipping?: boolean;
  gift_message?: string;
  public_comments?: string;
  private_comments?: string;
  instructions?: string;
  payment_method_id?: number;
  credit_card?: CardInput;
  customer_payment_method_id?: number;
}

const text = (max: number) => ({ type: ['string', 'null'], maxLength: max });
const cardPart = { type: ['string', 'integer'], maxLength: 30 };
const addressSchema = {
  type: 'object',
  properties: {
    id: idSchema,
    name: text(200),
    address_line_1: text(200),
    address_line_2: text(200),
    city: text(100),
    state: text(100),
    postal_code: { type: ['string', 'integer'], maxLength: 20 },
    country: text(100),
    notes: text(2000),
  },
};

export const placeOrderSchema = {
  type: 'object',
  required: ['customer', 'billing_address'],
  properties: {
    customer: {
      type: 'object',
      properties: {
        id: idSchema,
        first_name: text(100),
        last_name: text(100),
        email: text(255),
        company: text(255),
        phone: text(50),
        alternate_phone: text(50),
        fax: text(50),
      },
    },
    billing_address: addressSchema,
    shipping_address: addressSchema,
    use_billing_address_for_shipping: { type: 'boolean' },
    gift_message: text(2000),
    public_comments: text(2000),
    private_comments: text(2000),
    instructions: text(2000),
    payment_method_id: { type: 'integer', minimum: 0, maximum: ID_RANGE.maximum },
    credit_card: {
      type: 'object',
      properties: { number: cardPart, name: text(200), expiration_month: cardPart, expiration_year: cardPart, cvv: cardPart },
    },
    customer_payment_method_id: idSchema,
  },
};

const addressFields = ['address_line_1', 'city', 'state', 'postal_code', 'country'] as const;

/** Required parts of an address given without an id; prefix names it in the message. */
function addressProblems(address: AddressInput | undefined, prefix: string): string[] {
  if (address === undefined) return [`${prefix}: is required`];
  if (address.id !== undefined) return [];
  return (['name', ...addressFields] as const)
    .filter((name) => String(address[name] ?? '').trim() === '')
    .map((name) => `${prefix}.${name}: is required`);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What the body lacks beyond its schema: the parts of a customer or an address given without an id. Read from a
 * body the schema may have refused too, so that the route answers both kinds of problem at once.
 */
export function placeOrderProblems(body: unknown): string[] {
  if (!isObject(body)) return [];
  const { customer } = body;
  const address = (value: unknown, prefix: string) =>
    value === undefined ? [`${prefix}: is required`] : isObject(value) ? addressProblems(value, prefix) : [];
  const blank = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
  return [
    ...(isObject(customer) && customer.id === undefined
      ? (['first_name', 'last_name', 'email'] as const)
          .filter((name) => blank(customer[name]))
          .map((name) => `customer.${name}: is required`)
      : []),
    ...(body.billing_address === undefined ? [] : address(body.billing_address, 'billing_address')),
    ...(body.use_billing_address_for_shipping === true ? [] : address(body.shipping_address, 'shipping_address')),
  ];
}

function splitName(name: string | undefined): { first_name: string; last_name: string } {
  const parts = String(name ?? '')
    .trim()
    .split(/\s+/);
  return { first_name: parts.slice(0, -1).join(' ') || (parts[0] ?? ''), last_name: parts.length > 1 ? (parts.at(-1) ?? '') : '' };
}

type Db = Kysely<StoreSchema>;

async function existing(trx: Db, table: string, id: number, what: string): Promise<Row> {
  const row = await trx.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst();
  if (row === undefined) throw new ApiError(409, `${what}: there is no record with id ${id}`);
  return row;
}

/** The events placing an order sends: CustomerCreated for a customer it makes; NewOrder, NewValidOrder and OrderPlaced. */
export interface PlaceOrderEvents {
  customers: WriteEvents | undefined;
  orders: WriteEvents | undefined;
}

const asCustomer = rowShaper(resourceNamed('customers'));
const asOrder = rowShaper(resourceNamed('orders'));
const asCart = rowShaper(resourceNamed('carts'));
const asCartItem = rowShaper(resourceNamed('cart_items'));

export function placeOrderEvents(options: Pick<CartRoutesOptions, 'database'>): PlaceOrderEvents {
  return {
    customers: resourceWriteEvents(options.database, resourceNamed('customers')),
    orders: resourceWriteEvents(options.database, resourceNamed('orders')),
  };
}

export interface PlaceOrderContext extends CartRoutesOptions {
  replies: ReplyAsker;
  events: PlaceOrderEvents;
}

/** A record as the API answers it, without the fields kept encrypted (webhook bodies never carry them). */
async function recordOf(db: Db, resourceName: string, id: number): Promise<Row | undefined> {
  const resource = resourceNamed(resourceName);
  const row = await db.selectFrom(resource.table).selectAll().where('id', '=', id).executeTakeFirst();
  if (row === undefined) return undefined;
  const record = rowShaper(resource)(row);
  for (const name of encryptedFieldsOf(resource)) delete record[name];
  return record;
}

/** ValidateCart and ValidateCheckout: what their subscribers object to in this order, before anything is written. */
async function checkoutMessages(
  context: PlaceOrderContext,
  cart: Row,
  lines: readonly Row[],
  figures: CartFigures,
  body: PlaceOrderBody,
): Promise<string[]> {
  const { replies } = context;
  const { db } = context.database;
  if (!(await replies.subscribed('ValidateCart')) && !(await replies.subscribed('ValidateCheckout'))) return [];
  const address = async (given: AddressInput | undefined) =>
    given?.id === undefined ? { ...given } : ((await recordOf(db, 'addresses', given.id)) ?? { ...given });
  const billingAddress = await address(body.billing_address);
  const paymentMethodId = body.payment_method_id ?? 0;
  const method =
    paymentMethodId === 0
      ? undefined
      : await db.selectFrom('payment_methods').select('name').where('id', '=', paymentMethodId).executeTakeFirst();
  return askCheckoutMessages(replies, {
    cart: { ...asCart({ ...cart, ...figures }), items: lines.map(asCartItem) },
    customer:
      body.customer.id === undefined ? { ...body.customer } : ((await recordOf(db, 'customers', body.customer.id)) ?? { ...body.customer }),
    billingAddress,
    shippingAddress: body.use_billing_address_for_shipping === true ? billingAddress : await address(body.shipping_address),
    isGift: typeof body.gift_message === 'string' && body.gift_message !== '',
    giftMessage: body.gift_message ?? null,
    comments: body.public_comments ?? null,
    shippingMethod: typeof cart.selected_shipping_method === 'string' ? cart.selected_shipping_method.split(';').slice(2).join(';') : null,
    payment: { name: paymentMethodId === 0 ? 'Credit Card' : textOf(method?.name), amount: figures.grand_total },
  });
}

/**
 * Counts the coupon's use only while it has uses left, in the order's transaction: of racing orders on a coupon's
 * last use one gets it, and the others are 409 and write nothing. A max_uses of 0 (or none) is no limit.
 */
async function useCoupon(trx: Db, code: string): Promise<void> {
  const used = await trx
    .updateTable('coupon_codes')
    .set((eb) => ({ usage_count: eb(eb.fn.coalesce('usage_count', eb.lit(0)), '+', 1) }))
    .where('coupon_code', '=', code)
    .where((eb) =>
      eb.or([eb('max_uses', 'is', null), eb('max_uses', '<=', 0), eb(eb.fn.coalesce('usage_count', eb.lit(0)), '<', eb.ref('max_uses'))]),
    )
    .executeTakeFirst();
  if (Number(used.numUpdatedRows) < 1)
    throw new ApiError(409, `coupon_code: "${code}" is used up (or no longer exists); remove it from the cart or use another`);
}

const yes = (value: unknown) => value === true || Number(value) === 1;

/** Where a line's stock is kept: its product's `quantity_on_hand`, or one variant inventory row's `inventory`. */
type StockKey = `product:${number}` | `variant:${number}`;

/**
 * The variant inventory row of a line's chosen variants, for a product that keeps stock per variant
 * (`use_variant_inventory`): the row of that product whose item number is the product's followed by the chosen
 * variants' `item_number_extension`s, in their `item_number_sort_order` (the full item number an order item keeps).
 */
async function variantRowOf(trx: Db, productId: number, line: Row): Promise<number | undefined> {
  let chosen: unknown;
  try {
    chosen = JSON.parse(textOf(line.variants ?? '[]'));
  } catch {
    return undefined;
  }
  const ids = Array.isArray(chosen)
    ? chosen.map((variant: { id?: unknown }) => Number(variant.id)).filter((id) => Number.isInteger(id) && id > 0)
    : [];
  if (ids.length === 0) return undefined;
  const product = await trx
    .selectFrom('products')
    .select(['item_number', 'use_variant_inventory'])
    .where('id', '=', productId)
    .executeTakeFirst();
  if (product === undefined || !yes(product.use_variant_inventory)) return undefined;
  const variants = await trx
    .selectFrom('product_variants')
    .select(['id', 'item_number_extension', 'item_number_sort_order'])
    .where('id', 'in', ids)
    .execute();
  variants.sort((a, b) => Number(a.item_number_sort_order ?? 0) - Number(b.item_number_sort_order ?? 0) || Number(a.id) - Number(b.id));
  const full = `${textOf(product.item_number ?? '')}${variants.map((v) => textOf(v.item_number_extension ?? '')).join('')}`;
  const row = await trx
    .selectFrom('variant_inventory')
    .select('id')
    .where('product_id', '=', productId)
    .where('item_number', '=', full)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.id);
}

/**
 * Takes the lines' quantities off where their stock is kept, in the order's transaction, each place once and in a
 * fixed order (so racing orders lock rows in one order): a variant inventory row for the chosen variants of a product
 * that keeps stock per variant (variantRowOf), else the product's `quantity_on_hand`. A product keeps no stock when it
 * is `is_non_inventory`, and a place none when its quantity is unset; one whose status is back-ordered
 * (`product_statuses.is_back_ordered`, the variant row's status before the product's) may go below 0; any other is
 * 409, naming the product, when the order wants more than there is.
 */
async function takeStock(trx: Db, lines: readonly Row[]): Promise<void> {
  const wanted = new Map<StockKey, { productId: number; quantity: number }>();
  for (const line of lines) {
    const productId = Number(line.product_id);
    if (!Number.isInteger(productId) || productId <= 0) continue;
    const variantRow = await variantRowOf(trx, productId, line);
    const key: StockKey = variantRow === undefined ? `product:${productId}` : `variant:${variantRow}`;
    wanted.set(key, { productId, quantity: (wanted.get(key)?.quantity ?? 0) + Number(line.quantity ?? 0) });
  }
  const order = (key: string) => [key.startsWith('product:') ? 0 : 1, Number(key.split(':')[1])] as const;
  const keys = [...wanted.keys()].sort((a, b) => order(a)[0] - order(b)[0] || order(a)[1] - order(b)[1]);
  for (const key of keys) {
    const { productId, quantity } = wanted.get(key) as { productId: number; quantity: number };
    const product = await trx
      .selectFrom('products')
      .leftJoin('product_statuses', 'product_statuses.id', 'products.product_status_id')
      .select(['products.item_name', 'products.quantity_on_hand', 'products.is_non_inventory', 'product_statuses.is_back_ordered'])
      .where('products.id', '=', productId)
      .executeTakeFirst();
    if (product === undefined || yes(product.is_non_inventory)) continue;
    let table: 'products' | 'variant_inventory' = 'products';
    let column: 'quantity_on_hand' | 'inventory' = 'quantity_on_hand';
    let rowId = productId;
    let onHand: unknown = product.quantity_on_hand;
    let backOrdered = yes(product.is_back_ordered);
    if (key.startsWith('variant:')) {
      rowId = Number(key.slice('variant:'.length));
      const row = await trx
        .selectFrom('variant_inventory')
        .leftJoin('product_statuses', 'product_statuses.id', 'variant_inventory.product_status_id')
        .select(['variant_inventory.inventory', 'variant_inventory.item_number', 'product_statuses.is_back_ordered'])
        .where('variant_inventory.id', '=', rowId)
        .executeTakeFirst();
      if (row === undefined) continue;
      [table, column, onHand] = ['variant_inventory', 'inventory', row.inventory];
      if (row.is_back_ordered !== null && row.is_back_ordered !== undefined) backOrdered = yes(row.is_back_ordered);
    }
    if (onHand === null || onHand === undefined) continue;
    let update = trx
      .updateTable(table)
      .set((eb) => ({ [column]: eb(column, '-', quantity) }))
      .where('id', '=', rowId);
    if (!backOrdered) update = update.where(column, '>=', quantity);
    const taken = await update.executeTakeFirst();
    if (Number(taken.numUpdatedRows) !== 1) {
      const what = table === 'products' ? '' : ` variant inventory ${rowId}`;
      throw new ApiError(
        409,
        `product ${productId} (${textOf(product.item_name)})${what}: not enough in stock for ${quantity}; ${textOf(onHand)} on hand when the order was checked`,
      );
    }
  }
}

/** What of a cart's lines the order is made from; a change to any of it between pricing and writing is a conflict. */
const linesKey = (lines: readonly Row[]) =>
  JSON.stringify(
    lines.map((line) => [line.id, line.product_id, line.quantity, line.price, line.variants, line.personalizations, line.updated_at]),
  );

/** What every step of writing an order is given: the transaction, and the request it writes. */
interface OrderWrite {
  trx: Db;
  context: PlaceOrderContext;
  cart: Row;
  body: PlaceOrderBody;
  now: Date;
  /** Inserts a row stamped with the order's time; its id. */
  insert: (table: string, row: Row) => Promise<number>;
}

/**
 * Locks the open cart and checks its lines are the ones priced. First, before any insert's foreign-key check
 * share-locks a product row: two orders that both held such a lock and then wanted to update the row would
 * deadlock on MariaDB. A line added or changed meanwhile either committed before (and is seen here) or waits and
 * then finds the cart placed; lines that changed since they were priced make the caller place it again.
 */
async function lockUnchangedCart({ trx, context, cart }: OrderWrite, priced: readonly Row[]): Promise<void> {
  await lockOpenCart(trx, context.database.dialect, Number(cart.id));
  const current = await trx.selectFrom('cart_items').selectAll().where('cart_id', '=', Number(cart.id)).orderBy('id').execute();
  if (linesKey(current) !== linesKey(priced))
    throw new ApiError(409, `cart ${String(cart.id)}: its lines changed while the order was being placed; place it again`);
}

/** The customer named by id, or a new one made from the body (CustomerCreated queued); an e-mail already known is 409. */
async function orderCustomer({ trx, context, body, now, insert }: OrderWrite): Promise<Row> {
  if (body.customer.id !== undefined) return existing(trx, 'customers', body.customer.id, 'customer.id');
  const email = String(body.customer.email).trim();
  if ((await trx.selectFrom('customers').select('id').where('email', '=', email).executeTakeFirst()) !== undefined) {
    throw new ApiError(409, `customer.email: a customer with ${email} already exists; send its id`);
  }
  const store = await trx.selectFrom('stores').select('id').orderBy('id').executeTakeFirst();
  const values = {
    first_name: body.customer.first_name,
    last_name: body.customer.last_name,
    email,
    company: body.customer.company ?? null,
    phone_number: body.customer.phone ?? null,
    alternate_phone_number: body.customer.alternate_phone ?? null,
    store_id: store?.id ?? null,
    customer_type_id: 1,
    registered_at: now.toISOString(),
    source: 'API',
  };
  const id = await insert('customers', values);
  const { customers } = context.events;
  if (customers !== undefined) await runSteps(trx, customers.created(asCustomer(await existing(trx, 'customers', id, 'customer.id'))));
  return { id, ...values };
}

/** The customer's address (given by id, or made), and the order's own copy of it; the copy's id. */
async function orderAddress(
  { trx, insert }: OrderWrite,
  customerId: number,
  input: AddressInput,
  type: 'Billing' | 'Shipping',
): Promise<number> {
  let address: Row;
  if (input.id !== undefined) {
    address = await existing(trx, 'addresses', input.id, `${type.toLowerCase()}_address.id`);
    if (Number(address.customer_id) !== customerId)
      throw new ApiError(409, `${type.toLowerCase()}_address.id: address ${input.id} is not the customer's`);
  } else {
    address = {
      customer_id: customerId,
      ...splitName(input.name),
      address_line_1: input.address_line_1,
      address_line_2: input.address_line_2 ?? null,
      city: input.city,
      state: input.state,
      postal_code: String(input.postal_code),
      country: input.country,
      comments: input.notes ?? null,
      address_type: type,
      [type === 'Billing' ? 'is_default_billing_address' : 'is_default_shipping_address']: true,
    };
    await insert('addresses', address);
  }
  const { first_name, last_name, company, address_line_1, address_line_2, city, state, postal_code, country, phone, comments } = address;
  return insert('order_addresses', {
    customer_id: customerId,
    first_name,
    last_name,
    company,
    address_line_1,
    address_line_2,
    city,
    state,
    postal_code,
    country,
    phone,
    comments,
    address_type: type,
  });
}

/** The order's billing and shipping address copies (one, when it ships to the billing address). */
async function orderAddresses(write: OrderWrite, customerId: number): Promise<{ billingId: number; shippingId: number }> {
  const { body } = write;
  const billingId = await orderAddress(write, customerId, body.billing_address, 'Billing');
  const shippingId =
    body.use_billing_address_for_shipping === true
      ? billingId
      : await orderAddress(write, customerId, body.shipping_address ?? {}, 'Shipping');
  return { billingId, shippingId };
}

/** The payment row's own fields: a card (given, or on file for the customer), or a payment method by id. */
async function orderPayment({ trx, context, body, now }: OrderWrite, customerId: number): Promise<Row> {
  const paymentMethodId = body.payment_method_id ?? 0;
  if (paymentMethodId !== 0) {
    const method = await existing(trx, 'payment_methods', paymentMethodId, 'payment_method_id');
    if (method.is_hidden === true || Number(method.is_hidden) === 1)
      throw new ApiError(409, `payment_method_id: payment method ${paymentMethodId} is not available`);
    return { payment_method_id: paymentMethodId, payment_type: method.payment_type ?? 'Custom', payment_method_name: method.name };
  }
  let card;
  if (body.credit_card?.number === undefined && body.customer_payment_method_id !== undefined) {
    // A card on file: its stored last four and expiry; the number was never kept.
    const method = await existing(trx, 'customer_payment_methods', body.customer_payment_method_id, 'customer_payment_method_id');
    if (Number(method.customer_id) !== customerId)
      throw new ApiError(409, 'customer_payment_method_id: not a payment method of this customer');
    const stored =
      method.card_id === null
        ? undefined
        : await trx.selectFrom('credit_cards').selectAll().where('id', '=', Number(method.card_id)).executeTakeFirst();
    if (stored === undefined) throw new ApiError(409, 'customer_payment_method_id: no card on file for this payment method');
    card = {
      lastFour: textOf(stored.last_four),
      cardType: textOf(stored.card_type),
      name: null,
      month: stored.expiration_month,
      year: stored.expiration_year,
    };
  } else card = checkCard(body.credit_card, now);
  return {
    payment_method_id: 0,
    payment_type: 'CreditCard',
    payment_method_name: 'Credit Card',
    card_type: card.cardType,
    last_four: card.lastFour,
    card_expiration_month: card.month,
    card_expiration_year: card.year,
    cardholder_name: typeof card.name === 'string' ? context.encrypt(card.name) : null,
    customer_payment_method_id: body.customer_payment_method_id ?? null,
  };
}

interface OrderParts {
  customer: Row;
  addresses: { billingId: number; shippingId: number };
  payment: Row;
  figures: CartFigures;
  lines: readonly Row[];
}

/** The order, its items and its payment; the order's id. */
async function writeOrder(
  { trx, cart, body, now, insert }: OrderWrite,
  { customer, addresses, payment, figures, lines }: OrderParts,
): Promise<number> {
  const customerId = Number(customer.id);
  const orderId = await insert('orders', {
    customer_id: customerId,
    customer_type_id: customer.customer_type_id ?? null,
    order_status_id: 1,
    ordered_at: now.toISOString(),
    order_type: 'Order',
    ...figures,
    selected_shipping_method:
      typeof cart.selected_shipping_method === 'string' ? cart.selected_shipping_method.split(';').slice(2).join(';') : null,
    coupon_code: cart.coupon_code ?? null,
    order_billing_address_id: addresses.billingId,
    order_shipping_address_id: addresses.shippingId,
    store_id: cart.store_id ?? customer.store_id ?? null,
    is_gift: body.gift_message !== undefined && body.gift_message !== null && body.gift_message !== '',
    gift_message: body.gift_message ?? null,
    public_comments: body.public_comments ?? null,
    admin_comments: body.private_comments ?? null,
    instructions: body.instructions ?? null,
    channel: 'Online',
    entered_by_type: 'API',
  });
  for (const item of lines) {
    const product = await trx
      .selectFrom('products')
      .select(['weight', 'is_non_taxable'])
      .where('id', '=', Number(item.product_id))
      .executeTakeFirst();
    await insert('order_items', {
      order_id: orderId,
      product_id: item.product_id,
      item_number: item.item_number,
      item_name: item.item_name,
      item_number_full: item.item_number,
      price: item.price,
      cost: item.cost,
      quantity: item.quantity,
      weight: Number(product?.weight ?? 0),
      is_taxable: !product?.is_non_taxable,
      variants: item.variants,
      personalizations: item.personalizations,
      warehouse_id: item.warehouse_id,
      is_subscription_product: Boolean(item.is_subscription_product),
    });
  }
  await insert('order_payments', {
    ...payment,
    order_id: orderId,
    customer_id: customerId,
    amount: figures.grand_total,
    transaction_type: 'None',
    is_approved: false,
    paid_at: now.toISOString(),
  });
  return orderId;
}

/** Closes the cart on the order: only a cart no order has claimed yet, so of two racing orders the second writes nothing. */
async function closeCart({ trx, cart, now }: OrderWrite, orderId: number, customerId: number, figures: CartFigures): Promise<void> {
  const claimed = await trx
    .updateTable('carts')
    .set({ associated_order_id: orderId, customer_id: customerId, ...figures, updated_at: now.toISOString() })
    .where('id', '=', Number(cart.id))
    .where('associated_order_id', 'is', null)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) throw new ApiError(409, `cart ${String(cart.id)} became an order already; open a new cart`);
}

/** NewOrder, NewValidOrder and OrderPlaced, queued in the order's transaction. */
async function queueOrderEvents({ trx, context }: OrderWrite, orderId: number): Promise<void> {
  const { orders } = context.events;
  if (orders !== undefined) await runSteps(trx, orders.placed(asOrder(await existing(trx, 'orders', orderId, 'order_id'))));
}

/** `kept`: an Idempotency-Key's answer, kept by the order's transaction. */
export async function placeOrder(
  context: PlaceOrderContext,
  cart: Row,
  body: PlaceOrderBody,
  now: Date,
  kept?: AnswerInWrite<Row>,
): Promise<Row> {
  const { events } = context;
  const { db } = context.database;
  const problems = placeOrderProblems(body);
  if (problems.length > 0) throw new ApiError(400, problems.join('; '));

  const items = await db.selectFrom('cart_items').selectAll().where('cart_id', '=', Number(cart.id)).orderBy('id').execute();
  if (items.length === 0) throw new ApiError(409, `cart ${String(cart.id)} has no items`);
  // Priced for the customer the order is for, when it names one.
  const { figures, lines } = await cartFigures(
    db,
    context.replies,
    { ...cart, customer_id: body.customer.id ?? cart.customer_id ?? null },
    items,
    now,
  );
  const messages = await checkoutMessages(context, cart, lines, figures, body);
  if (messages.length > 0) throw new ApiError(400, messages.join('; '));

  const stamp = now.toISOString();
  const answer = await db.transaction().execute(async (trx) => {
    const write: OrderWrite = {
      trx,
      context,
      cart,
      body,
      now,
      insert: (table, row) => dialectSqlOf(context.database).insertRow(trx, table, { ...row, created_at: stamp, updated_at: stamp }),
    };
    await lockUnchangedCart(write, items);
    await takeStock(trx, lines);
    if (typeof cart.coupon_code === 'string' && cart.coupon_code !== '') await useCoupon(trx, cart.coupon_code);
    const customer = await orderCustomer(write);
    const customerId = Number(customer.id);
    const addresses = await orderAddresses(write, customerId);
    const payment = await orderPayment(write, customerId);
    const orderId = await writeOrder(write, { customer, addresses, payment, figures, lines });
    await closeCart(write, orderId, customerId, figures);
    await queueOrderEvents(write, orderId);
    const placed = { order_id: orderId, order_approved: true, redirect_url: '', message: `Order Successfully Placed. OrderID ${orderId}` };
    await kept?.keep(trx, placed);
    return placed;
  });
  // Both asked, so neither keeps a stale flag.
  const queued = [events.customers?.takeQueued(), events.orders?.takeQueued()];
  if (queued.includes(true)) announceQueued(context.database);
  return answer;
}
