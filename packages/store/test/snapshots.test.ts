// Byte-for-byte pins taken before the store moved into layers: the served OpenAPI document and one answer per
// resource (a record made with every writable field, read back). A move inside the package must change neither.
// All three databases answer the same bytes, so one fixture serves them. UPDATE_SNAPSHOTS=1 rewrites the fixtures; only do that for a change meant to alter what the store answers.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { before, test } from 'node:test';
import type { FieldDeclaration, ResourceDeclaration } from '../src/model/declaration.ts';
import { resourceNamed, resources } from '../src/model/registry.ts';
import { describeOnEachDatabase } from './support/each-database.ts';

const fixtures = new URL('./fixtures/snapshots/', import.meta.url);
const updating = process.env.UPDATE_SNAPSHOTS === '1';

function pinned(name: string, actual: string): void {
  const file = new URL(name, fixtures);
  if (updating) writeFileSync(file, actual);
  assert.ok(existsSync(file), `${name} is missing; UPDATE_SNAPSHOTS=1 writes it`);
  assert.equal(actual, readFileSync(file, 'utf8'), `${name} changed`);
}

/** A fixed value a field accepts; every run writes the same. */
function sample(field: FieldDeclaration, name: string, serial: number): unknown {
  if (field.enum !== undefined) return field.enum[0];
  if (name === 'store_id') return 1;
  if (name.endsWith('url')) return `https://receiver.example/${name}`;
  switch (field.type) {
    case 'string':
      return name === 'email' ? `person${serial}@example.com` : `${name} ${serial}`;
    case 'integer':
      return 3;
    case 'number':
      return 2.5;
    case 'boolean':
      return true;
    case 'flag':
      return 1;
    case 'datetime':
      return '2026-03-04T05:06:07-06:00';
    case 'json':
      return [{ a: 1 }];
  }
}

/** The moments the store stamps (created_at, a token's expiry...) are the only parts of an answer a run changes. */
function steady(text: string, port: number): string {
  const now = new Date().getUTCFullYear();
  return text
    .replaceAll(`:${port}/`, ':PORT/')
    .replace(new RegExp(`"(${now}|${now + 1}|${now - 1})-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z"`, 'g'), (stamp) =>
      stamp === '"2026-03-04T11:06:07.000Z"' ? stamp : '"STAMP"',
    );
}

await describeOnEachDatabase('snapshots', (s) => {
  let port: number;
  before(() => {
    port = Number(new URL(s.api).port);
  });

  test('the served OpenAPI document is byte for byte the pinned one', async () => {
    const reply = await s.call('GET', '/openapi.json');
    assert.equal(reply.status, 200);
    pinned('openapi.json', steady(reply.text, port));
  });

  test('one answer per resource is byte for byte the pinned one', async () => {
    let serial = 0;
    async function make(resource: ResourceDeclaration, depth = 0): Promise<Record<string, unknown>> {
      serial += 1;
      const body: Record<string, unknown> = {};
      for (const [name, field] of Object.entries(resource.fields)) {
        if (field.readOnly === true || field.hidden === true) continue;
        if (field.references === undefined) body[name] = sample(field, name, serial);
        else if (field.required === true || depth === 0) {
          const referred = resourceNamed(field.references);
          body[name] =
            referred.operations.includes('create') && referred.name !== resource.name && depth < 2
              ? (await make(referred, depth + 1)).id
              : referred.name === 'stores'
                ? 1
                : null;
        }
      }
      const reply = await s.call('POST', `/${resource.path}`, { body });
      assert.equal(reply.status, 201, `${resource.name}: ${reply.text}`);
      return reply.json as Record<string, unknown>;
    }
    const answers: string[] = [];
    for (const resource of resources) {
      if (!resource.operations.includes('read')) continue;
      const id = resource.operations.includes('create') ? (await make(resource)).id : 1;
      const read = await s.call('GET', `/${resource.path}/${String(id)}`);
      answers.push(`GET /${resource.path}/{id} ${read.status}\n${steady(read.text, port)}\n`);
    }
    pinned('answers.txt', answers.join('\n'));
  });
});
