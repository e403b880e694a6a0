// The cart's events that expect a reply (the platform's docs/webhooks.md): GetPrice, GetDiscount and GetTax
// while its figures are computed, ValidateCart and ValidateCheckout before it becomes an order. Each builds
// the platform's request body and reads what the replies say; the asking (limit, cache_length, failure_type)
// is reply-events.ts's.
import type { Kysely } from 'kysely';
import { textOf, type Row, type StoreSchema } from '../db/schema.ts';
import { columnsOf } from '../model/declaration.ts';
import { resourceNamed } from '../model/registry.ts';
import { validationMessages, type Reply, type ReplyAsker } from '../webhooks/reply-events.ts';

const cents = (value: number) => Math.round(value * 100) / 100;
/** A finite number from a reply, or undefined: replies are untrusted JSON. */
const amount = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const sum = (values: readonly unknown[]) => values.reduce<number>((total, value) => total + (amount(value) ?? 0), 0);
const list = (value: unknown): Row[] =>
  Array.isArray(value) ? value.filter((entry): entry is Row => entry !== null && typeof entry === 'object') : [];

function variantsOf(line: Row): Row[] {
  try {
    return list(JSON.parse(textOf(line.variants ?? '[]')));
  } catch {
    return [];
  }
}

/** The customer type in effect: the cart's customer's, or none for a guest cart. */
export async function customerTypeOf(db: Kysely<StoreSchema>, customerId: unknown): Promise<number | null> {
  if (customerId === null || customerId === undefined) return null;
  const customer = await db.selectFrom('customers').select('customer_type_id').where('id', '=', Number(customerId)).executeTakeFirst();
  return customer?.customer_type_id === null || customer?.customer_type_id === undefined ? null : Number(customer.customer_type_id);
}

/**
 * GetPrice: a subscriber's price for an item number replaces the line's price (and its cost, when given); the
 * first subscription that prices an item number wins. Lines come back in their order, priced.
 */
export async function askPrices(replies: ReplyAsker, lines: readonly Row[], customerTypeId: number | null): Promise<Row[]> {
  if (lines.length === 0 || !(await replies.subscribed('GetPrice'))) return [...lines];
  const items = lines.map((line) => ({
    item_number: line.item_number ?? null,
    quantity: Number(line.quantity),
    variant_ids: variantsOf(line).map((v) => v.id),
    variant_inventory_id: null,
  }));
  const prices = new Map<string, Row>();
  for (const reply of await replies.ask('GetPrice', { items, customer_type_id: customerTypeId })) {
    for (const entry of list(reply.prices)) {
      const price = amount(entry.price);
      if (typeof entry.item_number === 'string' && price !== undefined && price >= 0 && !prices.has(entry.item_number))
        prices.set(entry.item_number, entry);
    }
  }
  return lines.map((line) => {
    const entry = typeof line.item_number === 'string' ? prices.get(line.item_number) : undefined;
    if (entry === undefined) return line;
    const cost = amount(entry.cost);
    return { ...line, price: cents(amount(entry.price) ?? 0), ...(cost === undefined ? {} : { cost: cents(cost) }) };
  });
}

/** What GetDiscount and GetTax say about each line's product. */
async function productFacts(db: Kysely<StoreSchema>, lines: readonly Row[]): Promise<Map<number, { product: Row; categoryIds: number[] }>> {
  const ids = [...new Set(lines.map((line) => Number(line.product_id)).filter((id) => Number.isInteger(id) && id > 0))];
  if (ids.length === 0) return new Map();
  const products = await db
    .selectFrom('products')
    .select(columnsOf(resourceNamed('products')))
    .where('id', 'in', ids)
    .execute();
  const links = await db.selectFrom('product_categories').select(['product_id', 'category_id']).where('product_id', 'in', ids).execute();
  return new Map(
    products.map((product) => [
      Number(product.id),
      {
        product,
        categoryIds: links.filter((link) => Number(link.product_id) === Number(product.id)).map((link) => Number(link.category_id)),
      },
    ]),
  );
}

/** The cart's shipping estimation address, the only destination a cart knows before checkout. */
function destinationOf(cart: Row): Row {
  return {
    city: cart.shipping_estimate_city ?? null,
    state: cart.shipping_estimate_state_code ?? null,
    postal_code: cart.shipping_estimate_postal_code ?? null,
    country: cart.shipping_estimate_country_code ?? null,
  };
}

export interface DiscountQuestion {
  cart: Row;
  lines: readonly Row[];
  customerTypeId: number | null;
  shippingTotal: number;
}

/**
 * GetDiscount: each reply's `discount` plus its `cart_items[].discount_amount` for lines of this cart, and its
 * `shipping_discount`, summed over the replies (each subscriber gives its own discounts). `add_items` is not
 * honoured: a discount does not put products in a cart.
 */
export async function askDiscounts(
  db: Kysely<StoreSchema>,
  replies: ReplyAsker,
  question: DiscountQuestion,
): Promise<{ discount: number; shippingDiscount: number }> {
  const { cart, lines } = question;
  if (lines.length === 0 || !(await replies.subscribed('GetDiscount'))) return { discount: 0, shippingDiscount: 0 };
  const facts = await productFacts(db, lines);
  const destination = destinationOf(cart);
  const weightOf = (line: Row) => Number(facts.get(Number(line.product_id))?.product.weight ?? 0) * Number(line.quantity);
  const items = lines.map((line) => {
    const product = facts.get(Number(line.product_id))?.product;
    return {
      cart_item_id: Number(line.id),
      product_id: Number(line.product_id),
      parent_product_id: line.parent_product_id ?? null,
      item_number: line.item_number ?? null,
      price: Number(line.price),
      quantity: Number(line.quantity),
      is_subscription_item: Boolean(line.is_subscription_product),
      category_id: facts.get(Number(line.product_id))?.categoryIds ?? [],
      manufacturer_id: product?.manufacturer_id ?? null,
      product_list_id: [],
      custom_fields: [],
      variants: variantsOf(line).map((v) => ({ group: v.variant_group_id ?? null, value: v.description ?? null })),
      destination_address: destination,
      origin_address: null,
      shipping_classification_code: null,
    };
  });
  const customerType =
    question.customerTypeId === null
      ? undefined
      : await db.selectFrom('customer_types').select('name').where('id', '=', question.customerTypeId).executeTakeFirst();
  const body = {
    cart_id: Number(cart.id),
    store_id: cart.store_id ?? null,
    campaign_code: cart.coupon_code ?? null,
    ad_code: null,
    customer_type_id: question.customerTypeId,
    customer_type: customerType?.name ?? null,
    billing_address: null,
    destination_address: destination,
    is_region_set: false,
    shipping_region_id: null,
    tax_region_id: null,
    items,
    shipping_method_list:
      typeof cart.selected_shipping_method === 'string'
        ? { ship_method: cart.selected_shipping_method, shipping_method_name: cart.selected_shipping_method.split(';').slice(2).join(';') }
        : null,
    shipping_total: question.shippingTotal,
    subscription_subtotal: cents(
      lines
        .filter((line) => Boolean(line.is_subscription_product))
        .reduce((total, line) => total + Number(line.price) * Number(line.quantity), 0),
    ),
    total_weight: cents(lines.reduce((total, line) => total + weightOf(line), 0)),
  };
  const lineIds = new Set(lines.map((line) => Number(line.id)));
  const answers = await replies.ask('GetDiscount', body);
  // The docs name the item entries' key `cart_id` ("must match the cart_id sent"); `cart_item_id` names a line of it.
  const ours = (entry: Row) =>
    entry.cart_item_id === undefined ? Number(entry.cart_id) === Number(cart.id) : lineIds.has(Number(entry.cart_item_id));
  const discount = sum(
    answers.flatMap((reply: Reply) => [
      reply.discount,
      ...list(reply.cart_items)
        .filter(ours)
        .map((entry) => entry.discount_amount),
    ]),
  );
  const shippingDiscount = sum(answers.map((reply) => reply.shipping_discount));
  return { discount: Math.max(0, cents(discount)), shippingDiscount: Math.max(0, cents(shippingDiscount)) };
}

export interface TaxQuestion {
  cart: Row;
  lines: readonly Row[];
  subtotal: number;
  /** Order-level discounts (coupon, GetDiscount), shared among the lines by their subtotals. */
  discountTotal: number;
  shippingTotal: number;
}

/**
 * GetTax: each reply's `items[].tax_amount` for lines of this cart, plus its `shipping_tax_amount` and
 * `handling_tax_amount`, summed over the replies. Without a GetTax subscriber a cart has no tax (0).
 */
export async function askTax(db: Kysely<StoreSchema>, replies: ReplyAsker, question: TaxQuestion): Promise<number> {
  const { cart, lines, subtotal } = question;
  if (lines.length === 0 || !(await replies.subscribed('GetTax'))) return 0;
  const facts = await productFacts(db, lines);
  const warehouseIds = [...new Set(lines.map((line) => Number(line.warehouse_id)).filter((id) => Number.isInteger(id) && id > 0))];
  const warehouses =
    warehouseIds.length === 0 ? [] : await db.selectFrom('warehouses').selectAll().where('id', 'in', warehouseIds).execute();
  const destination = destinationOf(cart);
  const items = lines.map((line) => {
    const product = facts.get(Number(line.product_id))?.product;
    const quantity = Number(line.quantity);
    const lineSubtotal = cents(Number(line.price) * quantity);
    const share = subtotal > 0 ? (question.discountTotal * lineSubtotal) / subtotal : 0;
    const warehouse = warehouses.find((w) => Number(w.id) === Number(line.warehouse_id));
    return {
      cart_item_id: Number(line.id),
      item_number: line.item_number ?? null,
      item_name: line.item_name ?? null,
      manufacturer_item_number: product?.manufacturer_item_number ?? null,
      price: Number(line.price),
      discounted_price: quantity > 0 ? cents((lineSubtotal - share) / quantity) : Number(line.price),
      quantity,
      is_tax_exempt: Boolean(product?.is_non_taxable),
      tax_code: product?.tax_code ?? null,
      line_item_subtotal: lineSubtotal,
      origin_address:
        warehouse === undefined
          ? null
          : {
              name: warehouse.name ?? null,
              address_line_1: warehouse.address_line_1 ?? null,
              city: warehouse.city ?? null,
              state: warehouse.state ?? null,
              postal_code: warehouse.postal_code ?? null,
              country: warehouse.country ?? null,
            },
      destination_address: destination,
    };
  });
  const lineIds = new Set(lines.map((line) => Number(line.id)));
  const answers = await replies.ask('GetTax', { items, shipping_total: question.shippingTotal, handling_total: 0 });
  const tax = sum(
    answers.flatMap((reply) => [
      ...list(reply.items)
        .filter((entry) => lineIds.has(Number(entry.cart_item_id)))
        .map((entry) => entry.tax_amount),
      reply.shipping_tax_amount,
      reply.handling_tax_amount,
    ]),
  );
  return Math.max(0, cents(tax));
}

export interface CheckoutQuestion {
  /** The cart as the API answers it, with its items and its figures now. */
  cart: Row;
  customer: Row;
  billingAddress: Row;
  shippingAddress: Row;
  isGift: boolean;
  giftMessage: string | null;
  comments: string | null;
  shippingMethod: string | null;
  payment: { name: string; amount: number };
}

/**
 * ValidateCart, then ValidateCheckout, asked together before a cart becomes an order: the validation messages
 * of every reply, all together (none: go ahead). Cart changes are not checked: a cart is a draft (a minimum order
 * amount would otherwise refuse its first item), and the check that counts is the one before the order.
 */
export async function askCheckoutMessages(replies: ReplyAsker, question: CheckoutQuestion): Promise<string[]> {
  const [cartReplies, checkoutReplies] = await Promise.all([
    replies.ask('ValidateCart', { cart: question.cart }),
    replies.ask('ValidateCheckout', {
      customer: question.customer,
      billing_address: question.billingAddress,
      shipping_address: question.shippingAddress,
      cart: question.cart,
      order_custom_fields: [],
      is_gift: question.isGift,
      gift_message: question.giftMessage,
      order_comments: question.comments,
      shipping_methods: question.shippingMethod === null ? [] : [question.shippingMethod],
      payment_methods: [question.payment],
    }),
  ]);
  return validationMessages([...cartReplies, ...checkoutReplies]);
}
