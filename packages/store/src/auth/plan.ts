// The store's plan level as the console shows it (the core's stores.plan, lower case).
import { plans, type Plan } from '../db/first-start.ts';

export { plans, type Plan };

export function isPlan(text: unknown): text is Plan {
  return typeof text === 'string' && (plans as readonly string[]).includes(text);
}

/** As people read it: Steel, Bronze, Silver, Gold, Platinum. */
export function planName(plan: Plan): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}
