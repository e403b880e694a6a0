/* eslint-disable @typescript-eslint/no-unsafe-member-access -- replies are JSON checked by assertions */
// Ids no record can have (past the 32-bit id column, 0, not digits) in every route that takes one: the route's own
// 4xx in its own format (an HTML page in the console, the store's error body in the API), never a 500 from a
// database that cannot compare the column with it. Found by the every-route property test (issue 40).
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { before, test } from 'node:test';
import { createApp } from '../src/auth/apps.ts';
import { csrfIn, form, FORM, signInOverHttp, type ConsoleSession } from './auth/support/console-session.ts';
import { servedRoutes } from './support/served-routes.ts';
import type { Reply, StoreUnderTest } from './support/store-under-test.ts';
import { describeOnEachDatabase } from './support/each-database.ts';

const OUT_OF_RANGE = ['4294967297', '2147483648', '99999999999', '0', '-1'];

/** Sends the path exactly as written: no URL parser folds `%2e%2e` into `..` on the way. */
function rawRequest(
  s: StoreUnderTest,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; type: string; text: string }> {
  const { hostname, port } = new URL(s.api);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: hostname,
        port,
        method,
        path,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ca: s.store.certificate,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function assertConsolePage(reply: { status: number; text: string; headers?: Reply['headers'] } & { type?: string }, where: string): void {
  const type = reply.type ?? String(reply.headers?.['content-type'] ?? '');
  assert.ok(reply.status >= 400 && reply.status < 500, `${where}: ${reply.status} ${reply.text.slice(0, 200)}`);
  assert.match(type, /^text\/html/, `${where}: not an HTML page but ${type} ${reply.text.slice(0, 200)}`);
  assert.match(reply.text, /<h1>/, where);
}

function assertApiError(reply: Reply, where: string): void {
  assert.ok(reply.status >= 400 && reply.status < 500, `${where}: ${reply.status} ${reply.text.slice(0, 200)}`);
  assert.match(String(reply.headers['content-type']), /^application\/json/, where);
  assert.equal(reply.json?.status_code, reply.status, where);
}

await describeOnEachDatabase("ids outside the id column's range", (s) => {
  let origin: string;
  let session: ConsoleSession;
  let appId: number;
  before(async () => {
    origin = new URL(s.api).origin;
    const admin = s.store.firstStart;
    assert.ok(admin !== undefined);
    const signed = await signInOverHttp(s, admin.email, admin.password);
    assert.ok(signed.session !== undefined);
    session = signed.session;
    appId = (await createApp(s.store.app.storeAuth, admin.storeId, { name: 'Addressed', kind: 'custom' })).app.id;
  });

  test("GET /admin/webhooks/4294967297 with a session answers the console's 404 page, not a 500", async () => {
    const reply = await s.call('GET', `${origin}/admin/webhooks/4294967297`, { headers: { cookie: session.cookie } });
    assert.equal(reply.status, 404, reply.text.slice(0, 300));
    assertConsolePage(reply, 'GET /admin/webhooks/4294967297');
  });

  test('POST /admin/apps/3/tokens/%2e%2e/revoke answers an HTML page, whatever the body and however the path is read', async () => {
    const small = form({ _csrf: session.csrf });
    const huge = `${small}&label=${'x'.repeat(2 * 1024 * 1024)}`;
    for (const [body, type] of [
      [small, FORM],
      [huge, FORM],
      [huge, 'application/json'],
    ] as const) {
      const headers = { cookie: session.cookie, 'content-type': type };
      // undici (like a browser) sends /admin/apps/3/revoke; a raw client sends the dots encoded.
      const parsed = await s.call('POST', `${origin}/admin/apps/${appId}/tokens/%2e%2e/revoke`, { rawBody: body, headers });
      assertConsolePage(parsed, `parsed path, ${type}, ${body.length} bytes`);
      const raw = await rawRequest(s, 'POST', `/admin/apps/${appId}/tokens/%2e%2e/revoke`, headers, body);
      assert.ok(raw.status === 303 || raw.status >= 400, `raw path: ${raw.status}`);
      if (raw.status >= 400) assertConsolePage(raw, `raw path, ${type}, ${body.length} bytes`);
    }
  });

  test('every route with an id in its path refuses an id no record can have, in its own format', async () => {
    const failures: string[] = [];
    for (const route of servedRoutes(s.store.app).filter((r) => r.path.includes('/:') && r.method !== 'HEAD')) {
      const console = route.path.startsWith('/admin');
      for (const bad of OUT_OF_RANGE) {
        // Each parameter in turn is the bad one; the others name records that exist.
        for (const param of route.path.match(/:[A-Za-z]+/g) ?? []) {
          const path = route.path.replaceAll(/:[A-Za-z]+/g, (p) => (p === param ? bad : console ? String(appId) : '1'));
          const csrf = console ? csrfIn((await s.call('GET', `${origin}/admin`, { headers: { cookie: session.cookie } })).text) : '';
          const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : console ? form({ _csrf: csrf }) : '{}';
          const reply = await s.call(route.method, `${origin}${path}`, {
            ...(body === undefined ? {} : { rawBody: body }),
            headers: console
              ? { cookie: session.cookie, ...(body === undefined ? {} : { 'content-type': FORM }) }
              : body === undefined
                ? {}
                : { 'content-type': 'application/json' },
          });
          const where = `${route.method} ${path}`;
          try {
            // A revoke of a token the app does not have goes back to the app's page, as for any unknown token.
            if (console && reply.status === 303) continue;
            if (console) assertConsolePage(reply, where);
            else assertApiError(reply, where);
          } catch (error) {
            failures.push(error instanceof Error ? error.message : String(error));
          }
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  test('ids past the column in queries and bodies are 400s', async () => {
    const cart = await s.call('POST', '/carts', { body: {} });
    assert.equal(cart.status, 201, cart.text);
    for (const [method, path, body] of [
      ['GET', '/products/select_many?ids=4294967297', undefined],
      ['GET', '/inventory?product_id=4294967297', undefined],
      ['POST', '/products', { id: 4294967297, item_name: 'Upserted past the column' }],
      [`POST`, `/carts/${String(cart.json.id)}/items`, { items: [{ product_id: 4294967297, quantity: 1 }] }],
    ] as const) {
      const reply = await s.call(method, path, body === undefined ? {} : { body });
      assert.equal(reply.status, 400, `${method} ${path}: ${reply.text}`);
      assertApiError(reply, path);
    }
  });
});
