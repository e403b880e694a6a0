/* eslint-disable @typescript-eslint/no-unsafe-member-access -- replies are JSON checked by assertions */
// A customer's tax id is kept encrypted at rest and goes only to OAuth tokens granted `decrypt`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '@app/database';
import { testDatabaseTargets } from '@app/database/testing';
import { createApp, type App } from '../../src/auth/apps.ts';
import { issueOAuthTokens, createConsoleToken } from '../../src/auth/tokens.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test.ts';
import { signInOverHttp } from './support/console-session.ts';

const sqlite = (await testDatabaseTargets()).find((t) => t.dialect === 'sqlite');

describe('encrypted fields', () => {
  let sut: StoreUnderTest;
  let client: App;
  let customerId: number;
  let databaseUrl: string;

  before(async () => {
    assert.ok(sqlite);
    const throwaway = await sqlite.create();
    databaseUrl = throwaway.url;
    sut = await startStoreUnderTest({ ...sqlite, create: () => Promise.resolve(throwaway) });
    client = (await createApp(sut.store.app.storeAuth, sut.store.firstStart?.storeId ?? 1, { name: 'Accounting', kind: 'installed' })).app;
  });
  after(async () => {
    await sut?.close();
  });

  const oauthToken = async (scopes: Scope[]) =>
    (await issueOAuthTokens(sut.store.app.storeAuth, client, { scopes, adminUserId: 1 })).accessToken;

  test('are written encrypted, and a non-expiring token never sees them', async () => {
    const writer = (await createConsoleToken(sut.store.app.storeAuth, client, { scopes: 'people' })).accessToken;
    const created = await sut.call('POST', '/customers', {
      headers: { 'x-ac-auth-token': writer },
      body: { email: 'ada@example.com', tax_exemption_number: 'GB123456789' },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal('tax_exemption_number' in created.json, false);
    customerId = created.json.id as number;
    const read = await sut.call('GET', `/customers/${customerId}`, { headers: { 'x-ac-auth-token': writer } });
    assert.equal('tax_exemption_number' in read.json, false);
    const database = await openDatabase<{ customers: { id: number; tax_exemption_number: string | null } }>(databaseUrl);
    try {
      const row = await database.db
        .selectFrom('customers')
        .select('tax_exemption_number')
        .where('id', '=', customerId)
        .executeTakeFirstOrThrow();
      assert.match(row.tax_exemption_number ?? '', /^enc:v1:/);
      assert.ok(!(row.tax_exemption_number ?? '').includes('GB123456789'));
    } finally {
      await database.close();
    }
  });

  test('an OAuth token granted decrypt reads them, in records and in lists', async () => {
    const token = await oauthToken(['read_people', 'decrypt']);
    const one = await sut.call('GET', `/customers/${customerId}`, { headers: { 'x-ac-auth-token': token } });
    assert.equal(one.json.tax_exemption_number, 'GB123456789');
    const list = await sut.call('GET', '/customers', { headers: { 'x-ac-auth-token': token } });
    assert.equal(list.json.customers[0].tax_exemption_number, 'GB123456789');
  });

  test('an OAuth token without decrypt, a non-expiring OAuth token, and a browser session do not', async () => {
    for (const scopes of [['read_people'], ['read_people', 'decrypt', 'no_expiry']] as Scope[][]) {
      const reply = await sut.call('GET', `/customers/${customerId}`, { headers: { 'x-ac-auth-token': await oauthToken(scopes) } });
      assert.equal(reply.status, 200);
      assert.equal('tax_exemption_number' in reply.json, false, scopes.join(' '));
    }
    const first = sut.store.firstStart;
    assert.ok(first);
    const { session } = await signInOverHttp(sut, first.email, first.password);
    assert.ok(session);
    const reply = await sut.call('GET', '/customers', { headers: { cookie: session.cookie } });
    assert.equal(reply.status, 200);
    assert.equal('tax_exemption_number' in reply.json.customers[0], false);
  });
});
