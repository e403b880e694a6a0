// docs/results.schema.json compiled with Ajv (draft 2020-12): a validator per kind of output.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';

const schema = JSON.parse(readFileSync(new URL('../../../docs/results.schema.json', import.meta.url), 'utf8')) as { $id: string };
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
ajv.addSchema(schema);

/** Fails with Ajv's own account of every fault when `value` is not a valid `kind` of the schema. */
export function assertValid(kind: 'findings' | 'run' | 'service_report' | 'service_results', value: unknown): void {
  const validate = ajv.getSchema(`${schema.$id}#/$defs/${kind}`);
  assert.ok(validate, `the schema defines ${kind}`);
  const valid = validate(value);
  assert.ok(valid, `${kind}: ${ajv.errorsText(validate.errors, { separator: '\n' })}`);
  const whole = ajv.getSchema(schema.$id);
  assert.ok(whole?.(value), 'valid against the schema as a whole (exactly one kind)');
}

export function isValid(kind: string, value: unknown): boolean {
  return ajv.getSchema(`${schema.$id}#/$defs/${kind}`)?.(value) === true;
}
