// The response fields that tell a caller its limit: the platform's X-AC-Call-Limit and the IETF RateLimit-Policy /
// RateLimit pair (draft-ietf-httpapi-ratelimit-headers-10/11: structured-field lists of one "default" policy).
// The rate limiter writes them from here, and the OpenAPI document describes them from here.

/** The policy's window, in seconds: the counter's fixed 10-second window. */
export const WINDOW_SECONDS = 10;

export interface LimitFigures {
  used: number;
  limit: number;
  resetInMs: number;
}

/** Whole seconds until the window resets, never 0: a client waiting this long is in the next window. */
export function secondsToReset(resetInMs: number): number {
  return Math.max(1, Math.ceil(resetInMs / 1000));
}

// The policy field is the same for every call of a plan: made once per limit.
const policies = new Map<number, string>();

export function policyField(limit: number): string {
  let text = policies.get(limit);
  if (text === undefined) {
    text = `"default";q=${limit};w=${WINDOW_SECONDS}`;
    policies.set(limit, text);
  }
  return text;
}

export function callLimitField({ used, limit }: LimitFigures): string {
  return `${Math.min(used, limit)}/${limit}`;
}

export function remainingField({ used, limit, resetInMs }: LimitFigures): string {
  return `"default";r=${Math.max(0, limit - used)};t=${secondsToReset(resetInMs)}`;
}

/** OpenAPI header objects, keyed by the component names the document uses. */
export const rateLimitHeaderDocs = {
  XAcCallLimit: {
    description: 'Calls made in the current 10-second window and calls allowed in it, as used/max',
    schema: { type: 'string', pattern: '^[0-9]+/[0-9]+$' },
    example: '3/20',
  },
  RateLimitPolicy: {
    description: `The quota policy (IETF RateLimit-Policy, a structured-field list): q calls per w=${WINDOW_SECONDS} seconds, by the store's plan`,
    schema: { type: 'string' },
    example: `"default";q=20;w=${WINDOW_SECONDS}`,
  },
  RateLimit: {
    description:
      'What is left (IETF RateLimit, a structured-field list): r calls remain until the window resets in t seconds; a client that waits t seconds once r is 0 is never refused',
    schema: { type: 'string' },
    example: '"default";r=17;t=6',
  },
  RetryAfter: {
    description: 'Whole seconds until the window resets',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '7',
  },
} as const;
