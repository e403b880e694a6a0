// One JSON-RPC request object in, one response object out, with the spec's deviations:
// `jsonrpc` is not checked, extra top-level keys are ignored, a missing method is -32601.
import { randomUUID } from 'node:crypto';
import { isDatabaseBusy } from '../db/busy-error.ts';
import { messageLocale, type LanguageTags } from '../validation/language-tags.ts';
import { invalid, isPlainObject, type Issue } from '../validation/param-rules.ts';
import { MethodError, databaseBusy, invalidParams, invalidRequest, methodNotFound, INTERNAL_ERROR, type ErrorObject } from './errors.ts';
import type { CallContext, MethodTable } from './method.ts';

export type RequestId = string | number | null;

export type Response = { jsonrpc: '2.0'; id: RequestId; result: unknown } | { jsonrpc: '2.0'; id: RequestId; error: ErrorObject };

export interface Dispatcher {
  handle(body: unknown, context: CallContext): Promise<Response>;
}

export interface DispatcherOptions {
  methods: MethodTable;
  languageTags: LanguageTags;
  /** Where unexpected failures are reported; the client only gets a reference to the entry. */
  logError(reference: string, error: unknown): void;
  /** Told of every call's method (as sent) and how it ended, for the metrics. */
  onCall?(method: string, outcome: CallOutcome): void;
}

export type CallOutcome = 'result' | 'invalid_params' | 'method_error' | 'busy' | 'internal_error' | 'not_found' | 'invalid_request';

export function errorResponse(id: RequestId, error: ErrorObject): Response {
  return { jsonrpc: '2.0', id, error };
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { methods, languageTags } = options;
  const handle = async (body: unknown, context: CallContext): Promise<[Response, CallOutcome, string]> => {
    if (!isPlainObject(body)) return [errorResponse(null, invalidRequest), 'invalid_request', ''];
    const rawId = body.id;
    if (rawId !== undefined && rawId !== null && typeof rawId !== 'string' && typeof rawId !== 'number') {
      return [errorResponse(null, invalidRequest), 'invalid_request', ''];
    }
    const id: RequestId = rawId ?? null;
    const name = typeof body.method === 'string' ? body.method : '';
    const definition = methods.has(name) ? methods.get(name) : undefined;
    if (definition === undefined) return [errorResponse(id, methodNotFound), 'not_found', name];

    const params = body.params ?? {};
    const locale = messageLocale(languageTags, definition.acceptsLanguage === true ? requestedLanguage(params) : undefined);
    try {
      definition.guard?.(context);
      const issues: Issue[] = [];
      const checked = definition.params(params, '', issues);
      if (checked === invalid || issues.length > 0) return [errorResponse(id, invalidParams(issues, locale)), 'invalid_params', name];
      return [{ jsonrpc: '2.0', id, result: await definition.run(checked, context) }, 'result', name];
    } catch (error) {
      if (error instanceof MethodError) {
        const { message, data } = error;
        return [
          errorResponse(id, data === undefined ? { code: INTERNAL_ERROR, message } : { code: INTERNAL_ERROR, message, data }),
          'method_error',
          name,
        ];
      }
      if (isDatabaseBusy(error)) return [errorResponse(id, databaseBusy), 'busy', name];
      const reference = randomUUID();
      options.logError(reference, error);
      return [errorResponse(id, { code: INTERNAL_ERROR, message: 'Internal server error', data: { reference } }), 'internal_error', name];
    }
  };
  return {
    async handle(body, context) {
      const [response, outcome, method] = await handle(body, context);
      options.onCall?.(method, outcome);
      return response;
    },
  };
}

function requestedLanguage(params: unknown): string | undefined {
  return isPlainObject(params) && typeof params.language === 'string' ? params.language : undefined;
}
