import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { sqliteTarget } from './support/targets.ts';
import { resourceNamed, resources } from '../src/model/registry.ts';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test.ts';

const sqlite = await sqliteTarget();

describe('OpenAPI document and docs page', () => {
  let s: StoreUnderTest;
  before(async () => {
    s = await startStoreUnderTest(sqlite);
  });
  after(() => s?.close());

  test('/api/v1/openapi.json is a valid OpenAPI 3.1 document covering every resource route', async () => {
    const reply = await s.call('GET', '/openapi.json');
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers['content-type']), /^application\/json/);
    const document = reply.json as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> };
    };
    assert.equal(document.openapi, '3.1.0');
    const result = await new Validator().validate(structuredClone(document));
    assert.equal(result.valid, true, JSON.stringify(result.errors));

    for (const resource of resources) {
      const can = new Set(resource.operations);
      const collection = document.paths[`/${resource.path}`];
      // /inventory is no list of records: its GET (one item's stock) comes from inventory-routes.ts, checked below.
      assert.equal(Boolean(collection?.get), can.has('list') || resource.name === 'inventory', `${resource.name} list`);
      assert.equal(Boolean(collection?.post), can.has('create'), `${resource.name} create`);
      assert.equal(Boolean(document.paths[`/${resource.path}/select_many`]?.get), can.has('list'), `${resource.name} select_many`);
      const item = document.paths[`/${resource.path}/{id}`];
      assert.equal(Boolean(item?.get), can.has('read'), `${resource.name} read`);
      assert.equal(Boolean(item?.put), can.has('update'), `${resource.name} update`);
      assert.equal(Boolean(item?.delete), can.has('delete'), `${resource.name} delete`);
      for (const nested of can.has('read') ? Object.keys(resource.nested) : [])
        assert.ok(document.paths[`/${resource.path}/{id}/${nested}`]?.get, `${resource.name}/${nested}`);
    }
    assert.equal(resources.length, 74, "the platform's 73 and webhooks");
    assert.ok(document.paths['/carts/{id}/place_order']?.post);
    assert.ok(document.paths['/products/importMany']?.post);
    for (const change of ['add', 'remove', 'set']) assert.ok(document.paths[`/inventory/${change}`]?.post, change);
    const product = document.components.schemas.ProductCreate as
      { then?: { required?: string[] }; properties?: Record<string, unknown> } | undefined;
    assert.deepEqual(product?.then?.required, ['item_name'], 'item_name is required when the body names no id');
    for (const field of [
      'item_name',
      'item_number',
      'product_status_id',
      'primary_category_id',
      'price',
      'cost',
      'retail',
      'weight',
      'quantity_on_hand',
      'short_description',
      'is_hidden',
      'manufacturer_id',
      'keywords',
      'sort_order',
    ]) {
      assert.ok(product?.properties?.[field], `ProductCreate has ${field}`);
    }
    // Every POST and PUT documents Idempotency-Key; no other method does.
    const keyRef = '#/components/parameters/idempotencyKey';
    const takesKey = (operation: { parameters?: { $ref?: string }[] } | undefined) =>
      operation?.parameters?.some((p) => p.$ref === keyRef) === true;
    const parameters = (document.components as unknown as { parameters: Record<string, { name: string; in: string }> }).parameters;
    assert.deepEqual(
      { name: parameters.idempotencyKey?.name, in: parameters.idempotencyKey?.in },
      { name: 'Idempotency-Key', in: 'header' },
    );
    let writes = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      if ('servers' in item) continue; // OAuth, beside /api/v1, takes no key
      for (const [method, operation] of Object.entries(
        item as Record<string, { parameters?: { $ref?: string }[]; responses?: Record<string, unknown> }>,
      )) {
        if (!['get', 'post', 'put', 'delete'].includes(method)) continue;
        const write = method === 'post' || method === 'put';
        assert.equal(takesKey(operation), write, `${method.toUpperCase()} ${path}`);
        if (write) {
          writes += 1;
          assert.ok(operation.responses?.['422'], `${method.toUpperCase()} ${path} documents 422`);
        }
      }
    }
    assert.ok(writes > 100, `${writes} writes`);
    assert.ok(document.components.schemas.Product?.properties?.created_at);
    assert.equal(document.components.schemas.ProductCreate?.properties?.created_at, undefined);
  });

  test('lists describe every filterable field with the operators it takes', async () => {
    const document = (await s.call('GET', '/openapi.json')).json as OpenApi;
    // Parameters as a client reads them: references resolved.
    const parametersOf = (operation: Operation | undefined): Parameter[] =>
      (operation?.parameters ?? [])
        .map((p) => ('$ref' in p ? document.components.parameters[p.$ref.replace('#/components/parameters/', '')] : p))
        .filter((p) => p !== undefined);
    const list = parametersOf(document.paths['/products']?.get);
    for (const name of ['page', 'count', 'fields', 'expand', 'sort', 'after'])
      assert.ok(
        list.some((p) => p.name === name),
        `list takes ${name}`,
      );
    const filter = (name: string) => list.find((p) => p.name === name);
    assert.deepEqual(filter('item_name')?.['x-filter-operators'], ['eq', 'not', 'like', 'startwith', 'gt', 'gte', 'lt', 'lte']);
    assert.deepEqual(filter('price')?.['x-filter-operators'], ['eq', 'not', 'gt', 'gte', 'lt', 'lte'], 'like/startwith are for text');
    assert.match(filter('price')?.description ?? '', /\+AND\+/);
    const lists = resources.flatMap((resource) => [
      ...(resource.operations.includes('list') ? [{ path: `/${resource.path}`, of: resource }] : []),
      ...(resource.operations.includes('read')
        ? Object.entries(resource.nested).map(([name, nested]) => ({
            path: `/${resource.path}/{id}/${name}`,
            of: resourceNamed(nested.resource),
          }))
        : []),
    ]);
    assert.ok(lists.length > 100, `${lists.length} lists`);
    for (const { path, of } of lists) {
      const described = new Set(
        parametersOf(document.paths[path]?.get)
          .filter((p) => p.in === 'query')
          .map((p) => p.name),
      );
      for (const [field, declaration] of Object.entries(of.fields)) {
        if (
          declaration.hidden === true ||
          declaration.type === 'json' ||
          ['page', 'count', 'fields', 'expand', 'sort', 'after'].includes(field)
        )
          continue;
        assert.ok(described.has(field), `${path} describes the filter ${field}`);
      }
    }
    assert.equal(document.components.securitySchemes.token.name, 'X-AC-Auth-Token');
    const rates = (document.paths['/carts/{id}/shipping']?.get?.parameters ?? []) as Parameter[];
    assert.deepEqual(
      rates.filter((p) => p.in === 'query' && p.required === true).map((p) => p.name),
      ['city', 'state', 'postal_code', 'country'],
    );
  });

  test('the OAuth endpoints are in the document, under their own /api server', async () => {
    const document = (await s.call('GET', '/openapi.json')).json as OpenApi;
    const authorize = document.paths['/oauth'];
    assert.deepEqual(authorize?.servers, [{ url: '/api', description: 'OAuth lives beside /api/v1' }]);
    assert.deepEqual(
      (authorize?.get?.parameters as Parameter[]).filter((p) => p.required === true).map((p) => p.name),
      ['client_id', 'scope'],
    );
    for (const path of ['/oauth/access_token', '/oauth/refresh', '/oauth/token']) {
      assert.ok(document.paths[path]?.post?.requestBody, `${path} is described`);
      assert.equal(document.paths[path]?.servers?.[0]?.url, '/api');
    }
    const token = document.paths['/oauth/token']?.post?.requestBody as {
      content: Record<string, { schema: { properties: Record<string, unknown> } }>;
    };
    assert.ok(token.content['application/x-www-form-urlencoded']);
    assert.deepEqual(Object.keys(token.content['application/json']?.schema.properties ?? {}).sort(), [
      'client_id',
      'client_secret',
      'code',
      'code_verifier',
      'grant_type',
      'redirect_uri',
      'refresh_token',
      'scope',
    ]);

    // What the document says, the server does: the described paths answer (with an OAuth error, not a 404).
    const origin = new URL(s.api).origin;
    const refused = await s.call('POST', `${origin}/api/oauth/token`, { body: { grant_type: 'password' }, anonymous: true });
    assert.equal(refused.status, 400);
    assert.equal((refused.json as { error?: string }).error, 'unsupported_grant_type');
  });

  test('every answer of a counted call documents the limit fields, and a 429 Retry-After', async () => {
    type Responses = Record<string, { $ref?: string; headers?: Record<string, { $ref: string }> }>;
    const document = (await s.call('GET', '/openapi.json')).json as {
      paths: Record<string, Record<string, { responses?: Responses }>>;
      components: { headers: Record<string, unknown> };
    };
    let answers = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          // Shared answers (a body or headers too large) come before the route; they are not the route's.
          if ('$ref' in response) continue;
          const names = Object.keys(response.headers ?? {});
          // A signed result link is no API call and is not counted.
          if (path === '/bulk_operations/{id}/result') {
            assert.ok(!names.includes('RateLimit'), `${method} ${path} ${status}`);
            continue;
          }
          for (const name of ['X-AC-Call-Limit', 'RateLimit-Policy', 'RateLimit', ...(status === '429' ? ['Retry-After'] : [])])
            assert.ok(names.includes(name), `${method} ${path} ${status} documents ${name}`);
          answers += 1;
        }
      }
    }
    assert.ok(answers > 1000, `${answers} answers checked`);
    assert.deepEqual(Object.keys(document.components.headers).sort(), [
      'RateLimit',
      'RateLimitPolicy',
      'RetryAfter',
      'XAcApiVersion',
      'XAcCallLimit',
    ]);
  });

  test('the docs page is Swagger UI served from this store, under a strict CSP', async () => {
    const reply = await s.call('GET', '/docs', { anonymous: true });
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers['content-type']), /^text\/html/);
    assert.match(String(reply.headers['content-security-policy']), /script-src 'self'[;]/);
    const scripts = [...reply.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1] ?? '');
    assert.equal(scripts.length, 3);
    assert.doesNotMatch(reply.text, /<script>/, 'no inline script');
    const origin = new URL(s.api).origin;
    for (const src of [...scripts, ...[...reply.text.matchAll(/<link [^>]*href="([^"]+)"/g)].map((m) => m[1] ?? '')]) {
      assert.ok(src.startsWith('/api/v1/docs/'), `${src} is served here`);
      const asset = await s.call('GET', `${origin}${src}`, { anonymous: true, headers: { 'accept-encoding': 'identity' } });
      assert.equal(asset.status, 200, src);
    }
    const init = await s.call('GET', `${origin}/api/v1/docs/init.js`, { anonymous: true });
    assert.match(init.text, /validatorUrl: null/);
    // The page offers the document in parts, one per scope group plus carts and OAuth, which together hold every path.
    const parts = [...init.text.matchAll(/"url":"(\/api\/v1\/openapi\.json\?group=[a-z]+)"/g)].map((m) => m[1] ?? '');
    assert.deepEqual(
      parts.map((u) => u.split('=')[1]),
      ['catalog', 'orders', 'people', 'content', 'marketing', 'settings', 'webhooks', 'carts', 'oauth', 'bulk', 'sandbox'],
    );
    const whole = (await s.call('GET', '/openapi.json')).json as OpenApi & { info: { description: string } };
    const covered = new Set<string>();
    for (const url of parts) {
      const part = (await s.call('GET', `${origin}${url}`, { anonymous: true })).json as OpenApi;
      assert.equal(
        (await new Validator().validate(structuredClone(part) as unknown as Record<string, unknown>)).valid,
        true,
        `${url} is a valid document`,
      );
      for (const [path, item] of Object.entries(part.paths))
        for (const method of Object.keys(item ?? {}).filter((k) => ['get', 'put', 'post', 'delete'].includes(k)))
          covered.add(`${method} ${path}`);
    }
    const all = Object.entries(whole.paths).flatMap(([path, item]) =>
      Object.keys(item ?? {})
        .filter((k) => ['get', 'put', 'post', 'delete'].includes(k))
        .map((m) => `${m} ${path}`),
    );
    assert.deepEqual(
      all.filter((op) => !covered.has(op)),
      [],
      'every operation is in some part',
    );
    assert.equal((await s.call('GET', '/openapi.json?group=nope', { anonymous: true })).status, 404);
    assert.match(whole.info.description, /Idempotency-Key/);
    assert.match(whole.info.description, /startwith/);
    const bundle = scripts[0] ?? '';
    const gzip = await s.call('GET', `${origin}${bundle}`, { anonymous: true, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.match(String(gzip.headers['cache-control']), /immutable/);
    assert.equal(
      (await s.call('GET', `${origin}${bundle.replace(/[^/]+$/, 'index.html')}`, { anonymous: true })).status,
      404,
      'only the files the page needs',
    );
  });

  test('GET / leads a browser to the console and the docs, and an API client to the same addresses as JSON', async () => {
    const origin = new URL(s.api).origin;
    const browser = await s.call('GET', `${origin}/`, {
      anonymous: true,
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    assert.equal(browser.status, 200);
    assert.match(String(browser.headers['content-type']), /^text\/html/);
    assert.match(browser.text, /<a href="\/admin">Admin console<\/a>/);
    assert.match(browser.text, /<a href="\/api\/v1\/docs">API documentation<\/a>/);
    const client = await s.call('GET', `${origin}/`, { anonymous: true, headers: { accept: 'application/json' } });
    assert.equal(client.status, 200);
    assert.deepEqual(client.json, {
      name: 'Store API',
      api: '/api/v1',
      docs: '/api/v1/docs',
      openapi: '/api/v1/openapi.json',
      console: '/admin',
      oauth: '/api/oauth',
    });
    for (const path of Object.values(client.json as Record<string, string>).filter((v) => v.startsWith('/'))) {
      const status = (await s.call('GET', `${origin}${path}`, { anonymous: true })).status;
      assert.ok(status < 500 && status !== 404, `${path} answers (${status})`);
    }
  });
});

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  'x-filter-operators'?: string[];
}
type ParameterOrRef = Parameter | { $ref: string };
interface Operation {
  parameters?: ParameterOrRef[];
  requestBody?: unknown;
}
interface PathItem {
  servers?: { url: string; description?: string }[];
  get?: Operation;
  post?: Operation;
  put?: Operation;
}
interface OpenApi {
  paths: Record<string, PathItem | undefined>;
  components: { securitySchemes: { token: { name: string } }; parameters: Record<string, Parameter | undefined> };
}

describe('the docs and the front door under rate limiting', () => {
  let s: StoreUnderTest;
  before(async () => {
    // Steel: 5 calls in 10 seconds, fewer than one load of the docs page makes.
    s = await startStoreUnderTest(sqlite, { without: {}, plan: 'steel' });
  });
  after(() => s?.close());

  test("loading the docs, the document and GET / is not an API call and leaves the caller's budget alone", async () => {
    const origin = new URL(s.api).origin;
    const page = await s.call('GET', '/docs');
    const assets = [...page.text.matchAll(/(?:src|href)="(\/api\/v1\/docs\/[^"]+)"/g)].map((m) => `${origin}${m[1] ?? ''}`);
    const loads = [`${s.api}/docs`, ...assets, `${s.api}/openapi.json?group=catalog`, `${s.api}/openapi.json`, `${origin}/`];
    for (let round = 0; round < 2; round++) {
      for (const url of loads) {
        const reply = await s.call('GET', url);
        assert.equal(reply.status, 200, url);
        assert.equal(reply.headers['x-ac-call-limit'], undefined, `${url} is not counted`);
      }
    }
    const call = await s.call('GET', '/products');
    assert.equal(call.status, 200);
    assert.equal(call.headers['x-ac-call-limit'], '1/5', 'the first API call is the first one counted');
  });
});
