// How bodies are checked against their JSON Schemas: as sent (no type coercion, no defaults), every problem at
// once. The app's validator takes these options, and a body that comes without a request (an import line) is
// checked here with the same ones, so both name the same problems.
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyError } from 'fastify';
import { validationProblems } from './error-format.ts';

export const BODY_VALIDATION = {
  removeAdditional: false,
  coerceTypes: false,
  useDefaults: false,
  allErrors: true,
  allowUnionTypes: true,
} as const;

type Validate = ((data: unknown) => boolean) & { errors?: unknown };
type Compile = (route: { schema: unknown; method: string; url: string; httpPart: string }) => Validate;

let compile: Compile | undefined;
const validators = new Map<string, Validate>();

/** The problems of `value` against the body schema of `method url`, in the error format's words; empty when it is fine. */
export function bodyProblems(method: string, url: string, schema: () => object, value: unknown): string[] {
  const key = `${method} ${url}`;
  let validate = validators.get(key);
  if (validate === undefined) {
    compile ??= (AjvCompiler() as unknown as (external: object, options: object) => Compile)({}, { customOptions: BODY_VALIDATION });
    validators.set(key, (validate = compile({ schema: schema(), method, url, httpPart: 'body' })));
  }
  if (validate(value)) return [];
  return validationProblems((validate.errors ?? []) as NonNullable<FastifyError['validation']>);
}
