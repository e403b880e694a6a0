/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- replies are JSON checked by assertions */
// Where webhooks may go is decided on addresses, never on how a host is spelt (issue 32 item 6): a name starting
// with `127.` is a name like any other, and IPv6 spellings of loopback or private IPv4 addresses are refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { targetPolicy, type Lookup } from '../../src/webhooks/target-policy.ts';
import { sqliteTarget } from '../support/targets.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';

const names: Record<string, string[]> = {
  '127.evil.example': ['203.0.113.7'],
  'hooks.dev.test': ['127.0.0.1', '::1'],
  'split.dev.test': ['127.0.0.1', '203.0.113.8'],
  'mapped.dev.test': ['::ffff:127.0.0.1'],
  'compatible.dev.test': ['::127.0.0.1'],
};
const lookup: Lookup = (hostname) =>
  Object.hasOwn(names, hostname) ? Promise.resolve(names[hostname] ?? []) : Promise.reject(new Error(`${hostname} does not resolve`));

describe('the webhook address rule', () => {
  const development = targetPolicy(['127.0.0.0/8', '::1'], lookup);
  const strict = targetPolicy([], lookup);

  test('plain http is judged on the addresses a name resolves to, not on its spelling', async () => {
    assert.match((await development.resolvedUrlProblem('http://127.evil.example/')) ?? '', /must use https.*203\.0\.113\.7/);
    assert.match(
      (await development.resolvedUrlProblem('http://split.dev.test/')) ?? '',
      /must use https/,
      'every address must be loopback',
    );
    assert.match((await development.resolvedUrlProblem('http://nowhere.dev.test/')) ?? '', /does not resolve/);
    assert.equal(await development.resolvedUrlProblem('http://hooks.dev.test:8080/hook'), undefined);
    assert.equal(await development.resolvedUrlProblem('http://mapped.dev.test/'), undefined);
    assert.match((await development.resolvedUrlProblem('http://compatible.dev.test/')) ?? '', /must use https/);
    assert.match(
      (await strict.resolvedUrlProblem('http://hooks.dev.test/')) ?? '',
      /not allowed for webhooks/,
      "loopback still needs the operator's leave",
    );
    assert.equal(await strict.resolvedUrlProblem('https://127.evil.example/'), undefined, 'an https name is checked when connecting');
  });

  test('IPv4-compatible, 6to4 and NAT64 spellings of loopback and private addresses are refused, allowed networks or not', async () => {
    for (const url of [
      'https://[::127.0.0.1]/',
      'https://[::7f00:1]/',
      'https://[2002:7f00:1::]/',
      'https://[2002:a00:1::1]/',
      'https://[2002:c0a8:101::]/',
      'https://[64:ff9b::7f00:1]/',
      'http://[::7f00:1]/',
      'http://[2002:7f00:1::]/',
    ]) {
      for (const policy of [development, strict]) assert.ok((await policy.resolvedUrlProblem(url)) !== undefined, url);
    }
    for (const address of ['::127.0.0.1', '::7f00:1', '2002:7f00:1::1', '::10.0.0.1', '2002:a9fe:a9fe::'])
      assert.ok(development.addressProblem(address) !== undefined, address);
    // A mapped address is the IPv4 address itself: refused unless allowed, and loopback for plain http.
    assert.ok(strict.addressProblem('::ffff:127.0.0.1') !== undefined);
    assert.equal(await development.resolvedUrlProblem('http://[::ffff:127.0.0.1]:8080/'), undefined);
    // Public addresses in those spellings are not special.
    assert.equal(strict.addressProblem('2002:cb00:7107::1'), undefined);
  });
});

describe('the webhook address rule through the API', () => {
  let s: StoreUnderTest;
  before(async () => {
    s = await startStoreUnderTest(await sqliteTarget(), { webhooks: { allowedNetworks: ['127.0.0.0/8', '::1'], deliver: false } });
  });
  after(() => s?.close());

  test('http://127.evil.example/ and IPv6 spellings of loopback are a 400', async () => {
    for (const url of [
      'http://127.evil.example/',
      'http://127.0.0.1.evil.example/',
      'https://[::127.0.0.1]/',
      'https://[2002:7f00:1::]/',
      'http://[::7f00:1]/',
    ]) {
      const reply = await s.call('POST', '/webhooks', { body: { event_type: 'ProductCreated', url } });
      assert.equal(reply.status, 400, `${url}: ${reply.text}`);
      assert.match(reply.json.details, /^url: /);
    }
    const local = await s.call('POST', '/webhooks', { body: { event_type: 'ProductCreated', url: 'http://127.0.0.1:9/hook' } });
    assert.equal(local.status, 201, local.text);
  });
});
