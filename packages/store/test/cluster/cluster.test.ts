/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any -- replies are JSON checked by assertions */
// Three `store serve` processes on one PostgreSQL and one Redis behind HAProxy (`npm run cluster`), all private
// to this test: first what must behave as with one instance (exact rate limits, Idempotency-Key across
// instances, a console session on every instance, each webhook once), then, under a steady write load, one
// instance killed with SIGKILL and restarted, Redis restarted, PostgreSQL restarted. After each, every write the
// API acknowledged is in the database, no order was placed twice for one Idempotency-Key, no webhook is lost,
// and no answer was a 500 (a store's 503 carries Retry-After).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase, type Database } from '@app/database';
import { Agent, request } from 'undici';
import type { StoreSchema } from '../../src/db/schema.ts';
import { startCluster, type Cluster } from '../../scripts/cluster/cluster.ts';
import { startPrivatePostgres, type PrivatePostgres } from '@app/database/testing';
import { clusterUnavailableReason } from '../support/cluster-requirements.ts';
import { startPrivateRedis, type PrivateRedis } from '../support/private-redis.ts';
import { receiverCertificate, startReceiver, type Receiver } from '../webhooks/receiver.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const skip = clusterUnavailableReason();

describe('a cluster of three instances behind HAProxy', { skip }, () => {
  let postgres: PrivatePostgres;
  let redis: PrivateRedis;
  let receiver: Receiver;
  let cluster: Cluster;
  let database: Database<StoreSchema>;
  let dispatcher: Agent;
  let dir: string;
  /** Tokens of apps of their own: the load's writers, and one for the checks. */
  let tokens: string[];
  /** The console session the session test started, used again while PostgreSQL is down. */
  let session = '';

  async function call(
    base: string,
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    token: string | undefined,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const response = await request(`${base}${path}`, {
      method,
      dispatcher,
      headers: {
        ...(token === undefined ? {} : { 'x-ac-auth-token': token }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, headers: response.headers, text, json };
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'store-cluster-test-'));
    postgres = await startPrivatePostgres();
    const databaseUrl = await postgres.createDatabase('store');
    redis = await startPrivateRedis();
    const tls = await receiverCertificate();
    receiver = await startReceiver({ tls });
    const caFile = join(dir, 'receiver-ca.pem');
    writeFileSync(caFile, tls.cert);
    cluster = await startCluster({
      databaseUrl,
      redisUrl: redis.url,
      dir: join(dir, 'cluster'),
      webhookNetworks: '127.0.0.0/8',
      webhookCaFile: caFile,
    });
    dispatcher = new Agent({ connect: { ca: cluster.certificate }, connections: 64 });
    database = await openDatabase<StoreSchema>(databaseUrl);
    tokens = await cluster.tokens(9);
    const subscribed = await call(cluster.apiUrl, 'POST', '/webhooks', tokens[8], {
      event_type: 'NewOrder',
      url: `${receiver.origin}/orders`,
    });
    assert.equal(subscribed.status, 201, subscribed.text);
  });

  after(async () => {
    await cluster?.stop();
    await dispatcher?.close();
    await database?.close();
    await receiver?.close();
    await redis?.stop();
    await postgres?.remove();
    if (process.env.KEEP_CLUSTER_DIR === undefined) rmSync(dir, { recursive: true, force: true });
    else console.log(`# cluster files kept in ${dir}`);
  });

  const instance = (n: number) => cluster.instances[n]?.apiUrl ?? '';
  const checker = () => tokens[8] ?? '';

  test('rate limits are exact across instances: 50 of 60 calls in one window pass, wherever they land', async () => {
    const [token] = await cluster.tokens(1);
    // Windows are aligned to the clock's 10 s; start early in one so every call falls in it.
    while (Date.now() % 10_000 > 3000) await sleep(100);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        call(instance(i % 3), 'GET', '/products?count=1', token, undefined, { 'cache-control': 'no-cache' }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    assert.equal(statuses.filter((s) => s === 200).length, 50, statuses.join(' '));
    assert.equal(statuses.filter((s) => s === 429).length, 10);
    assert.ok(answers.filter((a) => a.status === 429).every((a) => a.headers['retry-after'] !== undefined));
  });

  test('an Idempotency-Key holds across instances, also for two requests at once on different instances', async () => {
    const key = `two-at-once-${Date.now()}`;
    const body = { admin_comments: key, grand_total: 12.5 };
    const [one, two] = await Promise.all([
      call(instance(0), 'POST', '/orders', checker(), body, { 'idempotency-key': key }),
      call(instance(1), 'POST', '/orders', checker(), body, { 'idempotency-key': key }),
    ]);
    assert.equal(one?.status, 201, one?.text);
    assert.equal(two?.status, 201, two?.text);
    assert.equal(one.json.id, two.json.id);
    assert.equal([one.headers['idempotent-replayed'], two.headers['idempotent-replayed']].filter((h) => h === 'true').length, 1);
    const third = await call(instance(2), 'POST', '/orders', checker(), body, { 'idempotency-key': key });
    assert.equal(third.json.id, one.json.id);
    assert.equal(third.headers['idempotent-replayed'], 'true');
    const rows = await database.db.selectFrom('orders').select('id').where('admin_comments', '=', key).execute();
    assert.equal(rows.length, 1);
  });

  test('a console session started on one instance works on the others', async () => {
    const admin = cluster.admin;
    assert.ok(admin !== undefined, 'the first instance made the store and printed its admin');
    const origin = (n: number) => instance(n).replace(/\/api\/v1$/, '');
    const form = await request(`${origin(0)}/admin/sign-in`, { dispatcher });
    const presession = String(form.headers['set-cookie']).split(';')[0] ?? '';
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.body.text())?.[1] ?? '';
    const signedIn = await request(`${origin(0)}/admin/sign-in`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: presession },
      body: new URLSearchParams({ _csrf: csrf, email: admin.email, password: admin.password }).toString(),
    });
    await signedIn.body.dump();
    assert.equal(signedIn.statusCode, 303);
    const cookies = [signedIn.headers['set-cookie']].flat().map((c) => String(c).split(';')[0]);
    session = cookies.find((c) => c?.startsWith('__Host-store_session=')) ?? '';
    assert.ok(session !== '', 'a session cookie was set');
    for (const n of [1, 2]) {
      const page = await request(`${origin(n)}/admin/apps`, { dispatcher, headers: { cookie: session } });
      const html = await page.body.text();
      assert.equal(page.statusCode, 200, `store${n + 1}: ${html.slice(0, 200)}`);
      assert.match(html, new RegExp(admin.email.replaceAll('.', '\\.')));
    }
    // Through HAProxy too, which sets X-Forwarded-Proto for the instance that answers.
    const viaProxy = await request(`${cluster.origin}/admin`, { dispatcher, headers: { cookie: session } });
    await viaProxy.body.dump();
    assert.equal(viaProxy.statusCode, 200);
  });

  test('OAuth across instances: authorize on one, consent on another, exchange the code on a third', async () => {
    assert.ok(session !== '', 'the session test ran first');
    const redirectUri = 'https://partner.example/back';
    const client = await cluster.oauthClient(redirectUri);
    const origin = (n: number) => instance(n).replace(/\/api\/v1$/, '');
    const verifier = randomBytes(40).toString('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      scope: 'read_catalog',
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const shown = await request(`${origin(0)}/api/oauth?${query.toString()}`, { dispatcher, headers: { cookie: session } });
    const page = await shown.body.text();
    assert.equal(shown.statusCode, 200, page.slice(0, 300));
    const fields = Object.fromEntries(
      [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
        m[1] ?? '',
        (m[2] ?? '').replaceAll('&amp;', '&'),
      ]),
    );
    const consent = await request(`${origin(1)}/api/oauth`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session },
      body: new URLSearchParams({ ...fields, decision: 'allow' }).toString(),
    });
    await consent.body.dump();
    assert.equal(consent.statusCode, 303);
    const back = new URL(String(consent.headers.location));
    const exchanged = await call(origin(2), 'POST', '/api/oauth/token', undefined, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code'),
      redirect_uri: redirectUri,
      client_id: client.clientId,
      client_secret: client.secret,
      code_verifier: verifier,
    });
    assert.equal(exchanged.status, 200, exchanged.text);
    const read = await call(cluster.apiUrl, 'GET', '/products?count=1', String(exchanged.json.access_token));
    assert.equal(read.status, 200);
  });

  test("caching across instances: a write on one drops the others' cached reads", async () => {
    const created = await call(instance(0), 'POST', '/products', checker(), { item_name: 'Before' });
    assert.equal(created.status, 201, created.text);
    const path = `/products/${String(created.json.id)}`;
    // Read twice on store1: the second answer comes from its cache.
    for (let i = 0; i < 2; i += 1) assert.equal((await call(instance(0), 'GET', path, checker())).json.item_name, 'Before');
    assert.equal((await call(instance(1), 'PUT', path, checker(), { item_name: 'After' })).status, 200);
    // The write is announced over Redis; store1 drops its entry as soon as the message arrives.
    const deadline = Date.now() + 2000;
    let seen = '';
    while (Date.now() < deadline && seen !== 'After') {
      seen = String((await call(instance(0), 'GET', path, checker())).json.item_name);
      if (seen !== 'After') await sleep(50);
    }
    assert.equal(seen, 'After');
  });

  /** NewOrder bodies received, by order id, and how often each delivery id came. */
  function receivedOrders(): { orders: Map<number, number>; deliveries: Map<string, number> } {
    const orders = new Map<number, number>();
    const deliveries = new Map<string, number>();
    for (const r of receiver.received) {
      if (r.path !== '/orders') continue;
      const id = Number((r.json as any)?.order?.id);
      orders.set(id, (orders.get(id) ?? 0) + 1);
      const delivery = String(r.headers['x-ac-delivery']);
      deliveries.set(delivery, (deliveries.get(delivery) ?? 0) + 1);
    }
    return { orders, deliveries };
  }

  /** Waits until every order in the database has had its NewOrder delivered. */
  async function everyOrderDelivered(timeoutMs: number): Promise<number[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ids = (await database.db.selectFrom('orders').select('id').execute()).map((r) => Number(r.id));
      const { orders } = receivedOrders();
      const lost = ids.filter((id) => !orders.has(id));
      if (lost.length === 0 || Date.now() > deadline) return lost;
      await sleep(250);
    }
  }

  test('each webhook event is delivered once, whichever instance wrote it', async () => {
    const written = await Promise.all(
      Array.from({ length: 24 }, (_, i) => call(cluster.apiUrl, 'POST', '/orders', checker(), { admin_comments: `once ${i}` })),
    );
    assert.deepEqual(
      written.map((w) => w.status),
      written.map(() => 201),
    );
    assert.deepEqual(await everyOrderDelivered(30_000), []);
    await sleep(1500); // a second delivery, if any, would come within the workers' next look
    const { deliveries } = receivedOrders();
    assert.deepEqual(
      [...deliveries.entries()].filter(([, n]) => n > 1),
      [],
    );
  });

  interface Write {
    key: string;
    writer: number;
    acknowledged: number | undefined;
    statuses: number[];
  }

  /**
   * Writers, each with an app (and so a rate limit) of its own, placing orders through HAProxy for `ms`, each
   * retried with its Idempotency-Key, as a careful client does, until it is answered or the load ends. `during`
   * runs the fault meanwhile.
   */
  async function underLoad(label: string, ms: number, during: () => Promise<void>): Promise<{ writes: Write[]; answers: Answer[] }> {
    const writes: Write[] = [];
    const answers: Answer[] = [];
    const end = Date.now() + ms;
    const writer = async (n: number) => {
      const token = tokens[n] ?? '';
      let count = 0;
      while (Date.now() < end) {
        const write: Write = { key: `${label}-${n}-${count}`, writer: n, acknowledged: undefined, statuses: [] };
        count += 1;
        writes.push(write);
        // A write is retried past the end of the load, for a while, so an outage at the end still settles.
        while (Date.now() < end + 8000) {
          let answer: Answer;
          try {
            answer = await call(
              cluster.apiUrl,
              'POST',
              '/orders',
              token,
              { admin_comments: write.key, grand_total: 1 },
              { 'idempotency-key': write.key },
            );
          } catch {
            write.statuses.push(0);
            await sleep(200);
            continue;
          }
          answers.push(answer);
          write.statuses.push(answer.status);
          if (answer.status === 201) {
            write.acknowledged = Number(answer.json.id);
            break;
          }
          // 409: the key is held by a request that has not finished (or whose instance died during it); 429, 502, 503: again shortly.
          const wait = Number(answer.headers['retry-after'] ?? 0.2);
          await sleep(Math.min(2000, Math.max(100, wait * 1000)));
          if (answer.status === 409 && write.statuses.filter((s) => s === 409).length > 20) break; // outcome unknown: a client would check, then use a new key
        }
        await sleep(150);
      }
    };
    await Promise.all([...Array.from({ length: 8 }, (_, n) => writer(n)), during()]);
    return { writes, answers };
  }

  async function checkNothingLost(label: string, writes: Write[], answers: Answer[]): Promise<void> {
    assert.ok(writes.length > 20, `${label}: the load placed ${writes.length} writes`);
    const acknowledged = writes.filter((w) => w.acknowledged !== undefined);
    assert.ok(acknowledged.length > writes.length / 2, `${label}: ${acknowledged.length} of ${writes.length} writes acknowledged`);
    // No 500, ever; a 503 from the store (JSON in its format) says when to retry.
    assert.deepEqual(
      answers.filter((a) => a.status === 500).map((a) => a.text),
      [],
    );
    const storeBusy = answers.filter((a) => a.status === 503 && a.json?.status_code === 503);
    assert.ok(
      storeBusy.every((a) => a.headers['retry-after'] !== undefined),
      `${label}: a 503 without Retry-After`,
    );
    const rows = await database.db
      .selectFrom('orders')
      .select(['id', 'admin_comments'])
      .where('admin_comments', 'like', `${label}-%`)
      .execute();
    const byKey = new Map<string, number[]>();
    for (const row of rows) byKey.set(String(row.admin_comments), [...(byKey.get(String(row.admin_comments)) ?? []), Number(row.id)]);
    // Every acknowledged write is there, with the id the API answered.
    assert.deepEqual(
      acknowledged.filter((w) => !(byKey.get(w.key) ?? []).includes(w.acknowledged ?? -1)).map((w) => w.key),
      [],
    );
    // No Idempotency-Key placed two orders.
    assert.deepEqual(
      [...byKey.entries()].filter(([, ids]) => ids.length > 1),
      [],
    );
    // No webhook lost: every order (acknowledged or not) has its NewOrder at the receiver; leases of a killed instance run out in 25 s.
    assert.deepEqual(await everyOrderDelivered(60_000), []);
    const statuses = new Map<number, number>();
    for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    console.log(
      `# ${label}: ${writes.length} writes, ${acknowledged.length} acknowledged, ${rows.length} orders; answers ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
  }

  test('one instance killed with SIGKILL and restarted loses nothing', async () => {
    const victim = cluster.instances[1];
    assert.ok(victim !== undefined);
    const { writes, answers } = await underLoad('kill', 6000, async () => {
      await sleep(1500);
      await victim.kill();
      await sleep(1500);
      await victim.start();
    });
    assert.ok(victim.running);
    await checkNothingLost('kill', writes, answers);
  });

  test('Redis restarted loses nothing, and limits stay per instance while it is away', async () => {
    const { writes, answers } = await underLoad('redis', 6000, async () => {
      await sleep(1500);
      await redis.stop();
      await sleep(2000);
      await redis.start();
    });
    await checkNothingLost('redis', writes, answers);
    // Every answer still carried the rate-limit headers: counting went on in each instance's memory.
    assert.ok(answers.filter((a) => a.status < 500).every((a) => a.headers['x-ac-call-limit'] !== undefined));
    const logs = cluster.instances.map((i) => readFileSync(join(dir, 'cluster', `${i.name}.log`), 'utf8')).join('\n');
    assert.match(logs, /limiting per instance until it answers/);
  });

  test('PostgreSQL restarted loses nothing, and the store answers 503 with Retry-After while it is down', async () => {
    const others: Answer[] = [];
    const { writes, answers } = await underLoad('postgres', 6000, async () => {
      await sleep(1500);
      await postgres.stop();
      await sleep(500);
      // The console and the OAuth token endpoint say so too, each in its own format.
      const page = await request(`${cluster.origin}/admin/apps`, { dispatcher, headers: { cookie: session } });
      others.push({ status: page.statusCode, headers: page.headers, text: await page.body.text(), json: undefined });
      others.push(
        await call(cluster.origin, 'POST', '/api/oauth/token', undefined, {
          grant_type: 'refresh_token',
          refresh_token: 'x',
          client_id: '1',
          client_secret: 'y',
        }),
      );
      await sleep(1500);
      await postgres.start();
    });
    assert.deepEqual(
      others.map((a) => [a.status, a.headers['retry-after'] !== undefined]),
      [
        [503, true],
        [503, true],
      ],
      others.map((a) => a.text.slice(0, 200)).join('\n'),
    );
    assert.equal(others[1]?.json?.error, 'temporarily_unavailable');
    const down = answers.filter((a) => a.status === 503 && a.json?.status_code === 503);
    assert.ok(down.length > 0, 'some writes met the database down');
    assert.ok(down.every((a) => a.headers['retry-after'] !== undefined));
    await checkNothingLost('postgres', writes, answers);
  });
});
