/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- replies are JSON checked by assertions */
// Events that expect a reply: asked while the write waits, within a time limit, with failure_type deciding
// what a silent receiver means, and replies reused for cache_length.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { secretOf } from '../../src/auth/apps.ts';
import { verifyDelivery } from '../../src/webhooks/signature.ts';
import { sqliteTarget } from '../support/targets.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { startReceiver, type Receiver } from './receiver.ts';

describe('webhooks that expect a reply', () => {
  let receiver: Receiver;
  let s: StoreUnderTest;
  before(async () => {
    receiver = await startReceiver();
    // A 1-second limit instead of the platform's 3, so the timeout cases run quickly.
    s = await startStoreUnderTest(await sqliteTarget(), {
      webhooks: { allowedNetworks: ['127.0.0.0/8'], ca: receiver.ca, replyLimitMs: 1000, deliver: false },
    });
  });
  after(async () => {
    await s?.close();
    await receiver?.close();
  });
  beforeEach(async () => {
    // One subscription at a time; the subscription list is re-read within a second.
    const all = await s.call('GET', '/webhooks', { headers: { 'cache-control': 'no-cache' } });
    for (const hook of all.json.webhooks as { id: number }[]) await s.call('DELETE', `/webhooks/${hook.id}`);
    await new Promise((resolve) => setTimeout(resolve, 1100));
  });

  const subscribe = async (path: string, extra: Record<string, unknown> = {}, event = 'ValidateProduct') => {
    const made = await s.call('POST', '/webhooks', { body: { event_type: event, url: `${receiver.origin}${path}`, ...extra } });
    assert.equal(made.status, 201, made.text);
    return made.json;
  };
  const count = async (name: string) =>
    (await s.call('GET', `/products?item_name=${encodeURIComponent(name)}`, { headers: { 'cache-control': 'no-cache' } })).json
      .total_count as number;

  test("ValidateProduct's messages refuse the write; an empty list lets it through", async () => {
    receiver.answer('/validate', { body: { validation_messages: ['Item numbers start with SKU-', 'A price is required'] } });
    const hook = await subscribe('/validate');
    const refused = await s.call('POST', '/products', { body: { item_name: 'Unchecked', item_number: 'X1' } });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.details, 'Item numbers start with SKU-; A price is required');
    assert.equal(await count('Unchecked'), 0);
    const [asked] = receiver.received.filter((r) => r.path === '/validate');
    assert.deepEqual(asked?.json, { product: { item_name: 'Unchecked', item_number: 'X1' } });
    assert.equal(asked?.headers['x-ac-event'], 'ValidateProduct');
    const secret = await secretOf(s.store.app.storeAuth, hook.app_client_id);
    assert.equal(
      verifyDelivery(
        secret ?? '',
        { signature: asked?.headers['x-ac-signature'] as string, timestamp: asked?.headers['x-ac-timestamp'] as string },
        asked?.body ?? '',
        Math.floor(Date.now() / 1000),
      ),
      true,
    );

    receiver.answer('/validate', { body: { validation_messages: [] } });
    const made = await s.call('POST', '/products', { body: { item_name: 'Checked', item_number: 'SKU-1', price: 2 } });
    assert.equal(made.status, 201);
    // A partial update is checked as the whole record it would make.
    const changed = await s.call('PUT', `/products/${made.json.id}`, { body: { price: 3 } });
    assert.equal(changed.status, 200);
    const update = receiver.received.filter((r) => r.path === '/validate').at(-1);
    assert.equal((update?.json as any).product.item_number, 'SKU-1');
    assert.equal((update?.json as any).product.price, 3);
  });

  test('failure_type Ignore: a receiver that misses the limit is passed over', async () => {
    receiver.answer('/slow-ignore', { delayMs: 1500, body: { validation_messages: ['too late'] } });
    await subscribe('/slow-ignore', { failure_type: 'Ignore' });
    const started = Date.now();
    const made = await s.call('POST', '/products', { body: { item_name: 'Passed over' } });
    assert.equal(made.status, 201);
    assert.ok(Date.now() - started < 1450, 'the write did not wait past the limit');
  });

  test('failure_type Error: the write fails with 502 and nothing is written', async () => {
    receiver.answer('/slow-error', { delayMs: 1500 });
    await subscribe('/slow-error', { failure_type: 'Error' });
    const refused = await s.call('POST', '/products', { body: { item_name: 'Blocked by a timeout' } });
    assert.equal(refused.status, 502);
    assert.match(refused.json.details, /ValidateProduct webhook .* failed \(no answer within 1 s\)/);
    assert.equal(await count('Blocked by a timeout'), 0);
    receiver.answer('/slow-error', { status: 500 });
    assert.equal((await s.call('POST', '/products', { body: { item_name: 'Blocked by a 500' } })).status, 502);
  });

  test('failure_type Fallback: the fallback URL answers instead', async () => {
    receiver.answer('/slow-primary', { delayMs: 1500 });
    receiver.answer('/fallback-validate', { body: { validation_messages: ['Refused by the fallback'] } });
    await subscribe('/slow-primary', { failure_type: 'Fallback', fallback_url: `${receiver.origin}/fallback-validate` });
    const refused = await s.call('POST', '/products', { body: { item_name: 'Fallback checked' } });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.details, 'Refused by the fallback');
  });

  test('cache_length Short reuses a reply to the same question; NoCache asks each time', async () => {
    receiver.answer('/cached', { body: { validation_messages: [] } });
    await subscribe('/cached', { cache_length: 'Short' });
    for (let i = 0; i < 3; i++) await s.call('POST', '/products', { body: { item_name: 'Same question' } });
    await s.call('POST', '/products', { body: { item_name: 'Another question' } });
    const asked = receiver.received.filter((r) => r.path === '/cached').map((r) => (r.json as any).product.item_name as string);
    assert.deepEqual(asked, ['Same question', 'Another question']);

    receiver.answer('/uncached', { body: { validation_messages: [] } });
    await subscribe('/uncached', { cache_length: 'NoCache' });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (let i = 0; i < 2; i++) await s.call('POST', '/products', { body: { item_name: 'Asked twice' } });
    assert.equal(receiver.received.filter((r) => r.path === '/uncached').length, 2);
  });

  test('ValidateCustomer checks customer writes, without the encrypted tax id', async () => {
    receiver.answer('/customer', { body: { validation_messages: ['No test addresses'] } });
    await subscribe('/customer', {}, 'ValidateCustomer');
    const refused = await s.call('POST', '/customers', { body: { email: 'someone@example.test', tax_exemption_number: '12-3456789' } });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.details, 'No test addresses');
    const [asked] = receiver.received.filter((r) => r.path === '/customer');
    assert.deepEqual(asked?.json, { customer: { email: 'someone@example.test' } });
  });

  test('importMany lines are refused as POSTs are, and a POST naming a record is checked as the record it would make', async () => {
    receiver.answer('/every-write', { body: { validation_messages: [] } });
    await subscribe('/every-write');
    const known = await s.call('POST', '/products', { body: { item_name: 'Known', item_number: 'SKU-KNOWN', price: 2 } });
    assert.equal(known.status, 201);

    receiver.answer('/every-write', { body: { validation_messages: ['No free products'] } });
    const imported = await s.call('POST', '/products/importMany', { body: [{ product: { item_name: 'Imported free', price: 0 } }] });
    assert.equal(imported.status, 200);
    assert.deepEqual(imported.json.results, [{ line_item: 0, status_code: 400, message: 'No free products' }]);
    assert.equal(await count('Imported free'), 0);

    const upsert = await s.call('POST', '/products', { body: { id: known.json.id, price: 0 } });
    assert.equal(upsert.status, 400);
    const asked = receiver.received.filter((r) => r.path === '/every-write').at(-1);
    assert.equal((asked?.json as any).product.item_number, 'SKU-KNOWN');
    assert.equal((asked?.json as any).product.price, 0);
  });
});
