// Each domain's history revision (see DomainRevisionTable): raised where its finished tests change,
// read before reusing a history answer.
import { MysqlAdapter, sql, type Kysely } from 'kysely';
import type { ServiceSchema } from './tables.ts';

/**
 * Marks a change to these domains' finished tests, inside the transaction that makes it: one upsert,
 * so two first finishes of a domain cannot both insert. Domains in a fixed order, so two transactions
 * that raise the same ones lock them in the same order.
 */
export async function raiseDomainRevisions(trx: Kysely<ServiceSchema>, domains: readonly string[]): Promise<void> {
  if (domains.length === 0) return;
  const insert = trx.insertInto('dh_domain_revision').values([...new Set(domains)].sort().map((domain) => ({ domain, revision: 1 })));
  // MariaDB has its own upsert; PostgreSQL and SQLite share ON CONFLICT.
  if (trx.getExecutor().adapter instanceof MysqlAdapter) await insert.onDuplicateKeyUpdate({ revision: sql`revision + 1` }).execute();
  else
    await insert
      .onConflict((conflict) => conflict.column('domain').doUpdateSet({ revision: sql`dh_domain_revision.revision + 1` }))
      .execute();
}

/** A domain's history revision: a primary-key read, 0 while it has no row. */
export async function domainRevision(db: Kysely<ServiceSchema>, domain: string): Promise<number> {
  const row = await db.selectFrom('dh_domain_revision').select('revision').where('domain', '=', domain).executeTakeFirst();
  return row === undefined ? 0 : Number(row.revision);
}
