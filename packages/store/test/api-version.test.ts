// X-AC-Api-Version: the version a request names by date, the one every answer reports, and an operation a newer
// version removed: served to earlier versions with Deprecation (RFC 9745) and Sunset (RFC 8594), 410 to the others
// and to everyone after its sunset. The removal rules run on a small app with a version table of the test's own
// (the store removes nothing yet); the header itself runs on the real store.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { parseItem } from 'structured-headers';
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
