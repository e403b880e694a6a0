// What the console's new actions do to the auth records, on every database: editing, rotating the secret of
// and deleting an app; adding and removing admins; changing one's own password.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { migrateToLatest, openDatabase, type Database } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { addAdmin, changePassword, createAdmin, removeAdmin, signIn } from '../../src/auth/admins.ts';
import { authenticateClient, createApp, deleteApp, findApp, rotateSecret, secretOf, updateApp } from '../../src/auth/apps.ts';
import { authContext, type AuthContext } from '../../src/auth/context.ts';
import { findCode, issueCode } from '../../src/auth/oauth-codes.ts';
import type { AuthTables } from '../../src/auth/schema.ts';
import { findSession, startSession } from '../../src/auth/sessions.ts';
import { createConsoleToken, resolveToken } from '../../src/auth/tokens.ts';
import { MIGRATION_PRODUCT, storeMigrations } from '../../src/db/migrations.ts';

for (const target of await testDatabaseTargets()) {
  describe(`console actions on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let database: Database<AuthTables>;
    let ctx: AuthContext;
    let storeId: number;

    before(async () => {
      throwaway = await target.create();
      database = await openDatabase<AuthTables>(throwaway.url);
      await migrateToLatest(database, MIGRATION_PRODUCT, storeMigrations);
      await database.db.insertInto('stores').values({ name: 'Test store', plan: 'silver', created_at: new Date().toISOString() }).execute();
      storeId = (await database.db.selectFrom('stores').select('id').executeTakeFirstOrThrow()).id;
      ctx = authContext({ db: database.db, dialect: database.dialect, key: randomBytes(32) });
    });
    after(async () => {
      await database?.close();
      await throwaway?.drop();
    });

    /** The token's principal when it works (a token's, never a session's), else why not. */
    const principalOf = async (token: string) => {
      const found = await resolveToken(ctx, token);
      if (!('principal' in found)) return found.problem;
      if (found.principal.kind !== 'token') throw new Error('a token resolved to a session');
      return found.principal;
    };

    test('editing an app renames it, checks the name and URI, and a new kind reaches cached tokens at once', async () => {
      const { app } = await createApp(ctx, storeId, { name: 'Editor', kind: 'custom' });
      await createApp(ctx, storeId, { name: 'Taken', kind: 'custom' });
      const { accessToken } = await createConsoleToken(ctx, app, { scopes: 'read_catalog' });
      const before = await principalOf(accessToken);
      assert.equal(typeof before === 'object' && before.appKind, 'custom');
      await assert.rejects(updateApp(ctx, app, { name: 'Taken', kind: 'custom' }), /already exists/);
      await assert.rejects(updateApp(ctx, app, { name: 'Editor', kind: 'custom', redirectUri: 'http://evil.example/' }), /https/);
      const updated = await updateApp(ctx, app, { name: 'Editor II', kind: 'installed', redirectUri: 'https://editor.example/cb' });
      assert.deepEqual(await findApp(ctx, { id: app.id, storeId }), updated);
      assert.equal(updated.redirectUri, 'https://editor.example/cb');
      const after = await principalOf(accessToken);
      assert.equal(typeof after === 'object' && after.appKind, 'installed', "the token now counts against the installed apps' limit");
      assert.deepEqual(
        await updateApp(ctx, updated, { name: 'Editor II', kind: 'installed' }),
        { ...updated, redirectUri: null },
        'keeping its own name is fine',
      );
    });

    test('rotating the secret: the new one authenticates and signs, the old one nothing; it is stored only as a hash', async () => {
      const { app, secret } = await createApp(ctx, storeId, { name: 'Rotator', kind: 'custom' });
      const { accessToken } = await createConsoleToken(ctx, app, { scopes: 'read_catalog' });
      const rotated = await rotateSecret(ctx, app);
      assert.notEqual(rotated, secret);
      assert.equal(await authenticateClient(ctx, app.clientId, secret), undefined);
      assert.equal((await authenticateClient(ctx, app.clientId, rotated))?.id, app.id);
      assert.equal(await secretOf(ctx, app.clientId), rotated, 'webhook signatures and platform OAuth signatures use the new one');
      const row = await database.db.selectFrom('api_apps').selectAll().where('id', '=', app.id).executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(row).includes(rotated));
      assert.equal(typeof (await principalOf(accessToken)), 'object', 'issued tokens keep working');
    });

    test('deleting an app stops its tokens and drops its OAuth codes, leaving other apps alone', async () => {
      const admin = await createAdmin(ctx, storeId, { email: 'granter@example.com', password: 'a long enough password' });
      const { app } = await createApp(ctx, storeId, { name: 'Doomed', kind: 'custom', redirectUri: 'https://doomed.example/cb' });
      const { app: other } = await createApp(ctx, storeId, { name: 'Survivor', kind: 'custom' });
      const doomed = await createConsoleToken(ctx, app, { scopes: 'read_catalog' });
      const kept = await createConsoleToken(ctx, other, { scopes: 'read_catalog' });
      assert.equal(typeof (await principalOf(doomed.accessToken)), 'object', 'cached before the deletion');
      const { authId } = await issueCode(ctx, {
        app,
        adminUserId: admin.id,
        scopeText: 'read_catalog',
        scopes: ['read_catalog'],
        redirectUri: 'https://doomed.example/cb',
        challenge: undefined,
      });
      await deleteApp(ctx, app);
      assert.equal(await findApp(ctx, { id: app.id, storeId }), undefined);
      assert.equal(await principalOf(doomed.accessToken), 'unknown');
      assert.equal(await findCode(ctx, { authId }), undefined);
      assert.equal(typeof (await principalOf(kept.accessToken)), 'object');
    });

    test('admins: adding refuses a taken email and no access; nobody removes themselves; removing ends sessions', async () => {
      const me = await createAdmin(ctx, storeId, { email: 'me@example.com', password: 'my own long password' });
      const added = await addAdmin(ctx, storeId, { email: 'New@Example.com', password: 'their first password', access: ['catalog'] });
      assert.equal(added.email, 'new@example.com');
      assert.deepEqual(added.access, ['catalog']);
      const hash = await database.db.selectFrom('users').select('password_hash').where('id', '=', added.id).executeTakeFirstOrThrow();
      assert.match(hash.password_hash, /^scrypt\$/);
      await assert.rejects(
        addAdmin(ctx, storeId, { email: 'new@example.com', password: 'another password', access: ['catalog'] }),
        /already an admin/,
      );
      await assert.rejects(
        addAdmin(ctx, storeId, { email: 'none@example.com', password: 'another password', access: [] }),
        /at least one area/,
      );
      const theirs = await startSession(ctx, added);
      await assert.rejects(removeAdmin(ctx, me, me.id), /cannot remove yourself/);
      await removeAdmin(ctx, me, added.id);
      assert.equal(await findSession(ctx, theirs.cookie), undefined, 'their session ended');
      assert.equal((await signIn(ctx, 'new@example.com', 'their first password', '192.0.2.7')).ok, false);
      await assert.rejects(removeAdmin(ctx, me, added.id), /no such admin/);
    });

    test('changing your password needs the current one, ends your other sessions and keeps this one', async () => {
      const me = await createAdmin(ctx, storeId, { email: 'changer@example.com', password: 'the old long password' });
      const here = await startSession(ctx, me);
      const elsewhere = await startSession(ctx, me);
      const session = await findSession(ctx, here.cookie);
      assert.ok(session);
      const input = { next: 'the new long password', repeated: 'the new long password', keepSessionId: session.id, address: '192.0.2.8' };
      await assert.rejects(changePassword(ctx, me, { ...input, current: 'not it' }), /current password is not right/);
      await assert.rejects(changePassword(ctx, me, { ...input, current: 'the old long password', repeated: 'something else' }), /differ/);
      await assert.rejects(
        changePassword(ctx, me, { ...input, current: 'the old long password', next: 'short', repeated: 'short' }),
        /at least 10/,
      );
      await changePassword(ctx, me, { ...input, current: 'the old long password' });
      assert.ok(await findSession(ctx, here.cookie));
      assert.equal(await findSession(ctx, elsewhere.cookie), undefined);
      assert.equal((await signIn(ctx, me.email, 'the new long password', '192.0.2.8')).ok, true);
      assert.equal((await signIn(ctx, me.email, 'the old long password', '192.0.2.8')).ok, false);
    });
  });
}
