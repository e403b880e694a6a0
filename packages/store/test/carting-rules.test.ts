/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- replies are JSON checked by assertions */
// The attacks of issue 32 on carts, coupons and stock, each as a storefront token with the orders scope would make
// it: rewriting carts through the generic resource routes, racing orders on a coupon's last use and on the last unit
// in stock, and money below zero.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Reply } from './support/store-under-test.ts';
import { describeOnEachDatabase } from './support/each-database.ts';

const address = { name: 'Jane Roe', address_line_1: '1 Main St', city: 'Austin', state: 'TX', postal_code: '78701', country: 'US' };
const card = { number: '4111 1111 1111 1111', name: 'Jane Roe', expiration_month: '12', expiration_year: '2099', cvv: '111' };

await describeOnEachDatabase('carting rules under attack', (s, target) => {
  let made = 0;

  const product = async (body: Record<string, unknown>) => {
    const reply = await s.call('POST', '/products', { body: { item_name: 'Widget', ...body } });
    assert.equal(reply.status, 201, reply.text);
    return reply.json as { id: number };
  };
  const cartWith = async (lines: { product_id: number; quantity: number }[], coupon?: string) => {
    const cart = (await s.call('POST', '/carts', { body: {} })).json as { id: number };
    const added = await s.call('POST', `/carts/${cart.id}/items`, { body: { items: lines } });
    assert.equal(added.status, 200, added.text);
    if (coupon !== undefined)
      assert.equal((await s.call('PUT', `/carts/${cart.id}/coupon_code`, { body: { coupon_code: coupon } })).status, 200);
    return { cart, lines: added.json.items as { id: number; price: number }[] };
  };
  const placeOrder = (cartId: number): Promise<Reply> => {
    made += 1;
    return s.call('POST', `/carts/${cartId}/place_order`, {
      body: {
        customer: { first_name: 'Jane', last_name: 'Roe', email: `jane${made}-${cartId}@example.com` },
        billing_address: address,
        use_billing_address_for_shipping: true,
        credit_card: card,
      },
    });
  };
  const orderCount = async () => (await s.call('GET', '/orders?count=1&fields=id')).json.total_count as number;

  test("PUT /cart_items cannot set a line's price: the order is priced from the product", async () => {
    const pricey = await product({ price: 5000 });
    const { cart, lines } = await cartWith([{ product_id: pricey.id, quantity: 1 }]);
    const line = lines[0];
    assert.ok(line !== undefined);
    const rewritten = await s.call('PUT', `/cart_items/${line.id}`, { body: { price: 0.01, cost: 0 } });
    assert.equal(rewritten.status, 200, rewritten.text);
    assert.equal(rewritten.json.price, 5000, "the price stays the product's");
    const made = await s.call('POST', '/cart_items', { body: { cart_id: cart.id, product_id: pricey.id, quantity: 1, price: 0.01 } });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.json.price, 5000, "a new line takes the product's price");
    const placed = await placeOrder(cart.id);
    assert.equal(placed.status, 200, placed.text);
    const order = (await s.call('GET', `/orders/${placed.json.order_id}?expand=items`)).json;
    assert.equal(order.subtotal, 10000);
    assert.deepEqual(
      order.items.map((item: { price: number }) => item.price),
      [5000, 5000],
    );
  });

  test('POST /cart_items refuses a quantity below 1', async () => {
    const { cart } = await cartWith([{ product_id: (await product({ price: 3 })).id, quantity: 1 }]);
    for (const quantity of [-3, 0, null]) {
      const reply = await s.call('POST', '/cart_items', {
        body: { cart_id: cart.id, product_id: (await product({ price: 3 })).id, quantity },
      });
      assert.equal(reply.status, 400, `${String(quantity)}: ${reply.text}`);
    }
    const line = (await s.call('GET', `/carts/${cart.id}/items`)).json.cart_items[0];
    assert.equal((await s.call('PUT', `/cart_items/${line.id}`, { body: { quantity: -3 } })).status, 400);
  });

  test('a placed cart is closed for good: no lines added, changed, moved in or removed, and no reopening it', async () => {
    const widget = await product({ price: 7 });
    const { cart, lines } = await cartWith([{ product_id: widget.id, quantity: 1 }]);
    const other = await cartWith([{ product_id: widget.id, quantity: 1 }]);
    const placed = await placeOrder(cart.id);
    assert.equal(placed.status, 200, placed.text);
    const line = lines[0];
    assert.ok(line !== undefined);
    const orders = await orderCount();
    for (const [method, path, body] of [
      ['POST', '/cart_items', { cart_id: cart.id, product_id: widget.id, quantity: 1 }],
      ['PUT', `/cart_items/${line.id}`, { quantity: 50 }],
      ['PUT', `/cart_items/${other.lines[0]?.id}`, { cart_id: cart.id }],
      ['DELETE', `/cart_items/${line.id}`, undefined],
      ['POST', '/carts', { id: cart.id, associated_order_id: null }],
    ] as const) {
      const reply = await s.call(method, path, body === undefined ? {} : { body });
      assert.equal(reply.status, 409, `${method} ${path}: ${reply.text}`);
    }
    const again = await placeOrder(cart.id);
    assert.equal(again.status, 409, again.text);
    assert.equal(await orderCount(), orders, 'one order per cart');
    // Nor are its figures computed again (a GetPrice reply could otherwise reprice a placed cart's lines).
    const stored = (await s.call('GET', `/carts/${cart.id}`, { headers: { 'cache-control': 'no-cache' } })).json;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const figures = await s.call('GET', `/carts/${cart.id}/calculated`);
    assert.equal(figures.status, 200, figures.text);
    assert.equal(figures.json.subtotal, 7);
    assert.equal(figures.json.updated_at, stored.updated_at, 'nothing was written');
    const after = (await s.call('GET', `/carts/${cart.id}?expand=items`)).json;
    assert.equal(after.associated_order_id, placed.json.order_id);
    assert.deepEqual(
      after.items.map((item: { quantity: number }) => item.quantity),
      [1],
    );
  });

  test('four racing place_orders on one cart make one order', async () => {
    const { cart } = await cartWith([{ product_id: (await product({ price: 9 })).id, quantity: 1 }]);
    const orders = await orderCount();
    const answers = await Promise.all([1, 2, 3, 4].map(() => placeOrder(cart.id)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409, 409, 409], answers.map((a) => a.text).join('\n'));
    assert.equal(await orderCount(), orders + 1);
  });

  test('four racing orders on a coupon with max_uses 1: one gets it, the others are 409, and it counts one use', async () => {
    const code = `ONCE-${target.dialect}`;
    assert.equal((await s.call('POST', '/coupon_codes', { body: { coupon_code: code, is_active: true, max_uses: 1 } })).status, 201);
    const widget = await product({ price: 20 });
    const carts = await Promise.all([1, 2, 3, 4].map(() => cartWith([{ product_id: widget.id, quantity: 1 }], code)));
    const orders = await orderCount();
    const answers = await Promise.all(carts.map(({ cart }) => placeOrder(cart.id)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409, 409, 409], answers.map((a) => a.text).join('\n'));
    for (const refused of answers.filter((a) => a.status === 409)) assert.match(refused.json.details, new RegExp(`${code}.*used up`));
    assert.equal(await orderCount(), orders + 1);
    const coupon = (await s.call('GET', `/coupon_codes?coupon_code=${code}`)).json.coupon_codes[0];
    assert.equal(coupon.usage_count, 1);
  });

  test('stock: of two racing orders for the last unit one succeeds, an order for 5 is 409 naming the product, and the inventory routes see 0', async () => {
    const last = await product({ item_name: 'Last one', price: 15, quantity_on_hand: 1 });
    const racing = await Promise.all([1, 2].map(() => cartWith([{ product_id: last.id, quantity: 1 }])));
    const answers = await Promise.all(racing.map(({ cart }) => placeOrder(cart.id)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409], answers.map((a) => a.text).join('\n'));
    const refused = answers.find((a) => a.status === 409);
    assert.match(refused?.json.details, new RegExp(`product ${last.id} \\(Last one\\)`));
    const five = await cartWith([{ product_id: last.id, quantity: 5 }]);
    const big = await placeOrder(five.cart.id);
    assert.equal(big.status, 409, big.text);
    assert.match(big.json.details, /Last one/);
    assert.equal((await s.call('GET', `/inventory?product_id=${last.id}`)).json.quantity, 0);
    assert.equal((await s.call('GET', `/products/${last.id}`)).json.quantity_on_hand, 0);
  });

  test('stock: a back-ordered product may go below 0; a non-inventory one, or one without a quantity, keeps no count', async () => {
    const backOrdered = await product({ price: 4, quantity_on_hand: 1, product_status_id: 3 });
    const untracked = await product({ price: 4, quantity_on_hand: 0, is_non_inventory: true });
    const uncounted = await product({ price: 4 });
    const { cart } = await cartWith([
      { product_id: backOrdered.id, quantity: 5 },
      { product_id: untracked.id, quantity: 2 },
      { product_id: uncounted.id, quantity: 2 },
    ]);
    const placed = await placeOrder(cart.id);
    assert.equal(placed.status, 200, placed.text);
    assert.equal((await s.call('GET', `/inventory?product_id=${backOrdered.id}`)).json.quantity, -4);
    assert.equal((await s.call('GET', `/products/${untracked.id}`)).json.quantity_on_hand, 0);
    assert.equal((await s.call('GET', `/products/${uncounted.id}`)).json.quantity_on_hand, null);
  });

  test('lines raced against place_order: each added line is in the order or refused 409, never left on the placed cart', async () => {
    const widget = await product({ price: 2 });
    for (let round = 0; round < 6; round += 1) {
      const { cart } = await cartWith([{ product_id: widget.id, quantity: 1 }]);
      // The generic route and the carting API, racing the order: each either lands before the order is written or is refused.
      const [placed, ...added] = await Promise.all([
        placeOrder(cart.id),
        ...[1, 2, 3].map(() => s.call('POST', '/cart_items', { body: { cart_id: cart.id, product_id: widget.id, quantity: 1 } })),
        s.call('POST', `/carts/${cart.id}/items`, { body: { items: [{ product_id: widget.id, quantity: 2 }] } }),
      ]);
      for (const reply of added) assert.ok([200, 201, 409].includes(reply.status), reply.text);
      const lines = (await s.call('GET', `/carts/${cart.id}?expand=items`, { headers: { 'cache-control': 'no-cache' } })).json.items as {
        quantity: number;
      }[];
      const inCart = lines.reduce((sum, line) => sum + line.quantity, 0);
      if (placed.status === 200) {
        const order = (await s.call('GET', `/orders/${placed.json.order_id}?expand=items`)).json;
        const ordered = (order.items as { quantity: number }[]).reduce((sum, item) => sum + item.quantity, 0);
        assert.equal(inCart, ordered, `round ${round}: the placed cart holds exactly what was ordered`);
      } else assert.match(placed.json.details, /changed while the order was being placed/, placed.text);
    }
  });

  test('stock: a product kept per variant takes the order off the variant inventory row of the chosen variants', async () => {
    const shirt = await product({ item_name: 'Shirt', item_number: 'SH', price: 10, quantity_on_hand: 100, use_variant_inventory: true });
    const variant = async (extension: string, order: number) => {
      const reply = await s.call('POST', '/product_variants', {
        body: { product_id: shirt.id, description: extension, item_number_extension: extension, item_number_sort_order: order },
      });
      assert.equal(reply.status, 201, reply.text);
      return reply.json as { id: number };
    };
    const red = await variant('-R', 1);
    const large = await variant('-L', 2);
    const row = async (itemNumber: string, inventory: number) =>
      (await s.call('POST', '/variant_inventory', { body: { product_id: shirt.id, item_number: itemNumber, inventory } })).json as {
        id: number;
      };
    const redLarge = await row('SH-R-L', 2);
    const other = await row('SH-R', 9);
    const cart = (await s.call('POST', '/carts', { body: {} })).json as { id: number };
    const added = await s.call('POST', `/carts/${cart.id}/items`, {
      body: { items: [{ product_id: shirt.id, quantity: 2, variant_ids: [large.id, red.id] }] },
    });
    assert.equal(added.status, 200, added.text);
    const placed = await placeOrder(cart.id);
    assert.equal(placed.status, 200, placed.text);
    assert.equal((await s.call('GET', `/inventory?variant_inventory_id=${redLarge.id}`)).json.quantity, 0);
    assert.equal((await s.call('GET', `/variant_inventory/${other.id}`)).json.inventory, 9, 'another combination keeps its stock');
    assert.equal((await s.call('GET', `/products/${shirt.id}`)).json.quantity_on_hand, 100, "the product's own count is not the variant's");
    const more = (await s.call('POST', '/carts', { body: {} })).json as { id: number };
    assert.equal(
      (
        await s.call('POST', `/carts/${more.id}/items`, {
          body: { items: [{ product_id: shirt.id, quantity: 1, variant_ids: [red.id, large.id] }] },
        })
      ).status,
      200,
    );
    const refused = await placeOrder(more.id);
    assert.equal(refused.status, 409, refused.text);
    assert.match(refused.json.details, new RegExp(`product ${shirt.id} \\(Shirt\\) variant inventory ${redLarge.id}: not enough in stock`));
  });

  test('money below zero is refused where the platform cannot mean it (price -50 was a 201)', async () => {
    const negative = await s.call('POST', '/products', { body: { item_name: 'Pays you', price: -50 } });
    assert.equal(negative.status, 400, negative.text);
    assert.match(negative.json.details, /price: must be >= 0/);
    const widget = await product({ price: 1 });
    for (const body of [{ price: -0.01 }, { cost: -1 }, { retail: -5 }])
      assert.equal((await s.call('PUT', `/products/${widget.id}`, { body })).status, 400, JSON.stringify(body));
    assert.equal((await s.call('POST', '/orders', { body: { grand_total: -10 } })).status, 400);
    // Adjustments stay signed: a variant may cost less than its product.
    const cheaper = await s.call('POST', '/product_variants', { body: { product_id: widget.id, price_adjustment: -2 } });
    assert.equal(cheaper.status, 201, cheaper.text);
  });
});
