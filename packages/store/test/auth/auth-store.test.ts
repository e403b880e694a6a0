// The auth records on every database: apps, tokens, codes, admins with lockout, sessions, plans.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { migrateToLatest, openDatabase, type Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { createAdmin, signIn } from '../../src/auth/admins.ts';
import { appSecret, authenticateClient, createApp, findApp, secretOf } from '../../src/auth/apps.ts';
import { authContext, type AuthContext } from '../../src/auth/context.ts';
import { findCode, issueCode, redeemCode } from '../../src/auth/oauth-codes.ts';
import { readPlan, setPlan } from '../../src/limits/plans.ts';
import type { AuthTables } from '../../src/auth/schema.ts';
import { csrfMatches, csrfToken, endSession, findSession, startSession } from '../../src/auth/sessions.ts';
import { createConsoleToken, issueOAuthTokens, refreshTokens, resolveToken, revokeToken, TokenInputError } from '../../src/auth/tokens.ts';
import { MIGRATION_PRODUCT, storeMigrations } from '../../src/db/migrations.ts';

for (const target of await testDatabaseTargets()) {
  describe(`auth records on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let database: Database<AuthTables>;
    let ctx: AuthContext;
    let clock = Date.parse('2026-01-01T00:00:00Z');
    let storeId: number;

    before(async () => {
      throwaway = await target.create();
      database = await openDatabase<AuthTables>(throwaway.url);
      await migrateToLatest(database, MIGRATION_PRODUCT, storeMigrations);
      await database.db
        .insertInto('stores')
        .values({ name: 'Test store', plan: 'silver', created_at: new Date(clock).toISOString() })
        .execute();
      storeId = (await database.db.selectFrom('stores').select('id').executeTakeFirstOrThrow()).id;
      ctx = authContext({
        db: database.db,
        dialect: database.dialect,
        key: randomBytes(32),
        now: () => clock,
        lockout: { maxFailures: 3, maxFailuresPerAccount: 6, windowMs: 60_000, lockMs: 120_000 },
      });
    });
    after(async () => {
      await database?.close();
      await throwaway?.drop();
    });

    test('an app gets an App ID and a secret the server can reproduce but does not store', async () => {
      const { app, secret } = await createApp(ctx, storeId, { name: 'Sync', kind: 'custom', redirectUri: 'https://sync.example/callback' });
      assert.equal(app.clientId, String(app.id), "the App ID is the app's number, as on the platform");
      assert.equal(await secretOf(ctx, app.clientId), secret);
      const row = await database.db.selectFrom('api_apps').selectAll().where('id', '=', app.id).executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(row).includes(secret), 'the secret itself is not in the row');
      assert.equal((await authenticateClient(ctx, app.clientId, secret))?.id, app.id);
      assert.equal(await authenticateClient(ctx, app.clientId, secret + 'x'), undefined);
      assert.notEqual(
        appSecret({ ...ctx, key: randomBytes(32) }, app.clientId, row.secret_nonce),
        secret,
        'another server key yields another secret',
      );
      await assert.rejects(createApp(ctx, storeId, { name: 'Sync', kind: 'custom' }), /already exists/);
      await assert.rejects(createApp(ctx, storeId, { name: 'Bad', kind: 'custom', redirectUri: 'http://evil.example/' }), /https/);
    });

    test('a token revoked through one instance stops working in another within a quarter second', async () => {
      const app = (await findApp(ctx, { name: 'Sync', storeId }))!;
      const issued = await createConsoleToken(ctx, app, { scopes: 'read_catalog' });
      // A second instance of the server: its own principal cache, the same database.
      const other = authContext({ db: database.db, dialect: database.dialect, key: ctx.key, now: () => clock });
      assert.ok('principal' in (await resolveToken(other, issued.accessToken)));
      clock += 200;
      assert.ok('principal' in (await resolveToken(other, issued.accessToken)), 'cached: no revocation yet');
      assert.equal(await revokeToken(ctx, storeId, issued.record.id), true);
      assert.deepEqual(await resolveToken(ctx, issued.accessToken), { problem: 'revoked' }, 'at once where it was revoked');
      clock += 250;
      assert.deepEqual(await resolveToken(other, issued.accessToken), { problem: 'revoked' });
    });

    test('a console token never expires, is stored hashed, and stops working once revoked', async () => {
      const app = (await findApp(ctx, { name: 'Sync', storeId }))!;
      const issued = await createConsoleToken(ctx, app, { scopes: 'read_catalog,orders' });
      assert.deepEqual(issued.record.scopes, ['read_catalog', 'orders', 'no_expiry']);
      const stored = await database.db
        .selectFrom('api_tokens')
        .select('token_hash')
        .where('id', '=', issued.record.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(stored.token_hash, issued.accessToken);
      clock += 400 * 24 * 3600_000;
      const found = await resolveToken(ctx, issued.accessToken);
      assert.ok('principal' in found && found.principal.kind === 'token' && found.principal.expiresAt === null);
      assert.equal(await revokeToken(ctx, storeId, issued.record.id), true);
      assert.deepEqual(await resolveToken(ctx, issued.accessToken), { problem: 'revoked' });
      assert.deepEqual(await resolveToken(ctx, 'nonsense'), { problem: 'unknown' });
      await assert.rejects(createConsoleToken(ctx, app, { scopes: 'read_people decrypt' }), TokenInputError);
      await assert.rejects(createConsoleToken(ctx, app, { scopes: 'read_people everything' }), /unknown scope: everything/);
    });

    test('OAuth access tokens expire; a refresh token works once', async () => {
      const app = (await findApp(ctx, { name: 'Sync', storeId }))!;
      const admin = await createAdmin(ctx, storeId, { email: 'Owner@Example.com', password: 'a long enough password' });
      const first = await issueOAuthTokens(ctx, app, { scopes: ['read_people', 'decrypt'], adminUserId: admin.id });
      assert.ok('principal' in (await resolveToken(ctx, first.accessToken)));
      clock += ctx.lifetimes.accessTokenMs + 1;
      assert.deepEqual(await resolveToken(ctx, first.accessToken), { problem: 'expired' });
      const second = await refreshTokens(ctx, app, first.refreshToken!);
      assert.ok(second !== undefined && second !== 'wider');
      assert.ok('principal' in (await resolveToken(ctx, second.accessToken)));
      assert.equal(await refreshTokens(ctx, app, second.refreshToken!, ['read_people', 'catalog']), 'wider');
      assert.equal(await refreshTokens(ctx, app, first.refreshToken!), undefined, 'a spent refresh token fails');
      const other = (await createApp(ctx, storeId, { name: 'Other', kind: 'installed' })).app;
      assert.equal(await refreshTokens(ctx, other, second.refreshToken!), undefined, 'another app cannot use it');
    });

    test('a code is single use, short lived, and its reuse revokes what it issued', async () => {
      const app = (await findApp(ctx, { name: 'Sync', storeId }))!;
      const admin = await createAdmin(ctx, storeId, { email: 'owner@example.com', password: 'a long enough password' });
      const grant = {
        app,
        adminUserId: admin.id,
        scopeText: 'read_catalog',
        scopes: ['read_catalog' as const],
        redirectUri: app.redirectUri!,
      };
      const { authId, code } = await issueCode(ctx, grant);
      const stored = (await findCode(ctx, { authId }))!;
      assert.equal(stored.code, code);
      assert.equal((await findCode(ctx, { code }))?.authId, authId);
      const issued = await redeemCode(ctx, stored, app);
      assert.ok(!('problem' in issued));
      assert.deepEqual(await redeemCode(ctx, stored, app), { problem: 'reused' });
      assert.deepEqual(await resolveToken(ctx, issued.accessToken), { problem: 'revoked' });
      const late = await issueCode(ctx, grant);
      clock += ctx.lifetimes.authorizationCodeMs + 1;
      assert.deepEqual(await redeemCode(ctx, (await findCode(ctx, { authId: late.authId }))!, app), { problem: 'expired' });
    });

    test('sign-in locks an account after repeated failures, even for the right password', async () => {
      const here = '198.51.100.7';
      await createAdmin(ctx, storeId, { email: 'clerk@example.com', password: 'the right password' });
      assert.equal((await signIn(ctx, 'clerk@example.com', 'the right password', here)).ok, true);
      for (let i = 0; i < 2; i++)
        assert.deepEqual(await signIn(ctx, 'clerk@example.com', 'wrong', here), { ok: false, reason: 'bad-credentials' });
      const third = await signIn(ctx, 'CLERK@example.com', 'wrong', here);
      assert.equal(!third.ok && third.reason, 'locked');
      const during = await signIn(ctx, 'clerk@example.com', 'the right password', here);
      assert.equal(!during.ok && during.reason, 'locked');
      clock += ctx.lockout.lockMs + 1;
      assert.equal((await signIn(ctx, 'clerk@example.com', 'the right password', here)).ok, true);
      assert.deepEqual(await signIn(ctx, 'nobody@example.com', 'whatever', here), { ok: false, reason: 'bad-credentials' });
    });

    test('guessing from one address does not lock the owner out elsewhere; guessing from many locks the account', async () => {
      await createAdmin(ctx, storeId, { email: 'buyer@example.com', password: 'the right password' });
      for (let i = 0; i < 3; i++) await signIn(ctx, 'buyer@example.com', 'wrong', '203.0.113.1');
      const attacker = await signIn(ctx, 'buyer@example.com', 'the right password', '203.0.113.1');
      assert.equal(!attacker.ok && attacker.reason, 'locked');
      assert.equal(
        (await signIn(ctx, 'buyer@example.com', 'the right password', '198.51.100.7')).ok,
        true,
        'the owner, from another address',
      );
      // Six failures since that success, from three addresses, lock the account for every address.
      for (const from of ['203.0.113.2', '203.0.113.2', '203.0.113.3', '203.0.113.3', '203.0.113.4']) {
        assert.deepEqual(await signIn(ctx, 'buyer@example.com', 'wrong', from), { ok: false, reason: 'bad-credentials' });
      }
      const sixth = await signIn(ctx, 'buyer@example.com', 'wrong', '203.0.113.5');
      assert.equal(!sixth.ok && sixth.reason, 'locked');
      const owner = await signIn(ctx, 'buyer@example.com', 'the right password', '198.51.100.7');
      assert.equal(!owner.ok && owner.reason, 'locked');
      clock += ctx.lockout.lockMs + 1;
      assert.equal((await signIn(ctx, 'buyer@example.com', 'the right password', '198.51.100.7')).ok, true);
    });

    test('sessions end on sign-out and expire; CSRF tokens bind to the session', async () => {
      const result = await signIn(ctx, 'owner@example.com', 'a long enough password', '198.51.100.7');
      assert.ok(result.ok);
      const { cookie } = await startSession(ctx, result.admin);
      assert.equal((await findSession(ctx, cookie))?.admin.email, 'owner@example.com');
      assert.equal(csrfMatches(ctx, cookie, csrfToken(ctx, cookie)), true);
      assert.equal(csrfMatches(ctx, cookie, csrfToken(ctx, 'another cookie')), false);
      await endSession(ctx, cookie);
      assert.equal(await findSession(ctx, cookie), undefined);
      const again = await startSession(ctx, result.admin);
      clock += ctx.lifetimes.sessionMs + 1;
      assert.equal(await findSession(ctx, again.cookie), undefined);
    });

    test('the plan level is read and set', async () => {
      assert.equal(await readPlan(ctx.db, storeId), 'silver');
      await setPlan(ctx.db, storeId, 'platinum');
      assert.equal(await readPlan(ctx.db, storeId), 'platinum');
    });
  });
}
