// The store's plan level: the levels, the calls per 10-second window each allows (the spec's Limits
// section), and the plan as kept in the core's `stores.plan`, read and set by the console and followed
// by every instance's rate limiter.
import type { Generated, Kysely } from 'kysely';

export const plans = ['steel', 'bronze', 'silver', 'gold', 'platinum'] as const;
export type Plan = (typeof plans)[number];

const customAppLimits: Record<Plan, number> = { steel: 5, bronze: 10, silver: 20, gold: 50, platinum: 50 };

/** Bulk jobs (POST /bulk_operations) a store may have queued or running at once, and the rows one job may take. */
export interface BulkLimits {
  readonly concurrentJobs: number;
  readonly maxRows: number;
}

const bulkLimits: Record<Plan, BulkLimits> = {
  steel: { concurrentJobs: 1, maxRows: 10_000 },
  bronze: { concurrentJobs: 1, maxRows: 100_000 },
  silver: { concurrentJobs: 2, maxRows: 500_000 },
  gold: { concurrentJobs: 3, maxRows: 2_000_000 },
  platinum: { concurrentJobs: 5, maxRows: 10_000_000 },
};

export function bulkLimitsOf(plan: Plan): BulkLimits {
  return bulkLimits[plan];
}

/** Installed apps of one store share this one limit, whatever the plan. */
export const INSTALLED_APPS_LIMIT = 50;

export function customAppLimit(plan: Plan): number {
  return customAppLimits[plan];
}

export function isPlan(text: unknown): text is Plan {
  return typeof text === 'string' && (plans as readonly string[]).includes(text);
}

/** As people read it: Steel, Bronze, Silver, Gold, Platinum. */
export function planName(plan: Plan): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}

/** The part of the schema plans live in. */
export interface PlanTables {
  stores: { id: Generated<number>; plan: string };
}

/** Any database whose schema has the stores table (the auth context's, the served store's). */
type PlanDb = Pick<Kysely<PlanTables>, 'selectFrom' | 'updateTable'>;

export async function readPlan(db: PlanDb, storeId: number): Promise<Plan | undefined> {
  const row = await db.selectFrom('stores').select('plan').where('id', '=', storeId).executeTakeFirst();
  return isPlan(row?.plan) ? row.plan : undefined;
}

export async function setPlan(db: PlanDb, storeId: number, plan: Plan): Promise<void> {
  await db.updateTable('stores').set({ plan }).where('id', '=', storeId).execute();
}

/** The first store's plan; one the code does not know is an error, not a silent default. */
async function servedPlan(db: PlanDb): Promise<Plan> {
  const row = await db.selectFrom('stores').select('plan').orderBy('id').executeTakeFirstOrThrow();
  const plan = String(row.plan);
  if (!isPlan(plan)) throw new Error(`The store's plan "${plan}" is not one of ${plans.join(', ')}`);
  return plan;
}

const PLAN_REFRESH_MS = 5000;

export interface FollowedPlan {
  current: () => Plan;
  stop: () => void;
}

/** The served store's plan, re-read every few seconds so each instance's limits follow the console within seconds. */
export async function followPlan(db: PlanDb): Promise<FollowedPlan> {
  let plan = await servedPlan(db);
  const refresh = setInterval(() => {
    servedPlan(db).then(
      (fresh) => (plan = fresh),
      () => undefined,
    );
  }, PLAN_REFRESH_MS);
  refresh.unref();
  return { current: () => plan, stop: () => clearInterval(refresh) };
}
