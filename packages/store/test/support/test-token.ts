// A non-expiring token for tests that exercise the API rather than its authentication.
import type { FastifyInstance } from 'fastify';
import { createApp, findApp } from '../../src/auth/apps.ts';
import { createConsoleToken } from '../../src/auth/tokens.ts';

/** Each app name is its own custom app, so its own rate-limit counter. */
export async function issueTestToken(app: FastifyInstance, storeId: number, scopes = 'system', appName = 'Test harness'): Promise<string> {
  const ctx = app.storeAuth;
  const client = (await findApp(ctx, { name: appName, storeId })) ?? (await createApp(ctx, storeId, { name: appName, kind: 'custom' })).app;
  return (await createConsoleToken(ctx, client, { scopes, label: 'test harness' })).accessToken;
}
