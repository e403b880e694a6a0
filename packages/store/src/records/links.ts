// Join-table links between records (`PUT /products/5/categories/3`) and the existence check of nested lists.
import type { Kysely } from 'kysely';
import { constraintViolation } from '../db/constraint-violation.ts';
import type { StoreSchema } from '../db/schema.ts';
import type { NestedDeclaration, ResourceDeclaration } from '../model/declaration.ts';
import type { Where } from './filters.ts';

/** Links or unlinks two records through a join table; true when the link changed. */
export async function setLink(
  db: Kysely<StoreSchema>,
  nested: Extract<NestedDeclaration, { kind: 'link' }>,
  parentId: number,
  childId: number,
  linked: boolean,
): Promise<boolean> {
  const pair = { [nested.parentKey]: parentId, [nested.childKey]: childId };
  const where = (eb: Where) => eb.and([eb(eb.ref(nested.parentKey), '=', parentId), eb(eb.ref(nested.childKey), '=', childId)]);
  const existing = await db.selectFrom(nested.table).select(nested.parentKey).where(where).executeTakeFirst();
  if (linked === (existing !== undefined)) return false;
  try {
    if (linked) await db.insertInto(nested.table).values(pair).execute();
    else await db.deleteFrom(nested.table).where(where).execute();
  } catch (error) {
    // Two clients linking the same pair at once: the second finds it done.
    if (constraintViolation(error) !== 'unique') throw error;
    return false;
  }
  return true;
}

/** True when the record exists; nested lists answer 404 for a missing parent. */
export async function recordExists(db: Kysely<StoreSchema>, resource: ResourceDeclaration, id: number): Promise<boolean> {
  return (await db.selectFrom(resource.table).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}
