// Brings the tables in line with the resource declarations: creates the missing ones and adds missing
// columns, never dropping or changing what exists. A migration step calls it; since it only adds what is
// missing, a later change to the declarations ships as one more step that calls it again.
import type { DialectName } from '@app/database';
import { longTextType, withIdColumn } from '@app/database';
import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';
import type { FieldDeclaration, ResourceDeclaration } from '../model/declaration.ts';

type ColumnType = Parameters<CreateTableBuilder<string, never>['addColumn']>[1];

function columnType(field: FieldDeclaration, dialect: DialectName): ColumnType {
  switch (field.type) {
    case 'string':
      // Product descriptions can be longer than MariaDB's TEXT holds.
      return field.maxLength !== undefined && field.maxLength <= 255 ? `varchar(${field.maxLength})` : longTextType(dialect);
    case 'json':
      return longTextType(dialect);
    case 'datetime':
      return 'varchar(32)';
    case 'integer':
      return 'integer';
    case 'number':
      return 'decimal(14, 4)';
    case 'boolean':
    case 'flag':
      return 'boolean';
  }
}

function columnOptions(field: FieldDeclaration): (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  // Yes/no fields start false, as on the platform, and are never null.
  return (column) => (field.type === 'boolean' || field.type === 'flag' ? column.notNull().defaultTo(false) : column);
}

/** Every table the declarations need, with the union of the fields of the declarations that share it. */
function tablesOf(resources: readonly ResourceDeclaration[]): Map<string, Map<string, FieldDeclaration>> {
  const tables = new Map<string, Map<string, FieldDeclaration>>();
  for (const resource of resources) {
    const columns = tables.get(resource.table) ?? new Map<string, FieldDeclaration>();
    for (const [name, field] of Object.entries(resource.fields)) if (!columns.has(name)) columns.set(name, field);
    tables.set(resource.table, columns);
  }
  return tables;
}

/** PostgreSQL keeps 1,000 histogram buckets of a table's `updated_at`, so that it sees how many rows a time range holds (0491). */
export const keepUpdatedAtStatistics = (db: Kysely<unknown>, table: string) =>
  sql`alter table ${sql.table(table)} alter column updated_at set statistics 1000`.execute(db);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration sees the schema as it is in the database
export async function syncResourceTables(db: Kysely<any>, dialect: DialectName, resources: readonly ResourceDeclaration[]): Promise<void> {
  const existing = new Map((await db.introspection.getTables()).map((table) => [table.name, new Set(table.columns.map((c) => c.name))]));
  for (const [table, fields] of tablesOf(resources)) {
    const present = existing.get(table);
    if (present === undefined) {
      let create = withIdColumn(db.schema.createTable(table), dialect);
      for (const [name, field] of fields) {
        if (name === 'id') continue;
        create = create.addColumn(
          name,
          columnType(field, dialect),
          name === 'created_at' || name === 'updated_at' ? (c) => c.notNull() : columnOptions(field),
        );
      }
      await create.execute();
      // Incremental sync reads `updated_at > t` in updated_at order.
      await db.schema.createIndex(`${table}_updated_at`).on(table).columns(['updated_at', 'id']).execute();
      if (dialect === 'postgres') await keepUpdatedAtStatistics(db, table);
      continue;
    }
    for (const [name, field] of fields) {
      if (present.has(name)) continue;
      await db.schema.alterTable(table).addColumn(name, columnType(field, dialect), columnOptions(field)).execute();
    }
  }
}
