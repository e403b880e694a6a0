// Calls per 10-second window, from the spec's Limits section.
import type { Plan } from '../db/first-start.ts';

const customAppLimits: Record<Plan, number> = { steel: 5, bronze: 10, silver: 20, gold: 50, platinum: 50 };

/** Installed apps of one store share this one limit, whatever the plan. */
export const INSTALLED_APPS_LIMIT = 50;

export function customAppLimit(plan: Plan): number {
  return customAppLimits[plan];
}
