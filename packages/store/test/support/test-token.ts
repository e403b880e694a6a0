// A non-expiring token for tests that exercise the API rather than its authentication.
import type { FastifyInstance } from 'fastify';
import { createApp, findApp } from '../../src/auth/apps.ts';
import { createConsoleToken } from '../../src/auth/tokens.ts';

export async function issueTestToken(app: FastifyInstance, storeId: number, scopes = 'system'): Promise<string> {
  const ctx = app.storeAuth;
  const client = (await findApp(ctx, { name: 'Test harness', storeId })) ?? (await createApp(ctx, storeId, { name: 'Test harness', kind: 'custom' })).app;
  return (await createConsoleToken(ctx, client, { scopes, label: 'test harness' })).accessToken;
}
