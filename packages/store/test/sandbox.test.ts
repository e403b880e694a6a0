// `store seed --demo` and `store reset` (issue 37 item 5): the demo data is the same on every run, goes through the
// API's rules (orders take stock, lines are priced from their products), and reset empties the store after asking.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { jobFiles } from '../src/bulk/job-files.ts';
import { jobTable } from '../src/bulk/job-table.ts';
import { resetCommand, seedCommand } from '../src/cli/sandbox-commands.ts';
import { textOf, type StoreSchema } from '../src/db/schema.ts';
import { demoData } from '../src/sandbox/demo-catalog.ts';

const TABLES = [
  'categories',
  'products',
  'product_variants',
  'variant_inventory',
  'product_pictures',
  'customers',
  'carts',
  'cart_items',
  'orders',
  'order_items',
  'custom_shipping_methods',
  'coupon_codes',
  'discount_methods',
  'discount_rules',
  'discount_actions',
] as const;
/** A column value as text; yes/no as 1 or 0 whichever way the driver hands it back. */
const asText = (value: unknown): string | null =>
  value === null || value === undefined ? null : typeof value === 'boolean' ? (value ? '1' : '0') : textOf(value);
const TIMES = new Set(['created_at', 'updated_at', 'registered_at', 'ordered_at', 'paid_at', 'last_visit_at']);
// A product's kept JSON (PostgreSQL, 0460_record_json) holds its times too; it is made from the columns compared.
const DERIVED = new Set(['__json', '__json_hash']);

for (const target of await testDatabaseTargets()) {
  describe(`store seed --demo and store reset on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let dataDir: string;
    const said: string[] = [];
    const io = (answer = '') => ({
      out: (line: string) => said.push(line),
      err: (line: string) => said.push(line),
      ask: () => Promise.resolve(answer),
    });
    before(async () => {
      throwaway = await target.create();
      dataDir = mkdtempSync(join(tmpdir(), 'store-sandbox-'));
      process.env.DATA_DIR = dataDir;
    });
    after(async () => {
      delete process.env.DATA_DIR;
      await throwaway?.drop();
      if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
    });

    /** Every seeded record, without the times it was made at. */
    async function snapshot(): Promise<Record<string, Record<string, string | null>[]>> {
      const database = await openDatabase<StoreSchema>(throwaway.url);
      try {
        const out: Record<string, Record<string, string | null>[]> = {};
        for (const table of TABLES) {
          const rows = await database.db.selectFrom(table).selectAll().orderBy('id').execute();
          // Each value as text: the drivers differ in how they hand numbers back, not in what was stored.
          out[table] = rows.map((row) =>
            Object.fromEntries(
              Object.entries(row)
                .filter(([name]) => !TIMES.has(name) && !DERIVED.has(name))
                .map(([name, value]) => [name, asText(value)]),
            ),
          );
        }
        return out;
      } finally {
        await database.close();
      }
    }

    test('the demo data is drawn from a fixed seed: the same every time', () => {
      assert.deepEqual(demoData(), demoData());
      assert.notDeepEqual(demoData(1), demoData(2));
      const data = demoData();
      assert.ok(
        data.products.some((p) => p.sizes.length > 0) && data.products.every((p) => p.images.every((url) => url.startsWith('https://'))),
      );
    });

    test('seed fills the store through its routes; a second seed is refused; reset asks, then empties; a seed after reset makes the same records', async () => {
      assert.equal(await seedCommand(['--demo', '--database', throwaway.url], io()), 0, said.join('\n'));
      const first = await snapshot();
      assert.equal(first.products?.length, 48);
      assert.equal(first.orders?.length, 12);
      assert.equal(first.customers?.length, 20);
      assert.equal(first.carts?.filter((cart) => cart.associated_order_id === null).length, 8, 'open carts stay open');
      // The orders went through place_order: stock was taken off (per size for apparel).
      const data = demoData();
      const ordered = first.order_items?.reduce((sum, item) => sum + Number(item.quantity), 0) ?? 0;
      const taken =
        data.products.reduce((sum, p) => sum + p.quantity_on_hand * Math.max(1, p.sizes.length), 0) -
        (first.products ?? []).reduce((sum, p) => sum + (p.use_variant_inventory === '1' ? 0 : Number(p.quantity_on_hand)), 0) -
        (first.variant_inventory ?? []).reduce((sum, v) => sum + Number(v.inventory), 0);
      assert.equal(taken, ordered, 'every unit ordered was taken off stock');
      // A demo store can ship and discount: the coupon reaches a discount through its method's rule and action.
      assert.deepEqual(
        first.custom_shipping_methods?.map((m) => [m.name, m.is_enabled, m.markup_amount]),
        [
          ['Free Ground Shipping', '1', '0'],
          ['Express', '1', '12.50'],
        ],
      );
      const couponed = first.carts?.filter((cart) => cart.coupon_code === 'SAVE10') ?? [];
      assert.equal(couponed.length, 1);
      assert.equal(couponed[0]?.associated_order_id, null);
      assert.ok(Number(couponed[0]?.discount_total) > 0, 'SAVE10 discounts the cart it is applied to');
      assert.equal(Number(couponed[0]?.discount_total), Math.round(Number(couponed[0]?.subtotal) * 10) / 100);

      assert.equal(await seedCommand(['--demo', '--database', throwaway.url], io()), 1);
      assert.match(said.at(-1) ?? '', /already has products; run `store reset` first/);

      assert.equal(await resetCommand(['--database', throwaway.url], io('no')), 1);
      assert.match(said.at(-1) ?? '', /nothing was deleted/);
      assert.equal((await snapshot()).products?.length, 48);
      assert.equal(await resetCommand(['--database', throwaway.url], io('reset')), 0);
      const emptied = await snapshot();
      assert.deepEqual([emptied.products?.length, emptied.orders?.length, emptied.customers?.length], [0, 0, 0]);
      assert.equal(emptied.categories?.length, 1, 'the Home category every store starts with is back');

      assert.equal(await seedCommand(['--demo', '--database', throwaway.url], io()), 0, said.join('\n'));
      assert.deepEqual(await snapshot(), first, 'the same records, with the same ids');
    });

    test('reset removes the bulk jobs and their files: an export of the old catalog does not outlive it', async () => {
      const database = await openDatabase<StoreSchema>(throwaway.url);
      const files = jobFiles(dataDir);
      let exported: string;
      try {
        const storeId = Number((await database.db.selectFrom('stores').select('id').executeTakeFirstOrThrow()).id);
        const job = await jobTable(database, 60_000).add(
          { storeId, type: 'export', resource: 'products', query: null, rowsTotal: 48, fileKey: 'resettest0123456789', createdBy: 'test' },
          5,
        );
        assert.ok('id' in job);
        exported = files.result(job);
        writeFileSync(exported, 'the old catalog');
      } finally {
        await database.close();
      }
      assert.equal(await resetCommand(['--yes', '--database', throwaway.url], io()), 0);
      assert.equal(existsSync(exported), false, 'the export file is gone');
      const after = await openDatabase<StoreSchema>(throwaway.url);
      try {
        assert.deepEqual(await after.db.selectFrom('bulk_operations').select('id').execute(), []);
      } finally {
        await after.close();
      }
    });

    test('reset --yes does not ask; wrong arguments print the usage', async () => {
      assert.equal(await resetCommand(['--yes', '--database', throwaway.url], { ...io(), ask: () => assert.fail('asked') }), 0);
      assert.equal(await seedCommand(['--database', throwaway.url], io()), 2);
      assert.equal(await resetCommand(['--force', '--database', throwaway.url], io()), 2);
    });
  });
}
