// The store's plan level (the core's stores.plan, lower case); it sets custom apps' rate limit (spec "Limits").
import { plans, type Plan } from '../db/first-start.ts';

export { plans, type Plan };

export function isPlan(text: unknown): text is Plan {
  return typeof text === 'string' && (plans as readonly string[]).includes(text);
}

/** As people read it: Steel, Bronze, Silver, Gold, Platinum. */
export function planName(plan: Plan): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}

/** Calls per 10-second window for custom apps; installed apps always get 50, shared per store. */
export function customAppCallLimit(plan: Plan): number {
  switch (plan) {
    case 'steel':
      return 5;
    case 'bronze':
      return 10;
    case 'silver':
      return 20;
    case 'gold':
    case 'platinum':
      return 50;
  }
}

export const INSTALLED_APPS_CALL_LIMIT = 50;
