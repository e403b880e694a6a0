// `store seed --demo`: the demo data (demo-catalog.ts) written through the store's write path (records) and its
// carting routes (carts and orders), in process (no server needs to run), with a token made for the purpose and
// revoked at the end. A store that already has products is
// left alone: the same seed on an empty store makes the same records with the same ids every time.
import type { FastifyInstance } from 'fastify';
import { createApp, findApp } from '../auth/apps.ts';
import { createConsoleToken, revokeToken } from '../auth/tokens.ts';
import type { Row, StoreDatabase } from '../db/schema.ts';
import { resourceNamed } from '../model/registry.ts';
import type { RecordWrites } from '../resources/record-writes.ts';
import { demoData, DEMO_SEED, type DemoData } from './demo-catalog.ts';

export interface SeedCounts {
  categories: number;
  products: number;
  variants: number;
  pictures: number;
  customers: number;
  carts: number;
  orders: number;
  shippingMethods: number;
  coupons: number;
}

const DEMO_CARD = { number: '4111 1111 1111 1111', name: 'Demo Customer', expiration_month: '12', expiration_year: '2099', cvv: '123' };

export class SeedRefused extends Error {}

/** Fills an empty store with the demo data through `app` (a store app built on `database`, not listening). */
export async function seedDemo(app: FastifyInstance, database: StoreDatabase, storeId: number, seed = DEMO_SEED): Promise<SeedCounts> {
  const existing = await database.db.selectFrom('products').select('id').limit(1).executeTakeFirst();
  if (existing !== undefined)
    throw new SeedRefused('the store already has products; run `store reset` first to seed it with the demo data');
  const ctx = app.storeAuth;
  const client =
    (await findApp(ctx, { name: 'Demo data', storeId })) ?? (await createApp(ctx, storeId, { name: 'Demo data', kind: 'custom' })).app;
  const issued = await createConsoleToken(ctx, client, { scopes: 'system', label: 'store seed --demo' });
  try {
    return await send(app, app.recordWrites, issued.accessToken, demoData(seed));
  } finally {
    await revokeToken(ctx, storeId, issued.record.id);
  }
}

async function send(app: FastifyInstance, writes: RecordWrites, token: string, data: DemoData): Promise<SeedCounts> {
  // Undefined values are left out, as a JSON body leaves them.
  const create = async (resource: string, body: Row): Promise<Row> =>
    (
      await writes.upsertUnchecked(
        resourceNamed(resource),
        Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)),
      )
    ).row;
  const call = async (method: 'POST' | 'PUT', url: string, body: unknown): Promise<Record<string, unknown>> => {
    // In process, as a TLS-terminating proxy on loopback would hand it over.
    const reply = await app.inject({
      method,
      url: `/api/v1${url}`,
      payload: body as Record<string, unknown>,
      headers: { 'x-ac-auth-token': token, 'x-forwarded-proto': 'https', 'content-type': 'application/json' },
    });
    if (reply.statusCode >= 300) throw new Error(`${method} ${url}: ${reply.statusCode} ${reply.body}`);
    return reply.json();
  };
  const counts: SeedCounts = {
    categories: 0,
    products: 0,
    variants: 0,
    pictures: 0,
    customers: 0,
    carts: 0,
    orders: 0,
    shippingMethods: 0,
    coupons: 0,
  };
  for (const method of data.shippingMethods) {
    await call('POST', '/custom_shipping_methods', { ...method, is_enabled: true });
    counts.shippingMethods += 1;
  }
  // A coupon's amount is its discount method's: a rule of type CouponCode targeting the code, and an action (docs/store-api.md).
  for (const coupon of data.coupons) {
    await call('POST', '/coupon_codes', { coupon_code: coupon.coupon_code, is_active: true });
    const method = Number((await call('POST', '/discount_methods', { name: coupon.method, is_enabled: true })).id);
    await call('POST', '/discount_rules', { discount_method_id: method, type: 'CouponCode', target: coupon.coupon_code });
    await call('POST', '/discount_actions', {
      discount_method_id: method,
      is_active: true,
      modifier_type: coupon.modifier_type,
      modifier_amount: coupon.modifier_amount,
    });
    counts.coupons += 1;
  }
  const categoryIds = new Map<string, number>();
  for (const [index, name] of data.categories.entries()) {
    const made = await create('categories', { name, parent_category_id: 1, sort_order: index + 1, is_category_content_displayed: true });
    categoryIds.set(name, Number(made.id));
    counts.categories += 1;
  }
  const sizeGroup = data.products.some((p) => p.sizes.length > 0)
    ? Number((await create('variant_groups', { name: 'Size', sort_order: 1 })).id)
    : undefined;
  const products: { id: number; variants: number[] }[] = [];
  for (const product of data.products) {
    const { images, sizes, category, ...fields } = product;
    const made = await create('products', {
      ...fields,
      primary_category_id: categoryIds.get(category),
      product_status_id: 1,
      use_variant_inventory: sizes.length > 0,
    });
    const id = Number(made.id);
    await call('PUT', `/products/${id}/categories/${categoryIds.get(category) ?? 1}`, {});
    for (const [i, image] of images.entries()) {
      await create('product_pictures', {
        product_id: id,
        image_file: image,
        thumbnail_file: image.replace('.jpg', '-thumb.jpg'),
        alt: product.item_name,
        is_primary: i === 0,
        sort_order: i + 1,
      });
      counts.pictures += 1;
    }
    const variants: number[] = [];
    for (const [i, size] of sizes.entries()) {
      const variant = await create('product_variants', {
        product_id: id,
        variant_group_id: sizeGroup,
        ...size,
        sort_order: i + 1,
        item_number_sort_order: i + 1,
        is_default_selection: i === 0,
      });
      variants.push(Number(variant.id));
      // Stock kept per size (the product's use_variant_inventory): orders take it off these rows.
      await create('variant_inventory', {
        product_id: id,
        item_number: `${product.item_number}${size.item_number_extension}`,
        inventory: product.quantity_on_hand,
      });
      counts.variants += 1;
    }
    products.push({ id, variants });
    counts.products += 1;
  }
  const customers: number[] = [];
  for (const customer of data.customers) {
    const { first_name, last_name, email, phone_number } = customer;
    const made = await create('customers', { first_name, last_name, email, phone_number, customer_type_id: 1, source: 'Demo' });
    customers.push(Number(made.id));
    counts.customers += 1;
  }
  for (const cart of data.carts) {
    const customerId = cart.customer === undefined ? undefined : customers[cart.customer];
    const made = await create('carts', customerId === undefined ? {} : { customer_id: customerId });
    const cartId = Number(made.id);
    const items = cart.lines.map((line) => {
      const product = products[line.product];
      const variant = line.size === undefined ? undefined : product?.variants[line.size];
      return { product_id: product?.id, quantity: line.quantity, ...(variant === undefined ? {} : { variant_ids: [variant] }) };
    });
    await call('POST', `/carts/${cartId}/items`, { items });
    if (cart.coupon !== undefined) await call('PUT', `/carts/${cartId}/coupon_code`, { coupon_code: cart.coupon });
    counts.carts += 1;
    if (!cart.placed || cart.customer === undefined || customerId === undefined) continue;
    const customer = data.customers[cart.customer];
    await call('POST', `/carts/${cartId}/place_order`, {
      customer: { id: customerId },
      billing_address: customer?.address,
      use_billing_address_for_shipping: true,
      credit_card: { ...DEMO_CARD, name: customer?.address.name },
    });
    counts.orders += 1;
  }
  return counts;
}
