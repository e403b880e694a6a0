// X-AC-Api-Version: the version a request names by date, the one every answer reports, and an operation a newer
// version removed: served to earlier versions with Deprecation (RFC 9745) and Sunset (RFC 8594), 410 to the others
// and to everyone after its sunset; a field a newer version removed, left out for it and served with the same two
// headers to earlier versions, the response cache keeping the versions apart. The removal rules run on a small app with a version table of the test's own
// (the store removes nothing yet); the header itself runs on the real store.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { parseItem } from 'structured-headers';
import { ResponseCache } from '../src/cache/response-cache.ts';
import { httpCaching } from '../src/cache/http-caching.ts';
import { errorFormat } from '../src/http/error-format.ts';
import { apiVersion } from '../src/http/api-version.ts';
import { API_VERSIONS, NEWEST_API_VERSION } from '../src/model/api-versions.ts';
import { sqliteTarget } from './support/targets.ts';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test.ts';

const versions = [
  { date: '2026-11-01', summary: 'first' },
  { date: '2027-03-01', summary: 'drops GET /widgets/{id}/legacy' },
];
const removals = [
  { method: 'GET' as const, path: '/widgets/{id}/legacy', removedIn: '2027-03-01', sunset: '2027-09-01', instead: 'use GET /widgets/{id}' },
];

describe('X-AC-Api-Version on an app with a removed operation', () => {
  let app: FastifyInstance;
  let clock = Date.parse('2027-04-01T12:00:00Z');
  before(async () => {
    app = Fastify();
    await app.register(errorFormat);
    await app.register(apiVersion, { apiPrefix: '/api/v1', versions, removals, now: () => clock });
    app.get('/api/v1/widgets/:widgetId/legacy', () => ({ legacy: true }));
    app.get('/api/v1/widgets/:widgetId', () => ({ id: 1 }));
    app.get('/elsewhere', () => ({ ok: true }));
    await app.ready();
  });
  after(() => app?.close());
  const get = (url: string, version?: string) =>
    app.inject({ method: 'GET', url, headers: version === undefined ? {} : { 'x-ac-api-version': version } });

  test('no header is the newest version, and the answer says so', async () => {
    const reply = await get('/api/v1/widgets/7');
    assert.equal(reply.statusCode, 200);
    assert.equal(reply.headers['x-ac-api-version'], '2027-03-01');
  });

  test('a date between two versions is served by the earlier one; a later date by the newest', async () => {
    assert.equal((await get('/api/v1/widgets/7', '2027-02-28')).headers['x-ac-api-version'], '2026-11-01');
    assert.equal((await get('/api/v1/widgets/7', '2026-11-01')).headers['x-ac-api-version'], '2026-11-01');
    assert.equal((await get('/api/v1/widgets/7', '2031-01-01')).headers['x-ac-api-version'], '2027-03-01');
  });

  test('a malformed date, an impossible day, two values and a date before the first version are 400s naming the versions', async () => {
    for (const bad of ['2026-11', 'yesterday', '2027-02-30', '2026-11-01, 2027-03-01', '2020-01-01']) {
      const reply = await get('/api/v1/widgets/7', bad);
      assert.equal(reply.statusCode, 400, bad);
      const body = reply.json<{ status_code: number; details: string }>();
      assert.equal(body.status_code, 400);
      assert.match(body.details, /X-AC-Api-Version/);
      assert.match(body.details, /2026-11-01, 2027-03-01/, bad);
    }
  });

  test('an earlier version still gets the removed operation, with Deprecation as of the removal and Sunset', async () => {
    const reply = await get('/api/v1/widgets/7/legacy', '2026-12-01');
    assert.equal(reply.statusCode, 200);
    assert.deepEqual(reply.json(), { legacy: true });
    const deprecation = parseItem(String(reply.headers.deprecation));
    assert.ok(deprecation[0] instanceof Date, 'Deprecation is a structured-field Date');
    assert.equal(deprecation[0].toISOString(), '2027-03-01T00:00:00.000Z');
    assert.equal(reply.headers.sunset, 'Wed, 01 Sep 2027 00:00:00 GMT');
    assert.equal(reply.headers['x-ac-api-version'], '2026-11-01');
  });

  test('the version that removed it, and the default, get 410 saying what to do instead', async () => {
    for (const version of ['2027-03-01', undefined]) {
      const reply = await get('/api/v1/widgets/7/legacy', version);
      assert.equal(reply.statusCode, 410);
      assert.match(reply.json<{ details: string }>().details, /removed in 2027-03-01.*use GET \/widgets\/\{id\}.*2027-09-01/);
      assert.equal(reply.headers.deprecation, undefined);
    }
  });

  test('after the sunset no version gets it', async () => {
    clock = Date.parse('2027-09-01T00:00:00Z');
    const reply = await get('/api/v1/widgets/7/legacy', '2026-11-01');
    assert.equal(reply.statusCode, 410);
    assert.match(reply.json<{ details: string }>().details, /sunset, 2027-09-01, has passed/);
  });

  test('a removal naming no version, or a sunset before its removal, stops the app from starting', async () => {
    for (const bad of [{ removedIn: '2027-04-01' }, { sunset: '2027-02-01' }, { sunset: 'soon' }]) {
      const other = Fastify();
      await assert.rejects(
        async () => {
          await other.register(apiVersion, { apiPrefix: '/api/v1', versions, removals: [{ ...removals[0], ...bad }] as typeof removals });
          await other.ready();
        },
        /the removal of GET \/widgets\/\{id\}\/legacy needs/,
        JSON.stringify(bad),
      );
      // Closing an app whose start failed reports the same error again.
      await other.close().catch(() => undefined);
    }
  });

  test('other operations carry no deprecation, and paths outside the API are not versioned', async () => {
    const reply = await get('/api/v1/widgets/7', '2026-11-01');
    assert.equal(reply.headers.deprecation, undefined);
    assert.equal(reply.headers.sunset, undefined);
    const outside = await get('/elsewhere', 'nonsense');
    assert.equal(outside.statusCode, 200);
    assert.equal(outside.headers['x-ac-api-version'], undefined);
  });
});

describe('X-AC-Api-Version on an app with a removed field', () => {
  const fieldRemovals = [{ resource: 'products', field: 'price', removedIn: '2027-03-01', sunset: '2027-09-01' }];
  const read = { resource: 'products', scope: 'catalog' as const, access: 'read' as const, lists: 'products' };
  let app: FastifyInstance;
  let clock = Date.parse('2027-04-01T12:00:00Z');
  let reads = 0;
  before(async () => {
    app = Fastify();
    await app.register(errorFormat);
    await app.register(apiVersion, { apiPrefix: '/api/v1', versions, fieldRemovals, now: () => clock });
    await app.register(httpCaching, { cache: new ResponseCache({ now: () => clock }), now: () => clock });
    app.get('/api/v1/products/:id', { config: read }, () => ({ id: 7, item_name: 'Lamp', price: 12, reads: ++reads }));
    // A list page as the database writes it: JSON text, not an object.
    app.get('/api/v1/products', { config: read }, (_request, reply) =>
      reply
        .type('application/json; charset=utf-8')
        .send('{"total_count":2,"products":[{"id":7,"item_name":"Lamp","price":12},{"id":8,"item_name":"Desk","price":90}]}'),
    );
    app.get('/api/v1/categories/:id', { config: { ...read, resource: 'categories', lists: 'categories' } }, () => ({ id: 1, price: 3 }));
    await app.ready();
  });
  after(() => app?.close());
  const get = (url: string, version?: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers: version === undefined ? headers : { ...headers, 'x-ac-api-version': version } });
  const deprecationOf = (value: unknown) => {
    const item = parseItem(String(value));
    assert.ok(item[0] instanceof Date, 'Deprecation is a structured-field Date');
    return item[0].toISOString();
  };

  test('an earlier version still gets the field, in a record and in a list page, with Deprecation and Sunset', async () => {
    const one = await get('/api/v1/products/7', '2026-12-01', { 'cache-control': 'no-cache' });
    assert.equal(one.statusCode, 200);
    assert.equal(one.json<{ price: number }>().price, 12);
    assert.equal(deprecationOf(one.headers.deprecation), '2027-03-01T00:00:00.000Z');
    assert.equal(one.headers.sunset, 'Wed, 01 Sep 2027 00:00:00 GMT');
    const page = await get('/api/v1/products', '2026-11-01');
    assert.deepEqual(
      page.json<{ products: { price: number }[] }>().products.map((p) => p.price),
      [12, 90],
    );
    assert.equal(deprecationOf(page.headers.deprecation), '2027-03-01T00:00:00.000Z');
  });

  test('the version that removed it, and the default, get records without it and no Deprecation', async () => {
    for (const version of ['2027-03-01', undefined]) {
      const one = await get('/api/v1/products/7', version, { 'cache-control': 'no-cache' });
      assert.equal(one.statusCode, 200);
      assert.deepEqual(Object.keys(one.json()), ['id', 'item_name', 'reads']);
      assert.equal(one.headers.deprecation, undefined);
      assert.equal(one.headers.sunset, undefined);
      const page = await get('/api/v1/products', version);
      assert.deepEqual(page.json(), {
        total_count: 2,
        products: [
          { id: 7, item_name: 'Lamp' },
          { id: 8, item_name: 'Desk' },
        ],
      });
    }
  });

  test("a cached answer for one version is not served to another, and the answer varies on the version's header", async () => {
    const url = '/api/v1/products/7?cached=1';
    const old = await get(url, '2026-11-01');
    const oldAgain = await get(url, '2026-11-01');
    assert.equal(oldAgain.json<{ reads: number }>().reads, old.json<{ reads: number }>().reads, 'the second read is the cached one');
    assert.equal(oldAgain.json<{ price: number }>().price, 12);
    assert.equal(deprecationOf(oldAgain.headers.deprecation), '2027-03-01T00:00:00.000Z', 'a cached answer is marked too');
    const current = await get(url, '2027-03-01');
    assert.notEqual(current.json<{ reads: number }>().reads, old.json<{ reads: number }>().reads, 'read afresh, not the cached copy');
    assert.equal(current.json<{ price?: number }>().price, undefined);
    const currentAgain = await get(url, '2027-03-01');
    assert.equal(currentAgain.json<{ reads: number }>().reads, current.json<{ reads: number }>().reads);
    assert.equal(currentAgain.json<{ price?: number }>().price, undefined);
    assert.notEqual(currentAgain.headers.etag, oldAgain.headers.etag);
    assert.match(String(current.headers.vary), /X-AC-Auth-Token, X-AC-Api-Version/);
  });

  test('other resources keep a field of the same name, and after the sunset no version gets it', async () => {
    const other = await get('/api/v1/categories/1', '2027-03-01');
    assert.equal(other.json<{ price: number }>().price, 3);
    assert.equal(other.headers.deprecation, undefined);
    clock = Date.parse('2027-09-01T00:00:00Z');
    const late = await get('/api/v1/products/7', '2026-11-01', { 'cache-control': 'no-cache' });
    assert.equal(late.json<{ price?: number }>().price, undefined);
    assert.equal(late.headers.deprecation, undefined);
  });

  test('a field removal naming no version, no resource or no field, or a sunset before it, stops the app from starting', async () => {
    for (const [bad, message] of [
      [{ removedIn: '2027-04-01' }, /products\.price needs removedIn among the versions/],
      [{ sunset: '2027-02-01' }, /products\.price needs/],
      [{ resource: 'widgets' }, /widgets\.price names no declared resource/],
      [{ field: 'colour' }, /products\.colour names no field of products/],
    ] as const) {
      const other = Fastify();
      await assert.rejects(
        async () => {
          await other.register(apiVersion, { apiPrefix: '/api/v1', versions, fieldRemovals: [{ ...fieldRemovals[0], ...bad }] });
          await other.ready();
        },
        message,
        JSON.stringify(bad),
      );
      await other.close().catch(() => undefined);
    }
  });
});

describe('X-AC-Api-Version on the store', () => {
  let s: StoreUnderTest;
  before(async () => {
    s = await startStoreUnderTest(await sqliteTarget());
  });
  after(() => s?.close());

  test('every answer under /api/v1 names the version that served it, the newest by default, errors included', async () => {
    assert.equal((await s.call('GET', '/products')).headers['x-ac-api-version'], NEWEST_API_VERSION);
    assert.equal((await s.call('GET', '/products/999999')).headers['x-ac-api-version'], NEWEST_API_VERSION);
    const named = await s.call('GET', '/products', { headers: { 'x-ac-api-version': API_VERSIONS[0]?.date ?? '' } });
    assert.equal(named.status, 200);
    assert.equal(named.headers['x-ac-api-version'], API_VERSIONS[0]?.date);
  });

  test('a version the store does not have is a 400 in the error format before authentication', async () => {
    const reply = await s.call('GET', '/products', { headers: { 'x-ac-api-version': '1999-01-01' }, anonymous: true });
    assert.equal(reply.status, 400);
    assert.match(String((reply.json as { details: string }).details), /before the first version/);
  });

  test("the document's info.version is the newest version, and every /api/v1 operation takes the header and may answer it", async () => {
    const reply = await s.call('GET', '/openapi.json');
    const document = reply.json as {
      info: { version: string };
      paths: Record<
        string,
        Record<string, { parameters?: { $ref?: string }[]; responses: Record<string, { headers?: Record<string, unknown> }> }>
      >;
      components: { parameters: Record<string, { name: string; in: string }> };
    };
    assert.equal(document.info.version, NEWEST_API_VERSION);
    assert.deepEqual(
      { name: document.components.parameters.apiVersion?.name, in: document.components.parameters.apiVersion?.in },
      { name: 'X-AC-Api-Version', in: 'header' },
    );
    let operations = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      if (path.startsWith('/oauth')) continue;
      for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
        const operation = item[method];
        if (operation === undefined) continue;
        operations += 1;
        assert.ok(
          operation.parameters?.some((p) => p.$ref === '#/components/parameters/apiVersion'),
          `${method} ${path}`,
        );
        assert.ok(operation.responses['200'] === undefined || operation.responses['200'].headers?.['X-AC-Api-Version'] !== undefined);
      }
    }
    assert.ok(operations > 500, `${operations} operations`);
  });
});
