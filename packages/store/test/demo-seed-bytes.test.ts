// `store seed --demo` makes the same store byte for byte on every run: every column of every seeded table,
// times included (the seed runs on a fixed clock), and the same words on stdout.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '@app/database';
import { testDatabaseTargets, type ThrowawayDatabase } from '@app/database/testing';
import { DEMO_TIME, resetCommand, seedCommand } from '../src/cli/sandbox-commands.ts';
import { textOf, type StoreSchema } from '../src/db/schema.ts';

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
  'event_log',
] as const;

for (const target of await testDatabaseTargets()) {
  describe(`store seed --demo, byte for byte, on ${target.name}`, { skip: target.skip }, () => {
    const throwaways: ThrowawayDatabase[] = [];
    let dataDir: string;
    before(async () => {
      for (let i = 0; i < 2; i += 1) throwaways.push(await target.create());
      dataDir = mkdtempSync(join(tmpdir(), 'store-seed-bytes-'));
      process.env.DATA_DIR = dataDir;
    });
    after(async () => {
      delete process.env.DATA_DIR;
      for (const throwaway of throwaways) await throwaway.drop();
      if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
    });

    /** Every row of the seeded tables, every column, as text, one line a row. */
    async function dump(url: string): Promise<string[]> {
      const database = await openDatabase<StoreSchema>(url);
      try {
        const out: string[] = [];
        for (const table of TABLES) {
          const rows = await database.db.selectFrom(table).selectAll().orderBy('id').execute();
          for (const row of rows)
            out.push(
              `${table} ${JSON.stringify(Object.entries(row).map(([name, value]) => [name, value === null ? null : value instanceof Date ? value.toISOString() : textOf(value)]))}`,
            );
        }
        return out;
      } finally {
        await database.close();
      }
    }

    /** A seed into a fresh store: what it said on stdout, and the rows it made (the fresh store's own defaults left out). */
    async function seeded(url: string): Promise<{ stdout: string[]; rows: string }> {
      const quiet = { out: () => undefined, err: () => undefined, ask: () => Promise.resolve('') };
      // `store reset` opens (and so makes) the store with its first-start defaults, and empties nothing yet there.
      assert.equal(await resetCommand(['--yes', '--database', url], quiet), 0);
      const before = new Set(await dump(url));
      const stdout: string[] = [];
      assert.equal(await seedCommand(['--demo', '--database', url], { ...quiet, out: (line: string) => stdout.push(line) }), 0);
      return { stdout, rows: (await dump(url)).filter((line) => !before.has(line)).join('\n') };
    }

    test('two fresh stores seeded get the same rows, every column, times included, and the same words', async () => {
      const [one, two] = throwaways.map((t) => t.url) as [string, string];
      const first = await seeded(one);
      assert.ok(first.rows.split('\n').length > 200, `the seed made its rows: ${first.rows.split('\n').length}`);
      assert.ok(first.rows.includes(new Date(DEMO_TIME).toISOString().slice(0, 16)), 'stamped on the demo clock');
      assert.ok(!first.rows.includes(new Date().toISOString().slice(0, 10)), 'nothing stamped today');
      const second = await seeded(two);
      assert.deepEqual(second.stdout, first.stdout);
      assert.ok(second.rows === first.rows, 'every column of every row the same');
    });
  });
}
