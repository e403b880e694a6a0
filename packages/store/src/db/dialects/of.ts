// The SQL of a database's family.
import type { DialectName } from '@app/database';
import type { DialectSql } from '../dialect-sql.ts';
import { mysqlSql } from './mysql.ts';
import { postgresSql } from './postgres.ts';
import { sqliteSql } from './sqlite.ts';

const families: Record<DialectName, DialectSql> = { sqlite: sqliteSql, postgres: postgresSql, mysql: mysqlSql };

export function dialectSqlOf(database: { readonly dialect: DialectName }): DialectSql {
  return families[database.dialect];
}
