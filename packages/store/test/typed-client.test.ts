// A typed client from our own OpenAPI document (issue 37 item 6): TypeScript types are generated from the served
// /api/v1/openapi.json with openapi-typescript, a client written against them is type-checked (strict), then run
// with openapi-fetch: it creates a product, pages through products along next_page, and places an order. A document
// that describes a path, a body or an answer wrongly fails the type check or the run.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import { Agent } from 'undici';
import { describeOnEachDatabase } from './support/each-database.ts';
import { issueTestToken } from './support/test-token.ts';
import { receiverCertificate, startReceiver } from './webhooks/receiver.ts';
import { NEWEST_API_VERSION } from '../src/model/api-versions.ts';

type Json = Record<string, unknown>;

const ROOT = resolve(import.meta.dirname, '../../..');

// Written against the generated `paths`: each call's path, parameters, body and answer are checked by tsc. The client
// pins the API version it was written for, as an integration would.
const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './api.ts';

export interface Outcome { version: string | null; productId: number; walked: number; total: number; discount: number; orderId: number; orderTotal: number; orderStatus: number }

export async function run(baseUrl: string, token: string, version: string, receiver: string, fetch: (request: Request) => Promise<Response>): Promise<Outcome> {
  const client = createClient<paths>({ baseUrl, headers: { 'X-AC-Auth-Token': token, 'X-AC-Api-Version': version }, fetch });
  const made = await client.POST('/products', { body: { item_name: 'Typed kettle', item_number: 'TYPED-1', price: 24.5, quantity_on_hand: 5 } });
  if (made.data === undefined) throw new Error('creating a product: ' + JSON.stringify(made.error));
  const productId: number = made.data.id ?? 0;
  let walked = 0;
  let total = 0;
  let page = 1;
  for (;;) {
    const listed = await client.GET('/products', { params: { query: { count: 2, page } } });
    if (listed.data === undefined) throw new Error('listing products: ' + JSON.stringify(listed.error));
    total = listed.data.total_count;
    walked += (listed.data.products ?? []).length;
    if (listed.data.next_page === undefined) break;
    page += 1;
  }
  // A coupon worth 10% through a discount method, as the platform models it.
  const code = await client.POST('/coupon_codes', { body: { coupon_code: 'TYPED10', is_active: true } });
  if (code.data === undefined) throw new Error('creating a coupon: ' + JSON.stringify(code.error));
  const method = await client.POST('/discount_methods', { body: { name: 'Typed ten percent', is_enabled: true } });
  if (method.data === undefined) throw new Error('creating a discount method: ' + JSON.stringify(method.error));
  const discountMethodId: number = method.data.id ?? 0;
  const rule = await client.POST('/discount_rules', { body: { discount_method_id: discountMethodId, type: 'CouponCode', target: 'TYPED10' } });
  if (rule.data === undefined) throw new Error('creating a discount rule: ' + JSON.stringify(rule.error));
  const action = await client.POST('/discount_actions', { body: { discount_method_id: discountMethodId, is_active: true, modifier_type: 'Percent', modifier_amount: 10 } });
  if (action.data === undefined) throw new Error('creating a discount action: ' + JSON.stringify(action.error));
  const hook = await client.POST('/webhooks', { body: { event_type: 'OrderPlaced', url: receiver } });
  if (hook.data === undefined) throw new Error('subscribing to OrderPlaced: ' + JSON.stringify(hook.error));

  const cart = await client.POST('/carts', { body: {} });
  if (cart.data === undefined) throw new Error('creating a cart: ' + JSON.stringify(cart.error));
  const cartId: number = cart.data.id ?? 0;
  const items = await client.POST('/carts/{id}/items', { params: { path: { id: cartId } }, body: { items: [{ product_id: productId, quantity: 2 }] } });
  if (items.data === undefined) throw new Error('adding items: ' + JSON.stringify(items.error));
  const coupon = await client.PUT('/carts/{id}/coupon_code', { params: { path: { id: cartId } }, body: { coupon_code: 'TYPED10' } });
  if (coupon.data === undefined) throw new Error('applying the coupon: ' + JSON.stringify(coupon.error));
  const discount: number = coupon.data.discount_total ?? 0;
  const placed = await client.POST('/carts/{id}/place_order', {
    params: { path: { id: cartId } },
    body: {
      customer: { first_name: 'Tia', last_name: 'Typed', email: 'tia.typed@example.com' },
      billing_address: { name: 'Tia Typed', address_line_1: '1 Type St', city: 'Austin', state: 'TX', postal_code: '78701', country: 'US' },
      use_billing_address_for_shipping: true,
      credit_card: { number: '4111 1111 1111 1111', name: 'Tia Typed', expiration_month: '12', expiration_year: '2099', cvv: '123' },
    },
  });
  if (placed.data === undefined) throw new Error('placing the order: ' + JSON.stringify(placed.error));
  const orderId: number = placed.data.order_id;
  const order = await client.GET('/orders/{id}', { params: { path: { id: orderId } } });
  if (order.data === undefined) throw new Error('reading the order back: ' + JSON.stringify(order.error));
  return {
    version: made.response.headers.get('x-ac-api-version'),
    productId, walked, total, discount, orderId,
    orderTotal: order.data.grand_total ?? 0,
    orderStatus: order.data.order_status_id ?? 0,
  };
}
`;

/** tsc, strict, on one file of `dir` as a client project would compile it: undefined when it passes, else tsc's words. */
async function tscProblems(dir: string, file: string): Promise<string | undefined> {
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const options = [
    '--noEmit',
    '--strict',
    '--target',
    'es2024',
    '--lib',
    'es2024,dom',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--allowImportingTsExtensions',
    '--skipLibCheck',
    '--types',
    'node',
  ];
  return promisify(execFile)(process.execPath, [tsc, ...options, join(dir, file)], { cwd: dir }).then(
    () => undefined,
    (error: Error & { stdout?: string }) => error.stdout ?? error.message,
  );
}

async function typeCheck(dir: string, file: string, failure: string): Promise<void> {
  const problems = await tscProblems(dir, file);
  if (problems !== undefined) assert.fail(`${failure}:\n${problems}`);
}

/** The five-line example under "A typed client" in docs/store-api.md, as a reader copies it. */
function docsExample(): string {
  const docs = readFileSync(join(ROOT, 'docs/store-api.md'), 'utf8');
  const example = /### A typed client\n[^]*?```ts\n([^]*?)```/.exec(docs)?.[1];
  assert.ok(example !== undefined, 'docs/store-api.md has a TypeScript example under "A typed client"');
  return example;
}

// The OrderPlaced webhook goes to a real HTTPS receiver on loopback, whose certificate the store is told to trust.
const receiverTls = await receiverCertificate();
const receiver = await startReceiver({ tls: receiverTls });
after(() => receiver.close());

await describeOnEachDatabase(
  'a typed client from the served OpenAPI document',
  (s, target) => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'store-typed-client-'));
      // The generated client resolves openapi-fetch from the repository's packages.
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    });
    after(() => {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    test('types generated from /api/v1/openapi.json type-check a client that sets up a coupon and a webhook, places an order and reads it back', async () => {
      const served = await s.call('GET', '/openapi.json', { anonymous: true });
      assert.equal(served.status, 200);
      writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(served.text)));
      writeFileSync(join(dir, 'client.ts'), CLIENT);
      await typeCheck(dir, 'client.ts', 'the client does not type-check against the generated types');

      const dispatcher = new Agent({ connect: { ca: s.store.certificate } });
      const client = (await import(join(dir, 'client.ts'))) as {
        run: (
          baseUrl: string,
          token: string,
          version: string,
          receiverUrl: string,
          fetch: (request: Request) => Promise<Response>,
        ) => Promise<{
          version: string | null;
          productId: number;
          walked: number;
          total: number;
          discount: number;
          orderId: number;
          orderTotal: number;
          orderStatus: number;
        }>;
      };
      const token = await issueTestToken(s.store.app, s.store.firstStart?.storeId ?? 1, 'system', 'Typed client');
      const url = `${receiver.origin}/typed-${target.name}`;
      const result = await client.run(s.api, token, NEWEST_API_VERSION, url, (request) => fetch(request, { dispatcher }));
      await dispatcher.close();
      assert.equal(result.version, NEWEST_API_VERSION, 'the store answers in the version the client pinned');
      assert.ok(result.productId > 0 && result.orderId > 0);
      assert.equal(result.walked, result.total, 'paging along next_page saw every product');
      assert.equal(result.discount, 4.9, '10% of two kettles at 24.50');
      assert.equal(result.orderTotal, 44.1, 'the order read back carries the discount');
      assert.equal(result.orderStatus, 1, 'a new order');
      const order = await s.call('GET', `/orders/${result.orderId}?expand=items`);
      const items = (order.json as { items: { product_id: number }[] }).items;
      assert.equal(items[0]?.product_id, result.productId);
      const [delivered] = await receiver.waitFor(`/typed-${target.name}`, 1, 20_000);
      assert.equal(
        (delivered?.json as { order?: { id?: number } } | undefined)?.order?.id,
        result.orderId,
        'OrderPlaced carried the order',
      );
    });

    // The same client against a document whose place_order answer lost order_id: the change breaks it, and tsc says so.
    test(
      'a document that drops a field the client reads makes the same client fail the type check',
      { skip: target.dialect === 'sqlite' ? false : 'the type check is the same on every database' },
      async () => {
        const served = (await s.call('GET', '/openapi.json', { anonymous: true })).json as {
          paths: Record<
            string,
            { post: { responses: Record<string, { content: Record<string, { schema: { properties: Json; required: string[] } }> }> } }
          >;
        };
        const answer = served.paths['/carts/{id}/place_order']?.post.responses['200']?.content['application/json']?.schema;
        assert.ok(answer?.properties.order_id !== undefined, 'place_order answers order_id');
        delete answer.properties.order_id;
        answer.required = answer.required.filter((name) => name !== 'order_id');
        const broken = join(dir, 'broken');
        mkdirSync(broken);
        symlinkSync(join(ROOT, 'node_modules'), join(broken, 'node_modules'), 'dir');
        writeFileSync(join(broken, 'api.ts'), astToString(await openapiTS(JSON.stringify(served))));
        writeFileSync(join(broken, 'client.ts'), CLIENT);
        assert.match(
          (await tscProblems(broken, 'client.ts')) ?? 'tsc passed',
          /client\.ts\(\d+,\d+\): error TS2339: Property 'order_id' does not exist/,
        );
      },
    );

    // The example reads no more of the database than the client above: one database shows it works.
    test(
      "the docs' five-line typed client type-checks against the generated types and lists products",
      { skip: target.dialect === 'sqlite' ? false : 'the example is checked on SQLite' },
      async () => {
        const example = docsExample();
        assert.equal(example.trim().split('\n').length, 5, 'five lines, as the docs promise');
        const served = await s.call('GET', '/openapi.json', { anonymous: true });
        writeFileSync(join(dir, 'store-api.ts'), astToString(await openapiTS(served.text)));
        // .mts: the example awaits at its top level, which only a module may.
        writeFileSync(join(dir, 'docs-example.mts'), example.replace('https://127.0.0.1:8443/api/v1', s.api));
        await typeCheck(dir, 'docs-example.mts', "the docs' example does not type-check");
        await s.call('POST', '/products', { body: { item_name: 'Docs example lamp', price: 99.5 } });
        const ca = join(dir, 'store-ca.pem');
        writeFileSync(ca, s.store.certificate);
        const token = await issueTestToken(s.store.app, s.store.firstStart?.storeId ?? 1, 'read_catalog', 'Docs example');
        const run = await promisify(execFile)(process.execPath, [join(dir, 'docs-example.mts')], {
          cwd: dir,
          env: { ...process.env, TOKEN: token, NODE_EXTRA_CA_CERTS: ca },
        });
        assert.match(run.stdout, /Docs example lamp: 99\.5/);
      },
    );
  },
  { webhooks: { allowedNetworks: ['127.0.0.0/8'], ca: receiverTls.cert, pollMs: 100 } },
);
