// Reads and sets the store's plan level (the core's `stores.plan`).
import type { AuthContext } from './context.ts';
import { isPlan, type Plan } from './plan.ts';

export async function readPlan(ctx: Pick<AuthContext, 'db'>, storeId: number): Promise<Plan | undefined> {
  const row = await ctx.db.selectFrom('stores').select('plan').where('id', '=', storeId).executeTakeFirst();
  return isPlan(row?.plan) ? row.plan : undefined;
}

export async function setPlan(ctx: Pick<AuthContext, 'db'>, storeId: number, plan: Plan): Promise<void> {
  await ctx.db.updateTable('stores').set({ plan }).where('id', '=', storeId).execute();
}
