import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { challengeOf, parseChallengeMethod, verifierMatches } from '../../src/auth/pkce.ts';
import { accessTokenSignature, refreshSignature, signatureMatches } from '../../src/auth/platform-signature.ts';
import { redirectSpellings, sameRedirect } from '../../src/auth/redirect-spellings.ts';
import { allows, parseScopes, requiredScope, ScopeError } from '../../src/auth/scopes.ts';
import { hashSecret, newSecret } from '../../src/auth/token-secret.ts';
import { lockedUntil } from '../../src/auth/lockout.ts';
import { principalCache } from '../../src/auth/principal-cache.ts';
import { planName, plans } from '../../src/limits/plans.ts';

describe('scopes', () => {
  test('parses lists separated by spaces, commas or plus signs, in canonical order', () => {
    assert.deepEqual(parseScopes('catalog,read_orders  no_expiry+read_catalog'), ['read_catalog', 'catalog', 'read_orders', 'no_expiry']);
  });
  test('an unknown scope is an error naming it', () => {
    assert.throws(
      () => parseScopes('read_catalog admin everything'),
      (e: Error) => e instanceof ScopeError && /admin, everything/.test(e.message),
    );
  });
  test('reads need read_<group>, writes need <group>; a write scope covers reads', () => {
    assert.equal(requiredScope('orders', false), 'read_orders');
    assert.equal(requiredScope('orders', true), 'orders');
    assert.equal(allows(['read_catalog'], 'catalog', false), true);
    assert.equal(allows(['read_catalog'], 'catalog', true), false);
    assert.equal(allows(['catalog'], 'catalog', false), true);
    assert.equal(allows(['catalog'], 'people', false), false);
    assert.equal(allows(['read_people'], 'settings', false), false);
    assert.equal(allows(['settings'], 'settings', true), true);
    assert.equal(allows(['system'], 'marketing', true), true);
  });
});

describe('secrets', () => {
  test('are random, 256 bits, and stored as their SHA-256', () => {
    const a = newSecret();
    assert.match(a, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a, newSecret());
    assert.equal(hashSecret(a), createHash('sha256').update(a).digest('hex'));
  });
});

describe('platform signatures', () => {
  test('follow the documented concatenation, with the redirect URI lower-cased', () => {
    const expected = createHash('sha256')
      .update('s3cret' + 'c0de' + 'app1' + 'read_catalog catalog' + 'https://app.example/cb')
      .digest('hex');
    const got = accessTokenSignature({
      secret: 's3cret',
      code: 'c0de',
      clientId: 'app1',
      scope: 'read_catalog catalog',
      redirectUri: 'HTTPS://App.Example/CB',
    });
    assert.equal(got, expected);
    assert.equal(signatureMatches(got, got.toUpperCase()), true);
    assert.equal(signatureMatches(got, got.slice(1) + '0'), false);
    assert.equal(signatureMatches(got, undefined), false);
    assert.equal(refreshSignature({ secret: 's', refreshToken: 'r', clientId: 'c' }), createHash('sha256').update('src').digest('hex'));
  });
});

describe('PKCE', () => {
  // RFC 7636 appendix B.
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  test('S256 matches the RFC example', () => {
    assert.equal(challengeOf(verifier, 'S256'), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    assert.equal(verifierMatches(verifier, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', 'S256'), true);
    assert.equal(verifierMatches(verifier.replace('d', 'e'), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', 'S256'), false);
  });
  test('plain compares as is; malformed verifiers never match', () => {
    assert.equal(verifierMatches(verifier, verifier, 'plain'), true);
    assert.equal(verifierMatches('short', 'short', 'plain'), false);
    assert.equal(parseChallengeMethod(undefined), 'plain');
    assert.equal(parseChallengeMethod('S512'), undefined);
  });
});

describe('lockout', () => {
  const policy = { maxFailures: 3, maxFailuresPerAccount: 10, windowMs: 60_000, lockMs: 30_000 };
  test('locks after repeated failures, for a while', () => {
    const fails = [1000, 2000, 3000].map((at) => ({ at, succeeded: false }));
    assert.equal(lockedUntil(fails.slice(0, 2), 3500, policy), undefined);
    assert.equal(lockedUntil(fails, 3500, policy), 33_000);
    assert.equal(lockedUntil(fails, 33_001, policy), undefined);
  });
  test('a success resets the count; old failures fall out of the window', () => {
    assert.equal(
      lockedUntil(
        [
          { at: 1, succeeded: false },
          { at: 2, succeeded: false },
          { at: 3, succeeded: true },
          { at: 4, succeeded: false },
        ],
        5,
        policy,
      ),
      undefined,
    );
    assert.equal(
      lockedUntil(
        [
          { at: 0, succeeded: false },
          { at: 70_000, succeeded: false },
          { at: 70_001, succeeded: false },
        ],
        70_002,
        policy,
      ),
      undefined,
    );
  });
});

test('plan levels read as people write them', () => {
  assert.deepEqual(plans.map(planName), ['Steel', 'Bronze', 'Silver', 'Gold', 'Platinum']);
});

describe('principal cache', () => {
  const principal = (expiresAt: string | null) => ({
    kind: 'token' as const,
    storeId: 1,
    appId: 'a',
    appKind: 'custom' as const,
    tokenId: 1,
    scopes: [],
    expiresAt,
  });
  test('keeps a resolved token for a minute at most, and never past its expiry', () => {
    const cache = principalCache(() => Promise.resolve(0));
    cache.set('h1', principal(null), 0, cache.generation);
    assert.ok(cache.get('h1', 59_999));
    assert.equal(cache.get('h1', 60_000), undefined);
    cache.set('h2', principal(new Date(500).toISOString()), 0, cache.generation);
    assert.ok(cache.get('h2', 499));
    assert.equal(cache.get('h2', 500), undefined);
    cache.set('h3', principal(null), 0, cache.generation);
    cache.clear();
    assert.equal(cache.get('h3', 1), undefined);
  });
  test('a lookup that began before a clear is not cached', () => {
    const cache = principalCache(() => Promise.resolve(0));
    const began = cache.generation;
    cache.clear();
    cache.set('h1', principal(null), 0, began);
    assert.equal(cache.get('h1', 1), undefined);
  });
  test('is trusted only for a quarter second after the revision was confirmed; a new revision empties it', async () => {
    let revision = 7;
    const cache = principalCache(() => Promise.resolve(revision));
    assert.equal(cache.confirmed(0), false);
    await cache.confirm(0);
    cache.set('h1', principal(null), 0, cache.generation);
    assert.equal(cache.confirmed(249), true);
    assert.equal(cache.confirmed(250), false);
    await cache.confirm(250);
    assert.ok(cache.get('h1', 250), 'same revision: entries stay');
    revision = 8;
    await cache.confirm(500);
    assert.equal(cache.get('h1', 500), undefined);
  });
  test('a revision that cannot be read empties it and is not trusted', async () => {
    const cache = principalCache(() => Promise.reject(new Error('database down')));
    cache.set('h1', principal(null), 0, cache.generation);
    await assert.rejects(cache.confirm(0), /database down/);
    assert.equal(cache.get('h1', 0), undefined);
    assert.equal(cache.confirmed(0), false);
  });
});

test('a redirect URI is named by its query values encoded or decoded, never by another address', () => {
  const encoded = 'http://localhost:3000/callback?r=http%3A%2F%2Flocalhost%3A3000&q=a%20b';
  assert.ok(redirectSpellings(encoded).includes('http://localhost:3000/callback?r=http://localhost:3000&q=a b'));
  assert.ok(
    redirectSpellings(encoded).includes('http://localhost:3000/callback?r=http%3A%2F%2Flocalhost%3A3000&q=a+b'),
    'as a form encodes it',
  );
  assert.ok(sameRedirect('https://app.example/cb', 'https://app.example/cb'));
  assert.ok(
    sameRedirect(
      'http://localhost:3000/callback?r=http://localhost:3000',
      'http://localhost:3000/callback?r=http%3A%2F%2Flocalhost%3A3000',
    ),
  );
  assert.equal(sameRedirect('https://app.example/cb', 'https://app.example/cb?x=1'), false);
  assert.equal(sameRedirect('https://app.example/cb?r=1', 'https://app.example/cb?r=2'), false);
  assert.equal(sameRedirect('https://app.example/cb', 'https://evil.example/cb'), false);
  assert.deepEqual(redirectSpellings('https://app.example/cb?bad=%E0%A4%A'), ['https://app.example/cb?bad=%E0%A4%A']);
});
