// Which records still point at one record: what a refused DELETE names, so the caller knows what to change first.
import type { Row, StoreDatabase } from '../db/schema.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';
import { resources } from '../model/registry.ts';

/** Ids shown per referring field; the rest are counted. */
const SHOWN = 5;

/** The fields of other resources that refer to `target`, minus its own children (they go with it). */
function referringFields(target: ResourceDeclaration): { resource: ResourceDeclaration; field: string }[] {
  const ownChildren = new Set(
    Object.values(target.nested).flatMap((n) => (n.kind === 'children' ? [`${n.resource}.${n.foreignKey}`] : [])),
  );
  const seen = new Set<string>();
  return resources.flatMap((resource) =>
    Object.entries(resource.fields).flatMap(([field, declaration]) => {
      const key = `${resource.table}.${field}`;
      if (declaration.references !== target.name || ownChildren.has(`${resource.name}.${field}`) || seen.has(key)) return [];
      seen.add(key);
      return [{ resource, field }];
    }),
  );
}

/** "order_items 12, 13 (product_id)" for every kind of record referring to record `id` of `target`. */
export async function referrersOf(database: StoreDatabase, target: ResourceDeclaration, id: number): Promise<string[]> {
  const found: string[] = [];
  for (const { resource, field } of referringFields(target)) {
    const rows: Row[] = await database.db
      .selectFrom(resource.table)
      .select('id')
      .where(field, '=', id)
      .orderBy('id')
      .limit(SHOWN + 1)
      .execute();
    if (rows.length === 0) continue;
    const ids = rows.slice(0, SHOWN).map((row) => String(row.id));
    found.push(`${resource.name} ${ids.join(', ')}${rows.length > SHOWN ? ' and more' : ''} (${field})`);
  }
  return found;
}
