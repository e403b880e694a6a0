import type { Rule } from '../validation/param-rules.ts';

/** What a method may know about the call besides its params. */
export interface CallContext {
  /** The peer address of the socket (never a forwarded header). */
  remoteAddress: string;
}

export interface MethodOptions<P> {
  /** True when the method takes `language`, which then also selects the validation messages' language. */
  acceptsLanguage?: boolean;
  /** Checked before the params: refuses a caller who may not use the method at all. */
  guard?(context: CallContext): void;
  run(params: P, context: CallContext): Promise<unknown>;
}

export interface MethodDefinition<P = unknown> extends MethodOptions<P> {
  params: Rule<P>;
}

/** A method: its params rule, then how it runs. (Two arguments, so TypeScript infers P from the rule.) */
export function method<P>(params: Rule<P>, options: MethodOptions<P>): MethodDefinition {
  return { params, ...options };
}

export type MethodTable = ReadonlyMap<string, MethodDefinition>;
