// Checks an import line against the body schema of POST /{resource}, with the options the app validates bodies
// with (as sent, no coercion, every problem at once), outside any request.
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyError } from 'fastify';
import { validationProblems } from '../http/error-format.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';
import { createSchema } from '../model/json-schema.ts';

type Validate = ((data: unknown) => boolean) & { errors?: unknown };
type Compile = (route: { schema: unknown; method: string; url: string; httpPart: string }) => Validate;

const build = AjvCompiler() as unknown as (external: object, options: object) => Compile;
const compile = build({}, { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true, allowUnionTypes: true } });
const validators = new Map<string, Validate>();

/** The problems of a record as a POST of `resource` would name them; empty when it is fine. */
export function lineProblems(resource: ResourceDeclaration, record: unknown): string[] {
  let validate = validators.get(resource.name);
  if (validate === undefined) validators.set(resource.name, (validate = compile({ schema: createSchema(resource), method: 'POST', url: `/${resource.path}`, httpPart: 'body' })));
  if (validate(record)) return [];
  return validationProblems((validate.errors ?? []) as NonNullable<FastifyError['validation']>);
}
