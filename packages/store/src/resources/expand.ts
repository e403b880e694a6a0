// `expand=`: the nested collections a list inlines. Parsed once per request, the first time it is asked
// for: authorization reads it (each expanded collection needs its own read scope) before the cache may
// answer, and the list query then uses the same names.
import type { FastifyRequest } from 'fastify';
import { nestedOf, type ScopeGroup } from '../model/declaration.ts';
import { parseExpand, type RawQuery } from '../model/query-language.ts';
import { resourceNamed } from '../model/registry.ts';
import { routeConfigOf } from '../model/route-config.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The collections this list request expands, once parsed. */
    expanded: readonly string[] | undefined;
  }
}

const NONE: readonly string[] = [];

/** The names `expand=` (or `fields=`, or `/filled`) gives on a read route (none on others); 400 for a name the resource lacks. */
export function expandOf(request: FastifyRequest): readonly string[] {
  if (request.expanded !== undefined) return request.expanded;
  const config = routeConfigOf(request);
  const lists = config.lists;
  const query = request.query as RawQuery | undefined;
  const expanded =
    lists === undefined
      ? NONE
      : config.fillsAll === true
        ? Object.keys(resourceNamed(lists).nested)
        : query?.expand === undefined && query?.fields === undefined
          ? NONE
          : parseExpand(resourceNamed(lists), query);
  request.expanded = expanded;
  return expanded;
}

/** Each expanded collection with the scope group whose read scope it needs. */
export function expandedGroups(request: FastifyRequest): { name: string; group: ScopeGroup }[] {
  const expanded = expandOf(request);
  if (expanded.length === 0) return [];
  const listed = resourceNamed(routeConfigOf(request).lists ?? '');
  return expanded.flatMap((name) => {
    const nested = nestedOf(listed, name);
    return nested === undefined ? [] : [{ name, group: resourceNamed(nested.resource).scope }];
  });
}
