// The list query language of the reference platform: page, count, fields, expand, sort and
// `field=op:value` filters joined by AND/OR (written `+AND+`, a space, or `%2B`).
import { columnRanges, fieldOf, nestedOf, type FieldDeclaration, type ResourceDeclaration } from './declaration.ts';
import { ApiError } from './api-error.ts';

export const operators = ['eq', 'not', 'like', 'startwith', 'gt', 'gte', 'lt', 'lte'] as const;
export type Operator = (typeof operators)[number];
/** Operators that only text fields take (case-insensitive on every database). */
export const textOperators: readonly Operator[] = ['like', 'startwith'];
/** Field types a list cannot be filtered by. */
export const unfilterableTypes: readonly FieldDeclaration['type'][] = ['json'];

/** The operators a field of this type may be filtered with; none for an unfilterable type. */
export function operatorsFor(type: FieldDeclaration['type']): readonly Operator[] {
  if (unfilterableTypes.includes(type)) return [];
  return type === 'string' ? operators : operators.filter((o) => !textOperators.includes(o));
}
export type FilterValue = string | number | boolean;

export interface Condition {
  readonly field: string;
  readonly operator: Operator;
  readonly value: FilterValue;
}

/** One query parameter's conditions: OR of AND-groups, joined to the others with AND (or OR after a leading `OR+`). */
export interface FieldFilter {
  readonly joinWithOr: boolean;
  readonly anyOf: readonly (readonly Condition[])[];
}

export interface SortKey {
  readonly field: string;
  readonly descending: boolean;
}

export interface ListQuery {
  readonly page: number;
  readonly count: number;
  /** Undefined: every field. */
  readonly fields: readonly string[] | undefined;
  readonly expand: readonly string[];
  readonly sort: readonly SortKey[];
  readonly filters: readonly FieldFilter[];
  /**
   * Where the previous page ended: the sort values and id of its last row. next_page carries it (as `after`)
   * when every sort field is never null, so rows changed while a client pages are neither skipped nor repeated
   * the way counting an offset would.
   */
  readonly after: readonly FilterValue[] | undefined;
  /**
   * The walk's total_count, counted once on its first page and carried in `after`: counting a million rows again on
   * every page of a walk is most of a page's time. Undefined without `after`.
   */
  readonly afterTotal: number | undefined;
}

/** Keyset paging needs sort fields that are never null: server-set fields and required ones. */
export function keysetPageable(resource: ResourceDeclaration, sort: readonly SortKey[]): boolean {
  return sort.every(({ field }) => fieldOf(resource, field)?.readOnly === true || fieldOf(resource, field)?.required === true);
}

/** How list positions are sealed (a MAC: http/signed-cursor.ts), and which list they are for (`products`, `products/5/categories`). */
export interface ListPositions {
  readonly seal: {
    seal(payload: string, context: string): string;
    open(text: string, context: string): string | undefined;
  };
  readonly list: string;
}

/** A position holds only for the list, sort and filters it was made for: the total it carries was counted for them. */
function positionContext(list: string, sort: readonly SortKey[], filters: readonly FieldFilter[]): string {
  return JSON.stringify([list, sort, filters]);
}

/** The position after a page's last row (its sort values and id) and the walk's total, as next_page's `after`. */
export function encodeAfter(values: readonly FilterValue[], total: number, positions: ListPositions, query: ListQuery): string {
  return positions.seal.seal(JSON.stringify({ at: values, total }), positionContext(positions.list, query.sort, query.filters));
}

interface AfterPosition {
  values: FilterValue[] | undefined;
  total: number | undefined;
}

function decodeAfter(
  resource: ResourceDeclaration,
  sort: readonly SortKey[],
  filters: readonly FieldFilter[],
  text: string | undefined,
  positions: ListPositions | undefined,
): AfterPosition {
  if (text === undefined) return { values: undefined, total: undefined };
  const fields = [...sort.map((key) => key.field), 'id'];
  // Only a position this list sealed: one made up or changed would skip records without a word.
  const payload = positions?.seal.open(text, positionContext(positions.list, sort, filters));
  let decoded: unknown;
  try {
    decoded = payload === undefined ? undefined : JSON.parse(payload);
  } catch {
    decoded = undefined;
  }
  const carried =
    typeof decoded === 'object' && decoded !== null && !Array.isArray(decoded) ? (decoded as { at?: unknown; total?: unknown }) : {};
  const values = carried.at;
  const total = carried.total;
  const fits =
    keysetPageable(resource, sort) &&
    Array.isArray(values) &&
    values.length === fields.length &&
    values.every(
      (value, i) => typeof value === (['integer', 'number'].includes(fieldOf(resource, fields[i] ?? '')?.type ?? '') ? 'number' : 'string'),
    ) &&
    Number.isSafeInteger(total) &&
    (total as number) >= 0;
  if (!fits)
    throw new ApiError(
      400,
      'after: not a position this list gave out for this sort and these filters; follow next_page as given, or start again without after',
    );
  return { values: values as FilterValue[], total: total as number };
}

export const DEFAULT_COUNT = 100;
// The data-sync connector asks for 1000 at a time.
export const MAX_COUNT = 1000;
/** Filter conditions of one list query, all parameters together, and filter parameters: each bounds how deep the SQL gets (SQLite refuses past 1000). */
export const MAX_CONDITIONS = 1000;
export const MAX_FILTERS = 100;

export type RawQuery = Record<string, string | string[] | undefined>;

const SEPARATOR = /[ +](AND|OR)[ +]/;
const LEADING_OR = /^OR[ +]/;

/** A field clients may see, sort and filter by (not one a route keeps for itself). */
function visibleField(resource: ResourceDeclaration, name: string): FieldDeclaration | undefined {
  const field = fieldOf(resource, name);
  return field?.hidden === true ? undefined : field;
}

const isNested = (resource: ResourceDeclaration, name: string) => nestedOf(resource, name) !== undefined;

/** The list query; `expand` comes parsed already (see expand.ts), and `positions` check an `after` (without them, any is refused). */
export function parseListQuery(
  resource: ResourceDeclaration,
  query: RawQuery,
  expand: readonly string[],
  positions?: ListPositions,
): ListQuery {
  const sort = (optionalList(query, 'sort', () => undefined) ?? []).map((key) => {
    const descending = key.startsWith('-');
    const field = descending ? key.slice(1) : key;
    if (visibleField(resource, field) === undefined) throw new ApiError(400, `sort: ${resource.name} has no field "${field}"`);
    return { field, descending };
  });
  // Each field once at most, so the list is never longer than the fields there are.
  if (new Set(sort.map((key) => key.field)).size !== sort.length) throw new ApiError(400, 'sort: a field is named more than once');
  const filters: FieldFilter[] = [];
  let conditions = 0;
  for (const [name, raw] of Object.entries(query)) {
    const field = visibleField(resource, name);
    if (field === undefined || raw === undefined) continue; // unknown parameters are ignored
    for (const text of Array.isArray(raw) ? raw : [raw]) {
      const filter = parseFilter(name, field, text);
      conditions += filter.anyOf.reduce((sum, group) => sum + group.length, 0);
      if (conditions > MAX_CONDITIONS) throw new ApiError(400, `filters: at most ${MAX_CONDITIONS} conditions in one list query`);
      filters.push(filter);
      if (filters.length > MAX_FILTERS) throw new ApiError(400, `filters: at most ${MAX_FILTERS} filter parameters in one list query`);
    }
  }
  // The platform's docs put the OR on the first field (`weight=OR+gt:3.5&length=gt:12`, weight over 3.5 or length over
  // 12): nothing comes before it, so it joins that field to the next one with OR.
  const [first, second] = filters;
  if (first?.joinWithOr === true && second !== undefined && !second.joinWithOr) filters[1] = { ...second, joinWithOr: true };
  const named = optionalList(query, 'fields', (name) => {
    if (visibleField(resource, name) === undefined && !isNested(resource, name))
      throw new ApiError(400, `fields: ${resource.name} has no field "${name}"`);
  });
  const after = decodeAfter(resource, sort, filters, single(query, 'after'), positions);
  return {
    page: positiveInteger('page', single(query, 'page') ?? '1', Number.MAX_SAFE_INTEGER),
    count: positiveInteger('count', single(query, 'count') ?? String(DEFAULT_COUNT), MAX_COUNT),
    // A nested collection named in `fields` is filled as if expanded (parseExpand adds it), as the platform does.
    fields: named?.filter((name) => !isNested(resource, name)),
    expand,
    sort,
    filters,
    after: after.values,
    afterTotal: after.total,
  };
}

/**
 * The nested collections `expand=a,b` names (400 for one the resource does not have), and those `fields=` names,
 * which the platform fills as if expanded.
 */
export function parseExpand(resource: ResourceDeclaration, query: RawQuery): string[] {
  const expand =
    optionalList(query, 'expand', (name) => {
      if (!isNested(resource, name)) throw new ApiError(400, `expand: ${resource.name} has no nested collection "${name}"`);
    }) ?? [];
  const named = (optionalList(query, 'fields', () => undefined) ?? []).filter((name) => isNested(resource, name));
  return [...new Set([...expand, ...named])];
}

function single(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new ApiError(400, `${name}: given more than once`);
  return value;
}

function positiveInteger(name: string, text: string, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max) {
    throw new ApiError(400, `${name}: must be a whole number from 1 to ${max}, not "${text}"`);
  }
  return value;
}

function optionalList(query: RawQuery, name: string, check: (item: string) => void): string[] | undefined {
  const text = single(query, name);
  if (text === undefined) return undefined;
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const item of items) check(item);
  return items;
}

function parseFilter(name: string, field: FieldDeclaration, text: string): FieldFilter {
  const joinWithOr = LEADING_OR.test(text);
  const body = joinWithOr ? text.slice(3) : text;
  const anyOf: Condition[][] = [[]];
  let connector = 'AND';
  for (const [index, part] of body.split(SEPARATOR).entries()) {
    if (index % 2 === 1) {
      connector = part;
      continue;
    }
    if (connector === 'OR') anyOf.push([]);
    anyOf.at(-1)?.push(parseCondition(name, field, part));
  }
  return { joinWithOr, anyOf };
}

function parseCondition(name: string, field: FieldDeclaration, text: string): Condition {
  const match = /^([a-z]+):(.*)$/s.exec(text);
  const operator = match !== null && (operators as readonly string[]).includes(match[1] ?? '') ? (match[1] as Operator) : undefined;
  const valueText = operator === undefined ? text : (match?.[2] ?? '');
  // (An unfilterable field is refused with its own reason below.)
  if (operator !== undefined && !unfilterableTypes.includes(field.type) && !operatorsFor(field.type).includes(operator)) {
    throw new ApiError(400, `${name}: ${operator} applies to text fields only`);
  }
  return { field: name, operator: operator ?? 'eq', value: filterValue(name, field, valueText) };
}

function filterValue(name: string, field: FieldDeclaration, text: string): FilterValue {
  switch (field.type) {
    case 'string':
      if (text.includes('\0')) throw new ApiError(400, `${name}: text cannot hold the NUL character`);
      return text;
    case 'integer': {
      const { minimum, maximum } = columnRanges.integer;
      if (!/^-?\d+$/.test(text) || Number(text) < minimum || Number(text) > maximum)
        throw new ApiError(400, `${name}: "${text}" is not a whole number from ${minimum} to ${maximum}`);
      return Number(text);
    }
    case 'number':
      if (text.trim() === '' || !Number.isFinite(Number(text))) throw new ApiError(400, `${name}: "${text}" is not a number`);
      return Number(text);
    case 'json':
      throw new ApiError(400, `${name}: lists cannot be filtered by this field`);
    case 'boolean':
    case 'flag':
      if (text === 'true' || text === '1') return true;
      if (text === 'false' || text === '0') return false;
      throw new ApiError(400, `${name}: "${text}" is not true or false`);
    case 'datetime': {
      const time = Date.parse(text);
      if (!/^\d{4}-\d\d-\d\d/.test(text) || Number.isNaN(time)) throw new ApiError(400, `${name}: "${text}" is not an ISO 8601 date-time`);
      return new Date(time).toISOString();
    }
  }
}
