// One JSON-RPC request object in, one response object out, with the spec's deviations:
// `jsonrpc` is not checked, extra top-level keys are ignored, a missing method is -32601.
import { randomUUID } from 'node:crypto';
import { isDatabaseBusy } from '../db/busy-error.ts';
import { messageLocale, type LanguageTags } from '../validation/language-tags.ts';
import { invalid, isPlainObject, type Issue } from '../validation/schema.ts';
import { MethodError, databaseBusy, invalidParams, invalidRequest, methodNotFound, INTERNAL_ERROR, type ErrorObject } from './errors.ts';
import type { CallContext, MethodTable } from './method.ts';

export type RequestId = string | number | null;

export type Response =
  | { jsonrpc: '2.0'; id: RequestId; result: unknown }
  | { jsonrpc: '2.0'; id: RequestId; error: ErrorObject };

export interface Dispatcher {
  handle(body: unknown, context: CallContext): Promise<Response>;
}

export interface DispatcherOptions {
  methods: MethodTable;
  languageTags: LanguageTags;
  /** Where unexpected failures are reported; the client only gets a reference to the entry. */
  logError(reference: string, error: unknown): void;
}

export function errorResponse(id: RequestId, error: ErrorObject): Response {
  return { jsonrpc: '2.0', id, error };
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { methods, languageTags } = options;
  return {
    async handle(body, context) {
      if (!isPlainObject(body)) return errorResponse(null, invalidRequest);
      const rawId = body.id;
      if (rawId !== undefined && rawId !== null && typeof rawId !== 'string' && typeof rawId !== 'number') {
        return errorResponse(null, invalidRequest);
      }
      const id: RequestId = rawId ?? null;
      const name = body.method;
      const definition = typeof name === 'string' && methods.has(name) ? methods.get(name) : undefined;
      if (definition === undefined) return errorResponse(id, methodNotFound);

      const params = body.params ?? {};
      const locale = messageLocale(languageTags, definition.acceptsLanguage === true ? requestedLanguage(params) : undefined);
      try {
        definition.guard?.(context);
        const issues: Issue[] = [];
        const checked = definition.params(params, '', issues);
        if (checked === invalid || issues.length > 0) return errorResponse(id, invalidParams(issues, locale));
        return { jsonrpc: '2.0', id, result: await definition.run(checked, context) };
      } catch (error) {
        if (error instanceof MethodError) {
          const { message, data } = error;
          return errorResponse(id, data === undefined ? { code: INTERNAL_ERROR, message } : { code: INTERNAL_ERROR, message, data });
        }
        if (isDatabaseBusy(error)) return errorResponse(id, databaseBusy);
        const reference = randomUUID();
        options.logError(reference, error);
        return errorResponse(id, { code: INTERNAL_ERROR, message: 'Internal server error', data: { reference } });
      }
    },
  };
}

function requestedLanguage(params: unknown): string | undefined {
  return isPlainObject(params) && typeof params.language === 'string' ? params.language : undefined;
}
