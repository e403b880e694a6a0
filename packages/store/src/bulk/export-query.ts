// An export's query: the list endpoints' filter, sort and fields language, as a query string. The export walks
// every page itself, so paging parameters mean nothing here and are refused, as is expand (one resource a file).
import type { ResourceDeclaration } from '../model/declaration.ts';
import { ApiError } from '../model/api-error.ts';
import { parseListQuery, type ListQuery, type RawQuery } from '../model/query-language.ts';

/** Rows read per statement while exporting, unless the settings say otherwise. */
export const EXPORT_PAGE = 1000;

const REFUSED = ['page', 'count', 'after', 'expand'];
const MAX_QUERY_LENGTH = 64 * 1024;

export function exportQuery(resource: ResourceDeclaration, text: string, pageSize = EXPORT_PAGE): ListQuery {
  if (text.length > MAX_QUERY_LENGTH) throw new ApiError(400, `query: at most ${MAX_QUERY_LENGTH} characters`);
  const raw: RawQuery = {};
  for (const [name, value] of new URLSearchParams(text.replace(/^\?/, ''))) {
    const had = raw[name];
    raw[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  const refused = REFUSED.filter((name) => name in raw);
  if (refused.length > 0)
    throw new ApiError(
      400,
      `query: ${refused.join(', ')} ${refused.length > 1 ? 'are' : 'is'} not taken by an export, which returns every matching record`,
    );
  const query = parseListQuery(resource, raw, []);
  return { ...query, count: pageSize };
}
