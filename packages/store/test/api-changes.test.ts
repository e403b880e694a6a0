// The breaking-change check: the document the store serves now, held against the one released under the newest
// version date, may add but not take away; a change that breaks clients needs a new version (API_VERSIONS, then
// `npm run api:release -- <date>`). Also: every version has its released document, the changelog is what those
// documents give, and the comparison itself finds what breaks a client and passes what does not.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { openApiDocument } from '../src/api-docs/openapi.ts';
import { withFieldRemovals, withRemovals } from '../src/api-docs/openapi-versions.ts';
import { API_VERSIONS, NEWEST_API_VERSION } from '../src/model/api-versions.ts';
import { CHANGELOG_FILE, changelog, releasedDates, releasedDocument } from '../scripts/api-versions/changelog.ts';
import { documentChanges } from '../scripts/api-versions/document-changes.ts';

type Json = Record<string, unknown>;

const current = openApiDocument() as Json;

describe('the API versions and the breaking-change check', () => {
  test('each version of API_VERSIONS has its released document, dated as its info.version, and no document lacks a version', () => {
    assert.deepEqual(
      releasedDates(),
      API_VERSIONS.map((v) => v.date),
      'run `npm run api:release -- <date>` for a version added to model/api-versions.ts',
    );
    for (const date of releasedDates()) assert.equal((releasedDocument(date).info as Json).version, date);
  });

  test('the served document breaks nothing a client of the newest released version relies on', () => {
    const breaking = documentChanges(releasedDocument(NEWEST_API_VERSION), current).filter((c) => c.breaking);
    assert.deepEqual(
      breaking.map((c) => `${c.operation}: ${c.what}`),
      [],
      `these changes break clients of ${NEWEST_API_VERSION}: keep what they rely on, or add a version date to model/api-versions.ts ` +
        '(with a Removal for an operation earlier versions must still get) and run `npm run api:release -- <date>`',
    );
  });

  test('between released versions no operation disappears before the sunset an earlier version announced', () => {
    const dates = releasedDates();
    for (let i = 1; i < dates.length; i += 1) {
      const removed = documentChanges(releasedDocument(dates[i - 1] ?? ''), releasedDocument(dates[i] ?? '')).filter(
        (c) => c.what === 'operation removed',
      );
      assert.deepEqual(removed, [], `${dates[i]} removed operations without a Removal whose sunset had passed`);
    }
  });

  test('docs/store-api-changelog.md is the changelog the released documents give', () => {
    assert.equal(readFileSync(CHANGELOG_FILE, 'utf8'), changelog(), 'run `npm run api:release -- <newest date> --replace`');
  });
});

describe('comparing two documents', () => {
  const changed = (edit: (document: Json & { paths: Json; components: { schemas: Record<string, Json> } }) => void) => {
    const newer = structuredClone(current) as Json & { paths: Json; components: { schemas: Record<string, Json> } };
    edit(newer);
    return documentChanges(current, newer);
  };
  const breaking = (changes: ReturnType<typeof documentChanges>) =>
    changes.filter((c) => c.breaking).map((c) => `${c.operation}: ${c.what}`);

  test('the same document twice has no change', () => {
    assert.deepEqual(documentChanges(current, structuredClone(current)), []);
  });

  test('a removed operation, answer field, answer status and newly required body field break clients', () => {
    const found = breaking(
      changed((d) => {
        delete (d.paths['/products/{id}'] as Json).delete;
        delete (d.components.schemas.Product?.properties as Json).item_name;
        (d.components.schemas.CustomerCreate as { required?: string[] }).required = ['email'];
        delete ((d.paths['/carts/{id}/place_order'] as Json).post as { responses: Json }).responses['200'];
      }),
    );
    assert.ok(found.includes('DELETE /products/{id}: operation removed'), found.join('\n'));
    assert.ok(found.includes('GET /products/{id}: answer 200: field item_name removed'), found.join('\n'));
    assert.ok(found.includes('POST /customers: the body: field email is now required'), found.join('\n'));
    assert.ok(found.includes('POST /carts/{id}/place_order: no longer answers 200'), found.join('\n'));
  });

  test('an answer field that may now be null, a narrower body field and a new required parameter break clients', () => {
    const found = breaking(
      changed((d) => {
        const price = (d.components.schemas.Product?.properties as Record<string, Json>).price;
        price.type = ['number', 'null', 'string'];
        const name = (d.components.schemas.ProductCreate?.properties as Record<string, Json>).item_name;
        name.maxLength = 10;
        const list = (d.paths['/products'] as { get: { parameters: Json[] } }).get;
        list.parameters.push({ name: 'region', in: 'query', required: true, schema: { type: 'string' } });
      }),
    );
    assert.ok(found.includes('GET /products/{id}: answer 200: field price may now be string'), found.join('\n'));
    assert.ok(
      found.some((f) => f.startsWith('POST /products: the body: field item_name has maxLength 10')),
      found.join('\n'),
    );
    assert.ok(found.includes('GET /products: query parameter region added, required'), found.join('\n'));
  });

  test('added operations, optional body fields, answer fields and statuses break nothing', () => {
    const changes = changed((d) => {
      d.paths['/price_alerts'] = { get: { responses: { 200: { description: 'ok' } } } };
      (d.components.schemas.Product?.properties as Json).gift_wrap = { type: 'boolean' };
      (d.components.schemas.ProductCreate?.properties as Json).gift_wrap = { type: 'boolean' };
      ((d.paths['/products'] as Json).get as { responses: Json }).responses['418'] = { description: 'teapot' };
    });
    assert.deepEqual(breaking(changes), []);
    const other = changes.map((c) => `${c.operation}: ${c.what}`);
    assert.ok(other.includes('GET /price_alerts: operation added'));
    assert.ok(other.includes('GET /products/{id}: answer 200: field gift_wrap added'));
    assert.ok(other.includes('GET /products: may answer 418'));
  });

  test('an operation marked removed is a deprecation; dropping it breaks clients before its sunset, not after', () => {
    const removal = {
      method: 'GET' as const,
      path: '/products/{id}/filled',
      removedIn: '2027-01-01',
      sunset: '2027-06-01',
      instead: 'use expand=',
    };
    const marked = structuredClone(current) as Json & { paths: Json; info: Json };
    withRemovals(marked.paths, [removal]);
    const filled = (marked.paths['/products/{id}/filled'] as { get: Json }).get;
    assert.equal(filled.deprecated, true);
    assert.ok((filled.responses as Json)['410'] !== undefined);
    assert.deepEqual(breaking(documentChanges(current, marked)), []);
    assert.ok(documentChanges(current, marked).some((c) => c.what.startsWith('deprecated: removed in 2027-01-01')));

    const dropped = (versionDate: string) => {
      const newer = structuredClone(marked);
      delete (newer.paths['/products/{id}/filled'] as Json).get;
      newer.info = { ...newer.info, version: versionDate };
      return breaking(documentChanges(marked, newer));
    };
    assert.deepEqual(dropped('2027-03-01'), ['GET /products/{id}/filled: operation removed']);
    assert.deepEqual(dropped('2027-06-01'), []);
    assert.throws(
      () => withRemovals(structuredClone(current.paths as Json), [{ ...removal, path: '/nothing' }]),
      /REMOVALS names GET \/nothing/,
    );
  });

  test('a field marked removed is deprecated in its record schema, breaks nothing, and must be one the document has', () => {
    const removal = { resource: 'products', field: 'price', removedIn: '2027-01-01', sunset: '2027-06-01' };
    const marked = structuredClone(current) as Json & { components: { schemas: Json } };
    withFieldRemovals(marked.components.schemas, () => 'Product', [removal]);
    const price = (marked.components.schemas.Product as { properties: Record<string, Json> }).properties.price;
    assert.equal(price?.deprecated, true);
    assert.equal(price?.['x-sunset'], '2027-06-01');
    assert.match(String(price?.description), /Removed in version 2027-01-01/);
    assert.deepEqual(breaking(documentChanges(current, marked)), []);
    assert.throws(
      () => withFieldRemovals(structuredClone(marked.components.schemas), () => 'Product', [{ ...removal, field: 'colour' }]),
      /FIELD_REMOVALS names products\.colour/,
    );
  });
});
