// JSON-RPC error objects with the codes and fixed messages the spec and the reference use.
import { validationMessage, type Locale } from '../validation/messages.ts';
import type { Issue } from '../validation/param-rules.ts';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** An error a method raises on purpose; it reaches the client as -32603 with its message and data. */
export class MethodError extends Error {
  readonly data: unknown;
  constructor(message: string, data?: unknown) {
    super(message);
    this.name = 'MethodError';
    this.data = data;
  }
}

export const parseError: ErrorObject = { code: PARSE_ERROR, message: 'Invalid JSON was received by the server.' };
export const invalidRequest: ErrorObject = { code: INVALID_REQUEST, message: 'The JSON sent is not a valid request object.' };
export const methodNotFound: ErrorObject = { code: METHOD_NOT_FOUND, message: 'Procedure not found' };

/** The database was locked by another process or transaction; the same call can simply be sent again. */
export const databaseBusy: ErrorObject = {
  code: INTERNAL_ERROR,
  message: 'Database busy, please retry',
  data: { retryable: true, retry_after: 1 },
};

/** At most this many faults are listed, so a hostile request cannot make a huge answer. */
export const MAX_REPORTED_ISSUES = 100;

export function invalidParams(issues: readonly Issue[], locale: Locale): ErrorObject {
  return {
    code: INVALID_PARAMS,
    message: 'Invalid method parameter(s).',
    data: issues
      .slice(0, MAX_REPORTED_ISSUES)
      .map((issue) => ({ path: issue.path, message: validationMessage(issue.id, locale, issue.args) })),
  };
}
