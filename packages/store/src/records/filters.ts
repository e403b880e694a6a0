// The list query language's conditions as SQL WHERE expressions, the same on every database.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { StoreSchema } from '../db/schema.ts';
import type { Condition, FieldFilter, FilterValue, SortKey } from '../model/query-language.ts';

export type Where = ExpressionBuilder<StoreSchema, string>;

/**
 * `a AND b AND c ...` as a balanced tree of parenthesised halves: a flat chain of n terms is n levels deep for the
 * database's parser, and SQLite refuses expressions deeper than 1000.
 */
function balanced(eb: Where, join: 'and' | 'or', terms: readonly Expression<SqlBool>[]): Expression<SqlBool> {
  if (terms.length <= 2) return eb[join]([...terms]);
  const half = Math.ceil(terms.length / 2);
  return eb[join]([balanced(eb, join, terms.slice(0, half)), balanced(eb, join, terms.slice(half))]);
}

export function filtersExpression(eb: Where, filters: readonly FieldFilter[]): Expression<SqlBool> {
  let combined: Expression<SqlBool> | undefined;
  // Filters joined to the ones before by the same word are one balanced run (AND and OR each associate).
  let run: { join: 'and' | 'or'; terms: Expression<SqlBool>[] } | undefined;
  const close = () => {
    if (run !== undefined) combined = balanced(eb, run.join, run.terms);
  };
  for (const filter of filters) {
    const expression = balanced(
      eb,
      'or',
      filter.anyOf.map((all) =>
        balanced(
          eb,
          'and',
          all.map((condition) => conditionExpression(eb, condition)),
        ),
      ),
    );
    const join = filter.joinWithOr ? 'or' : 'and';
    if (run === undefined) run = { join, terms: [expression] };
    else if (run.join === join) run.terms.push(expression);
    else {
      close();
      run = { join, terms: [combined as Expression<SqlBool>, expression] };
    }
  }
  close();
  return combined ?? sql<SqlBool>`1 = 1`;
}

/**
 * Rows after `values` in the list's order: (a, b, id) > (va, vb, vid), each column in its own direction. The first
 * key's bound (a >= va) is said once more on its own: it is what lets the database start its index scan at the
 * position, where the OR alone made it read every row from the start of the range up to it (deep pages got slower).
 */
export function afterExpression(eb: Where, sort: readonly SortKey[], values: readonly FilterValue[]): Expression<SqlBool> {
  const keys = [...sort, { field: 'id', descending: false }];
  const [first] = sort;
  const after = afterTerms(eb, keys, values);
  return first === undefined ? after : eb.and([eb(eb.ref(first.field), first.descending ? '<=' : '>=', values[0] ?? null), after]);
}

function afterTerms(eb: Where, keys: readonly SortKey[], values: readonly FilterValue[]): Expression<SqlBool> {
  return eb.or(
    keys.map((key, i) =>
      eb.and([
        ...keys.slice(0, i).map((earlier, j) => eb(eb.ref(earlier.field), '=', values[j] ?? null)),
        eb(eb.ref(key.field), key.descending ? '<' : '>', values[i] ?? null),
      ]),
    ),
  );
}

// `!` escapes LIKE wildcards: it means the same on all three databases, unlike a backslash.
function likePattern(text: string): string {
  return text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`);
}

function conditionExpression(eb: Where, { field, operator, value }: Condition): Expression<SqlBool> {
  const column = eb.ref(field);
  switch (operator) {
    case 'eq':
      return eb(column, '=', value);
    case 'not':
      return eb.or([eb(column, '<>', value), eb(column, 'is', null)]);
    case 'like':
      return sql<SqlBool>`lower(${column}) like ${`%${likePattern(String(value))}%`} escape '!'`;
    case 'startwith':
      return sql<SqlBool>`lower(${column}) like ${`${likePattern(String(value))}%`} escape '!'`;
    case 'gt':
      return eb(column, '>', value);
    case 'gte':
      return eb(column, '>=', value);
    case 'lt':
      return eb(column, '<', value);
    case 'lte':
      return eb(column, '<=', value);
  }
}
