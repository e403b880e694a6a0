// POST /products/importMany: many products in one call, each line created or updated on its own (found by
// id, or by item_number with lookup_by_sku), optionally with a new category and manufacturer it then uses.
// A line that fails is reported with its status and does not stop the others.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../model/api-error.ts';
import type { Row, StoreDatabase } from '../db/schema.ts';
import { createSchema, updateSchema } from '../model/json-schema.ts';
import { resourceNamed } from '../model/registry.ts';
import type { ResourceRouteConfig } from '../model/route-config.ts';
import type { RecordWrites } from './record-writes.ts';

const MAX_LINES = 1000;

interface ImportLine {
  lookup_by_sku?: boolean;
  product: Row;
  category?: Row;
  manufacturer?: Row;
}

interface LineResult {
  line_item: number;
  status_code: number;
  entity_id?: number;
  message?: string;
}

export function importManyRoute(app: FastifyInstance, options: { database: StoreDatabase; writes: RecordWrites }): Promise<void> {
  const { writes } = options;
  const products = resourceNamed('products');
  const categories = resourceNamed('categories');
  const manufacturers = resourceNamed('manufacturers');
  const line = {
    type: 'object',
    required: ['product'],
    properties: {
      lookup_by_sku: { type: 'boolean' },
      // Each line is checked on its own below, so one bad line does not refuse the whole call.
      product: { type: 'object' },
      category: { type: ['object', 'null'] },
      manufacturer: { type: ['object', 'null'] },
    },
  };
  const config: ResourceRouteConfig = { resource: 'products', scope: 'catalog', access: 'write', touches: ['categories', 'manufacturers'] };
  // A product line may name an existing record by sku, so its required fields are checked once it is known to be new.
  const schemas = { product: updateSchema(products), category: createSchema(categories), manufacturer: createSchema(manufacturers) };

  async function importLine(entry: ImportLine): Promise<{ created: boolean; id: number }> {
    const product: Row = { ...entry.product };
    if (entry.lookup_by_sku === true) {
      const sku = product.item_number;
      if (typeof sku !== 'string' || sku === '') throw new ApiError(400, 'product.item_number: is required with lookup_by_sku');
      const found = await options.database.db
        .selectFrom('products')
        .select('id')
        .where('item_number', '=', sku)
        .orderBy('id')
        .executeTakeFirst();
      if (found !== undefined) product.id = Number(found.id);
    }
    if (entry.category !== undefined && entry.category !== null)
      product.primary_category_id = (await writes.upsert(categories, { ...entry.category, id: null })).row.id;
    if (entry.manufacturer !== undefined && entry.manufacturer !== null)
      product.manufacturer_id = (await writes.upsert(manufacturers, { ...entry.manufacturer, id: null })).row.id;
    const { created, row } = await writes.upsert(products, product);
    return { created, id: Number(row.id) };
  }

  app.post('/products/importMany', { config, schema: { body: { type: 'array', maxItems: MAX_LINES, items: line } } }, async (request) => {
    const results: LineResult[] = [];
    for (const [index, entry] of (request.body as ImportLine[]).entries()) {
      try {
        // Every problem of the line at once, in the error format's words.
        const problems = (['product', 'category', 'manufacturer'] as const).flatMap((part) => {
          const validate = request.compileValidationSchema(schemas[part]);
          return entry[part] === undefined || entry[part] === null || validate(entry[part])
            ? []
            : (validate.errors ?? []).map((e) => `${part}${e.instancePath.replaceAll('/', '.')}: ${e.message ?? 'is invalid'}`);
        });
        if (problems.length > 0) throw new ApiError(400, problems.join('; '));
        const { created, id } = await importLine(entry);
        results.push({ line_item: index, status_code: created ? 201 : 200, entity_id: id });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        results.push({ line_item: index, status_code: error.statusCode, message: error.message });
      }
    }
    return { total_errors: results.filter((r) => r.status_code >= 400).length, results };
  });
  return Promise.resolve();
}
