// `expand=` and `/filled`: each named nested collection read in one query for all the page's records, and
// inlined under its name in each record.
import type { Kysely } from 'kysely';
import type { Row, StoreSchema } from '../db/schema.ts';
import { nestedOf, type ResourceDeclaration } from '../model/declaration.ts';
import { resourceNamed } from '../model/registry.ts';
import { rowShaper } from './row-shape.ts';

export async function expandRows(
  db: Kysely<StoreSchema>,
  resource: ResourceDeclaration,
  rows: Row[],
  names: readonly string[],
): Promise<void> {
  const ids = rows.map((row) => row.id as number);
  for (const name of names) {
    const nested = nestedOf(resource, name);
    if (nested === undefined) continue;
    const shape = rowShaper(resourceNamed(nested.resource));
    const children =
      ids.length === 0
        ? []
        : nested.kind === 'children'
          ? (
              await db
                .selectFrom(resourceNamed(nested.resource).table)
                .selectAll()
                .where(nested.foreignKey, 'in', ids)
                .orderBy('id')
                .execute()
            ).map((child) => ({
              parent: child[nested.foreignKey],
              child,
            }))
          : (
              await db
                .selectFrom(resourceNamed(nested.resource).table)
                .innerJoin(nested.table, `${nested.table}.${nested.childKey}`, `${resourceNamed(nested.resource).table}.id`)
                .selectAll(resourceNamed(nested.resource).table)
                .select(`${nested.table}.${nested.parentKey} as __parent`)
                .where(`${nested.table}.${nested.parentKey}`, 'in', ids)
                .orderBy(`${resourceNamed(nested.resource).table}.id`)
                .execute()
            ).map(({ __parent, ...child }) => ({ parent: __parent, child }));
    const byParent = new Map<number, Row[]>(ids.map((id) => [id, []]));
    for (const { parent, child } of children) byParent.get(Number(parent))?.push(shape(child));
    for (const row of rows) row[name] = byParent.get(row.id as number) ?? [];
  }
}
