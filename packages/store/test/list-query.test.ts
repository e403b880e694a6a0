/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- replies are JSON checked by assertions */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { describeOnEachDatabase } from './support/each-database.ts';

const BULK = 250;
const named = [
  { item_number: 'N-1', item_name: 'Alpha widget', price: 10.5, quantity_on_hand: 1 },
  { item_number: 'N-2', item_name: 'Beta Widget', price: 20, quantity_on_hand: 2 },
  { item_number: 'N-3', item_name: 'Gamma gadget', price: 30, quantity_on_hand: 3 },
  { item_number: 'N-4', item_name: '100% cotton_cloth', price: 40, quantity_on_hand: 4 },
  { item_number: 'N-5', item_name: 'Delta', price: 99, quantity_on_hand: 5, is_hidden: true },
];

await describeOnEachDatabase('store lists and the query language', (s) => {
  const bulkIds: number[] = [];
  let namedStart = '';

  const names = async (query: string): Promise<string[]> => {
    const reply = await s.call('GET', `/products.json?item_number=startwith:N-&${query}`);
    assert.equal(reply.status, 200, `${query}: ${reply.text}`);
    return reply.json.products.map((p: { item_name: string }) => p.item_name).sort();
  };

  before(async () => {
    for (let i = 0; i < BULK; i += 1) {
      const reply = await s.call('POST', '/products', {
        body: {
          item_number: `B-${String(i).padStart(3, '0')}`,
          item_name: `Bulk ${i}`,
          price: i % 25,
          quantity_on_hand: i,
          is_hidden: i % 3 === 0,
        },
      });
      assert.equal(reply.status, 201, reply.text);
      bulkIds.push(reply.json.id);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
    namedStart = new Date().toISOString();
    for (const body of named) assert.equal((await s.call('POST', '/products', { body })).status, 201);
  });

  test('following next_page with count=7 visits every row once, and the pages add up to total_count', async () => {
    // Sorting on a column with many equal values is where paging without an id tiebreak skips and repeats.
    let url: string | undefined = `${s.api}/products.json?count=7&sort=-price&item_number=startwith:B-&fields=id,price`;
    const seen: number[] = [];
    let pages = 0;
    let total = -1;
    while (url !== undefined) {
      const reply = await s.call('GET', url);
      assert.equal(reply.status, 200, reply.text);
      total = reply.json.total_count;
      assert.ok(reply.json.products.length <= 7);
      for (const p of reply.json.products) {
        assert.deepEqual(Object.keys(p).sort(), ['id', 'price']);
        seen.push(p.id);
      }
      pages += 1;
      assert.equal('previous_page' in reply.json, pages > 1);
      if (reply.json.next_page !== undefined) {
        const next = new URL(reply.json.next_page);
        assert.equal(next.origin, new URL(s.api).origin, 'absolute URL on the same origin');
        for (const kept of ['count=7', 'sort=-price', 'item_number=startwith:B-', 'fields=id,price'])
          assert.ok(reply.json.next_page.includes(kept), `${kept} kept in ${reply.json.next_page}`);
        assert.equal(next.searchParams.get('page'), String(pages + 1));
      }
      url = reply.json.next_page;
    }
    assert.equal(total, BULK);
    assert.equal(pages, Math.ceil(BULK / 7));
    assert.equal(seen.length, total);
    assert.equal(new Set(seen).size, seen.length, 'no row repeated');
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      [...bulkIds].sort((a, b) => a - b),
      'no row skipped',
    );
  });

  test('syncing by updated_at while rows change skips none: changed rows come again at the end', async () => {
    let url: string | undefined = `${s.api}/products?sort=updated_at&count=7&item_number=startwith:B-&fields=item_number`;
    const seen: string[] = [];
    const changed = new Set<string>();
    let pages = 0;
    while (url !== undefined) {
      const reply = await s.call('GET', url);
      assert.equal(reply.status, 200, reply.text);
      for (const p of reply.json.products) {
        assert.deepEqual(Object.keys(p), ['item_number']);
        seen.push(p.item_number);
      }
      pages += 1;
      if (pages === 3 || pages === 5) {
        // Another client edits rows this one has already read: offset paging would now skip rows.
        for (const id of bulkIds.slice(pages, pages + 3)) {
          const updated = await s.call('PUT', `/products/${id}`, { body: { quantity_on_hand: 1000 + pages } });
          changed.add(updated.json.item_number);
        }
      }
      url = reply.json.next_page;
    }
    const all = bulkIds.map((_, i) => `B-${String(i).padStart(3, '0')}`);
    assert.deepEqual(
      all.filter((n) => !seen.includes(n)),
      [],
      'no row skipped',
    );
    const repeated = seen.filter((n, i) => seen.indexOf(n) !== i);
    assert.ok(
      repeated.every((n) => changed.has(n)),
      `only changed rows come twice: ${repeated.join(', ')}`,
    );
    assert.equal(repeated.length, changed.size, 'each changed row comes once more, with its new version');
  });

  test('a forged or foreign after= position is a 400', async () => {
    assert.equal((await s.call('GET', '/products?after=not-base64-json')).status, 400);
    assert.equal((await s.call('GET', `/products?sort=price&after=${Buffer.from('[1,2]').toString('base64url')}`)).status, 400);
    assert.equal((await s.call('GET', `/products?after=${Buffer.from('["x"]').toString('base64url')}`)).status, 400);
  });

  test('previous_page leads back, and count defaults to 100', async () => {
    const second = await s.call('GET', '/products?page=2&item_number=startwith:B-');
    assert.equal(second.json.products.length, 100);
    assert.equal(second.json.products[0].id, bulkIds[100]);
    const first = await s.call('GET', second.json.previous_page);
    assert.deepEqual(
      first.json.products.map((p: { id: number }) => p.id),
      bulkIds.slice(0, 100),
    );
    const last = await s.call('GET', '/products?page=3&item_number=startwith:B-');
    assert.equal(last.json.products.length, 50);
    assert.equal('next_page' in last.json, false);
  });

  test('eq (also the default), not, like, startwith', async () => {
    assert.deepEqual(await names('item_name=eq:Alpha%20widget'), ['Alpha widget']);
    assert.deepEqual(await names('item_name=Alpha%20widget'), ['Alpha widget']);
    assert.deepEqual(await names('item_name=not:Alpha%20widget'), ['100% cotton_cloth', 'Beta Widget', 'Delta', 'Gamma gadget']);
    assert.deepEqual(await names('item_name=like:WIDGET'), ['Alpha widget', 'Beta Widget']);
    assert.deepEqual(await names('item_name=like:0%25'), ['100% cotton_cloth'], 'a % in the value is literal');
    assert.deepEqual(await names('item_name=like:n_c'), ['100% cotton_cloth'], 'an _ in the value is literal');
    assert.deepEqual(await names('item_name=like:a_g'), []);
    assert.deepEqual(await names('item_name=startwith:gam'), ['Gamma gadget']);
    assert.deepEqual(await names('item_name=startwith:adget'), []);
  });

  test('gt, gte, lt, lte on numbers, and comparisons on booleans and datetimes', async () => {
    assert.deepEqual(await names('price=gt:30'), ['100% cotton_cloth', 'Delta']);
    assert.deepEqual(await names('price=gte:30'), ['100% cotton_cloth', 'Delta', 'Gamma gadget']);
    assert.deepEqual(await names('price=lt:20'), ['Alpha widget']);
    assert.deepEqual(await names('price=lte:20'), ['Alpha widget', 'Beta Widget']);
    assert.deepEqual(await names('price=10.5'), ['Alpha widget']);
    assert.deepEqual(await names('is_hidden=true'), ['Delta']);
    const recent = await s.call('GET', `/products?updated_at=gte:${namedStart}&item_number=startwith:N-&sort=updated_at`);
    assert.deepEqual(
      recent.json.products.map((p: { item_number: string }) => p.item_number),
      ['N-1', 'N-2', 'N-3', 'N-4', 'N-5'],
    );
  });

  test('AND and OR join conditions on one field, written +, a space or %2B', async () => {
    for (const joined of ['gt:15+AND+lte:30', 'gt:15%20AND%20lte:30', 'gt:15%2BAND%2Blte:30']) {
      assert.deepEqual(await names(`price=${joined}`), ['Beta Widget', 'Gamma gadget'], joined);
    }
    for (const joined of ['lt:15+OR+gt:50', 'lt:15%20OR%20gt:50', 'lt:15%2BOR%2Bgt:50']) {
      assert.deepEqual(await names(`price=${joined}`), ['Alpha widget', 'Delta'], joined);
    }
    assert.deepEqual(await names('price=gte:20+AND+lt:40+OR+eq:99'), ['Beta Widget', 'Delta', 'Gamma gadget']);
  });

  test('a leading OR+ joins a field to the others with OR', async () => {
    const reply = await s.call('GET', '/products?item_name=Alpha%20widget&price=OR+eq:99');
    assert.deepEqual(reply.json.products.map((p: { item_name: string }) => p.item_name).sort(), ['Alpha widget', 'Delta']);
    const encoded = await s.call('GET', '/products?item_name=Alpha%20widget&price=OR%2Beq:99');
    assert.equal(encoded.json.total_count, 2);
    const plain = await s.call('GET', '/products?item_name=Alpha%20widget&price=eq:99');
    assert.equal(plain.json.total_count, 0);
  });

  test('an OR+ on the first field joins it to the next with OR, as the platform docs write it (weight=OR+gt:3.5&length=gt:12)', async () => {
    const first = await s.call('GET', '/products?price=OR+eq:99&item_name=Alpha%20widget');
    assert.deepEqual(first.json.products.map((p: { item_name: string }) => p.item_name).sort(), ['Alpha widget', 'Delta']);
    assert.equal((await s.call('GET', '/products?price=eq:99&item_name=Alpha%20widget')).json.total_count, 0, 'without it, AND');
  });

  test('unknown parameters are ignored', async () => {
    assert.deepEqual(await names('colour=red&utm_source=x'), named.map((n) => n.item_name).sort());
  });

  test('sort ascending and descending on several fields, with id last', async () => {
    const reply = await s.call('GET', '/products?item_number=startwith:N-&sort=-price');
    assert.deepEqual(
      reply.json.products.map((p: { price: number }) => p.price),
      [99, 40, 30, 20, 10.5],
    );
    const byHidden = await s.call('GET', '/products?item_number=startwith:N-&sort=is_hidden,-item_number');
    assert.deepEqual(
      byHidden.json.products.map((p: { item_number: string }) => p.item_number),
      ['N-4', 'N-3', 'N-2', 'N-1', 'N-5'],
    );
  });

  test('fields selects the returned fields', async () => {
    const reply = await s.call('GET', '/products?item_number=N-3&fields=item_name,price');
    assert.deepEqual(reply.json.products, [{ item_name: 'Gamma gadget', price: 30 }]);
    const one = await s.call('GET', '/products?item_number=N-3&fields=id');
    assert.deepEqual(Object.keys(one.json.products[0]), ['id']);
  });

  test('expand inlines a nested collection; links are made and removed under the nested path', async () => {
    const product = (await s.call('GET', '/products?item_number=N-1')).json.products[0];
    const tools = await s.call('POST', '/categories', { body: { name: 'Tools' } });
    const garden = await s.call('POST', '/categories', { body: { name: 'Garden' } });
    assert.equal((await s.call('PUT', `/products/${product.id}/categories/${tools.json.id}`)).status, 200);
    assert.equal((await s.call('PUT', `/products/${product.id}/categories/${garden.json.id}.json`)).status, 200);
    assert.equal((await s.call('PUT', `/products/${product.id}/categories/${garden.json.id}`)).status, 200, 'linking twice is harmless');
    assert.equal((await s.call('PUT', `/products/${product.id}/categories/987654`)).status, 404);

    const expanded = await s.call('GET', '/products?item_number=startwith:N-&expand=categories&fields=item_number&sort=item_number');
    assert.deepEqual(expanded.json.products[0], { item_number: 'N-1', categories: [tools.json, garden.json] });
    assert.deepEqual(expanded.json.products[1], { item_number: 'N-2', categories: [] });
    const nested = await s.call('GET', `/products/${product.id}/categories?sort=-name`);
    assert.deepEqual(nested.json, { total_count: 2, categories: [tools.json, garden.json] });
    const reverse = await s.call('GET', `/categories/${garden.json.id}/products?fields=item_number`);
    assert.deepEqual(reverse.json, { total_count: 1, products: [{ item_number: 'N-1' }] });

    const unlinked = await s.call('DELETE', `/products/${product.id}/categories/${tools.json.id}`);
    assert.equal(unlinked.status, 200);
    assert.equal(unlinked.text, '');
    assert.equal((await s.call('DELETE', `/products/${product.id}/categories/${tools.json.id}`)).status, 404);
    assert.equal((await s.call('GET', `/products/${product.id}/categories`)).json.total_count, 1);
  });

  test('a nested list pages like any list', async () => {
    const order = await s.call('POST', '/orders', { body: { notes: 'many items' } });
    for (let i = 0; i < 5; i += 1) await s.call('POST', '/order_items', { body: { order_id: order.json.id, quantity: i } });
    const first = await s.call('GET', `/orders/${order.json.id}/items?count=2&sort=-quantity`);
    assert.equal(first.json.total_count, 5);
    assert.deepEqual(
      first.json.order_items.map((i: { quantity: number }) => i.quantity),
      [4, 3],
    );
    const second = await s.call('GET', first.json.next_page);
    assert.deepEqual(
      second.json.order_items.map((i: { quantity: number }) => i.quantity),
      [2, 1],
    );
  });

  test('1,000 filter conditions are answered; 1,001 (the attack that gave a 500 on SQLite) are a 400', async () => {
    const conditions = (n: number, join = '+AND+') => Array.from({ length: n }, (_, i) => `not:${i}`).join(join);
    for (const query of [
      `quantity_on_hand=${conditions(1000)}`,
      `quantity_on_hand=${conditions(1000, '+OR+')}`,
      Array.from({ length: 100 }, (_, i) => `quantity_on_hand=${i % 2 === 0 ? '' : 'OR+'}${conditions(10)}`).join('&'),
    ]) {
      const most = await s.call('GET', `/products?${query}&count=1&fields=id`);
      assert.equal(most.status, 200, most.text.slice(0, 300));
    }
    for (const query of [
      `quantity_on_hand=${conditions(1001)}`,
      `quantity_on_hand=${conditions(600)}&price=${conditions(401)}`,
      Array.from({ length: 101 }, () => 'quantity_on_hand=not:1').join('&'),
    ]) {
      const refused = await s.call('GET', `/products?${query}`);
      assert.equal(refused.status, 400, refused.text.slice(0, 300));
      assert.match(refused.json.details, /at most 100 filter parameters|at most 1000 conditions/);
    }
  });
});
