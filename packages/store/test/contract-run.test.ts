// The server says what its OpenAPI document says: requests drawn from the served document for every operation,
// good ones (values its schemas allow) and bad ones (hostile queries and bodies), and every answer checked
// against the document: its status is one the operation lists, its JSON body passes that status's schema, and
// its headers pass theirs (the required ones present). Seeded as the every-route test is (per commit in CI);
// CONTRACT_RUNS raises the cases per operation, and `npm run fuzz:contract -- --minutes N` runs it longer.
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { jsonBodyArbitrary, percentEncoded, queryArbitrary } from './support/hostile-arbitraries.ts';
import { hostileSeed } from './support/hostile-seed.ts';
import { startStoreUnderTest, type Reply, type StoreUnderTest } from './support/store-under-test.ts';

const RUNS = Number(process.env.CONTRACT_RUNS ?? 2);
const { seed: SEED, source: SEED_SOURCE } = hostileSeed({ ...process.env, HOSTILE_SEED: process.env.CONTRACT_SEED ?? '' });
const DEADLINE = Number(process.env.CONTRACT_DEADLINE ?? Infinity);
const DIALECTS = process.env.CONTRACT_DATABASES?.split(',');
console.log(`# contract-run seed ${SEED} (${SEED_SOURCE}); replay with CONTRACT_SEED=${SEED}`);

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}
interface Response {
  content?: Record<string, { schema?: Schema }>;
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: Schema }>;
}
interface Operation {
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, Response>;
}
interface Document {
  servers: { url: string }[];
  paths: Record<string, Record<string, unknown> & { servers?: { url: string }[]; parameters?: (Parameter | { $ref: string })[] }>;
  components: {
    schemas: Record<string, Schema>;
    parameters: Record<string, Parameter>;
    headers: Record<string, { required?: boolean; schema: Schema }>;
  };
}

interface Drawn {
  path: string;
  query: string;
  body: string | undefined;
}

const METHODS = ['get', 'put', 'post', 'delete'];
const DOC_ID = 'https://store.invalid/openapi.json';

/** A value the schema allows, roughly: the right type, enum member or range; nested a little. */
function valueOf(document: Document, schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined) return fc.constant({});
  if (typeof schema.$ref === 'string') return valueOf(document, document.components.schemas[schema.$ref.split('/').pop() ?? ''], depth);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [String(schema.type)];
  const type = types.find((t) => t !== 'null') ?? 'null';
  switch (type) {
    case 'string':
      return schema.format === 'date-time'
        ? fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString())
        : fc.string({ minLength: 1, maxLength: 12 });
    case 'integer':
      return fc.integer({
        min: typeof schema.minimum === 'number' ? schema.minimum : -5,
        max: typeof schema.maximum === 'number' ? schema.maximum : 1000,
      });
    case 'number':
      return fc.double({ min: 0, max: 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 2 ? fc.constant([]) : fc.array(valueOf(document, schema.items as Schema | undefined, depth + 1), { maxLength: 2 });
    case 'object': {
      const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>).filter(([, p]) => p.readOnly !== true);
      if (depth > 2 || properties.length === 0) return fc.constant({});
      const required = new Set((schema.required ?? []) as string[]);
      return fc.record(Object.fromEntries(properties.map(([name, p]) => [name, valueOf(document, p, depth + 1)])), {
        requiredKeys: properties.map(([name]) => name).filter((n) => required.has(n)),
      });
    }
    default:
      return fc.constant(null);
  }
}

function parametersOf(document: Document, item: Document['paths'][string], operation: Operation): Parameter[] {
  return [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) =>
    '$ref' in p ? document.components.parameters[p.$ref.split('/').pop() ?? ''] : p,
  );
}

/** Good and bad requests to one operation: path ids that exist or not, queries and bodies from the schemas or hostile. */
function requests(
  document: Document,
  path: string,
  item: Document['paths'][string],
  operation: Operation,
  ids: readonly string[],
): fc.Arbitrary<Drawn> {
  const parameters = parametersOf(document, item, operation);
  const segments = path
    .split(/(\{[^}]+\})/)
    .map((part) =>
      part.startsWith('{')
        ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: fc.constantFrom('0', '999999', 'abc', '-1') })
        : fc.constant(part),
    );
  const pathArbitrary = fc.tuple(...segments).map((parts) => parts.join(''));
  const query = parameters.filter((p) => p.in === 'query');
  const goodQuery = fc
    .tuple(
      ...query.map((p) =>
        p.required === true
          ? valueOf(document, p.schema).map((v) => [p.name, v] as const)
          : fc.option(
              valueOf(document, p.schema).map((v) => [p.name, v] as const),
              { nil: undefined },
            ),
      ),
    )
    .map((pairs) =>
      pairs
        .filter((pair) => pair !== undefined)
        .map(([name, value]) => `${percentEncoded(name)}=${percentEncoded(String(value))}`)
        .join('&'),
    );
  const queryArbitraryFor = fc.oneof(
    { weight: 3, arbitrary: goodQuery },
    { weight: 1, arbitrary: queryArbitrary(query.map((p) => p.name)) },
  );
  const json = operation.requestBody?.content['application/json'];
  const bodyArbitrary: fc.Arbitrary<string | undefined> =
    json === undefined
      ? fc.constant(undefined)
      : fc.oneof(
          { weight: 3, arbitrary: valueOf(document, json.schema).map((v) => JSON.stringify(v)) },
          { weight: 1, arbitrary: jsonBodyArbitrary(Object.keys(json.schema?.properties ?? {}), ids) },
        );
  return fc.record({ path: pathArbitrary, query: queryArbitraryFor, body: bodyArbitrary });
}

/** What in an answer the document does not say: none when it matches. */
function mismatches(
  document: Document,
  validators: Map<string, ValidateFunction>,
  ajv: Ajv2020,
  where: string,
  operation: Operation,
  reply: Reply,
): string[] {
  const status = String(reply.status);
  const response = operation.responses[status] ?? operation.responses[`${status[0] ?? ''}XX`] ?? operation.responses.default;
  if (response === undefined)
    return [`${where} answered ${status}, which it does not list (${Object.keys(operation.responses).join(', ')})`];
  const found: string[] = [];
  const type =
    String(reply.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim() ?? '';
  const content = response.content;
  if (content !== undefined && reply.text !== '') {
    const media = content[type];
    if (media === undefined)
      found.push(`${where} ${status}: content-type ${type || 'none'}, the document says ${Object.keys(content).join(' or ')}`);
    else if (type === 'application/json' && media.schema !== undefined) {
      const validate = validators.get(`${where}|${status}`);
      if (validate !== undefined && !validate(reply.json))
        found.push(`${where} ${status}: body ${ajv.errorsText(validate.errors?.slice(0, 2))}`);
    }
  }
  for (const [name, declared] of Object.entries(response.headers ?? {})) {
    const header = declared.$ref === undefined ? declared : document.components.headers[declared.$ref.split('/').pop() ?? ''];
    const value = reply.headers[name.toLowerCase()];
    if (value === undefined) {
      if (header?.required === true) found.push(`${where} ${status}: no ${name} header, which the document requires`);
      continue;
    }
    const pattern = header?.schema?.pattern;
    if (typeof pattern === 'string' && !new RegExp(pattern).test(String(value)))
      found.push(`${where} ${status}: ${name}: ${String(value)} does not match ${pattern}`);
  }
  return found;
}

const targets = (await testDatabaseTargets()).filter((t) => DIALECTS === undefined || DIALECTS.includes(t.dialect));
for (const target of targets) {
  describe(`the contract run on ${target.name}`, { skip: target.skip }, () => {
    let s: StoreUnderTest;
    let shift = 0;
    before(async () => {
      // Rate limiting on, as served; each call in a window of its own, so the answers are the operations' own.
      s = await startStoreUnderTest(target, { plan: 'platinum', without: {}, clock: () => Date.now() + shift });
    });
    after(() => s?.close());

    test('every answer to every operation is one the document describes', async () => {
      const document = (await s.call('GET', '/openapi.json')).json as Document;
      // Records for path ids to name: a few of the common resources.
      for (const [path, body] of [
        ['/categories', { name: 'Contract' }],
        ['/products', { item_name: 'Contract', price: 5 }],
        ['/customers', { email: 'contract@example.com' }],
      ] as const) {
        assert.equal((await s.call('POST', path, { body })).status, 201);
      }
      const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
      const origin = new URL(s.api).origin;
      const validators = new Map<string, ValidateFunction>();
      const pending: { where: string; operation: Operation; drawn: Drawn[]; base: string; method: string }[] = [];
      for (const [path, item] of Object.entries(document.paths)) {
        for (const method of METHODS) {
          const operation = item[method] as Operation | undefined;
          if (operation === undefined) continue;
          const base = `${origin}${(item.servers ?? document.servers)[0]?.url ?? ''}`;
          const drawn = fc.sample(requests(document, path, item, operation, ['1', '2']), { seed: SEED ^ pending.length, numRuns: RUNS });
          pending.push({ where: `${method.toUpperCase()} ${path}`, operation, drawn, base, method });
        }
      }
      // Each answer's schema under a name of its own in one document Ajv holds, so its $refs resolve inside it.
      const schemas = { ...document.components.schemas };
      let named = 0;
      const nameOf = new Map<string, string>();
      for (const { where, operation } of pending) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const schema = response.content?.['application/json']?.schema;
          if (schema === undefined) continue;
          const name = `__answer_${named++}`;
          schemas[name] = schema;
          nameOf.set(`${where}|${status}`, name);
        }
      }
      ajv.addSchema({ $id: DOC_ID, components: { ...document.components, schemas } });
      for (const [key, name] of nameOf) validators.set(key, ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` }));

      const found: string[] = [];
      let cases = 0;
      for (const { where, operation, drawn, base, method } of pending) {
        if (Date.now() > DEADLINE) break;
        for (const request of drawn) {
          shift += 10_000;
          const url = `${base}${request.path}${request.query === '' ? '' : `?${request.query}`}`;
          const reply = await s.call(
            method.toUpperCase(),
            url,
            request.body === undefined ? {} : { rawBody: request.body, headers: { 'content-type': 'application/json' } },
          );
          cases += 1;
          for (const problem of mismatches(document, validators, ajv, where, operation, reply))
            found.push(
              `${problem}\n    sent ${method.toUpperCase()} ${url}${request.body === undefined ? '' : ` ${request.body.slice(0, 200)}`}`,
            );
        }
      }
      const kinds = new Map<string, number>();
      for (const line of found) {
        const key = (line.split('\n')[0] ?? '').replace(/\d{3}, which/, 'NNN, which');
        kinds.set(key, (kinds.get(key) ?? 0) + 1);
      }
      // Every mismatch, for a long run to sum up (the assertion shows the first few).
      if (process.env.CONTRACT_REPORT !== undefined)
        appendFileSync(process.env.CONTRACT_REPORT, found.map((line) => `${target.name}: ${line}\n`).join(''));
      console.log(`# contract-run on ${target.name}: ${cases} cases over ${pending.length} operations, ${found.length} mismatches`);
      assert.deepEqual(
        found.slice(0, 15),
        [],
        `${found.length} mismatches in ${cases} cases (seed ${SEED}); kinds:\n${[...kinds]
          .map(([k, n]) => `${n} × ${k}`)
          .slice(0, 40)
          .join('\n')}`,
      );
    });
  });
}
