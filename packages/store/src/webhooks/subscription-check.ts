// What a subscription must satisfy beyond its field types, for the API and the console alike.
import type { Row } from '../db/schema.ts';
import { cacheLengths, failureTypes, isEventName } from '../model/event-types.ts';
import type { TargetPolicy } from './target-policy.ts';

/** Every problem of a subscription's values, each starting with the field it is about. */
export async function subscriptionProblems(policy: TargetPolicy, values: Row, creating: boolean): Promise<string[]> {
  const problems: string[] = [];
  const { event_type: event, failure_type: failure, cache_length: cache } = values;
  if (event !== undefined && (typeof event !== 'string' || !isEventName(event)))
    problems.push('event_type: is not one of the webhook event types');
  if (failure !== undefined && failure !== null && !(failureTypes as readonly unknown[]).includes(failure))
    problems.push(`failure_type: must be one of ${failureTypes.join(', ')}`);
  if (cache !== undefined && cache !== null && (typeof cache !== 'string' || !Object.hasOwn(cacheLengths, cache)))
    problems.push(`cache_length: must be one of ${Object.keys(cacheLengths).join(', ')}`);
  for (const field of ['url', 'fallback_url'] as const) {
    const value = values[field];
    if (typeof value !== 'string' || value === '') continue;
    const problem = await policy.resolvedUrlProblem(value);
    if (problem !== undefined) problems.push(`${field}: ${problem}`);
  }
  if (creating && (typeof values.url !== 'string' || values.url === '')) problems.push('url: is required');
  if (creating && failure === 'Fallback' && (typeof values.fallback_url !== 'string' || values.fallback_url === '')) {
    problems.push('fallback_url: is required when failure_type is Fallback');
  }
  return problems;
}
