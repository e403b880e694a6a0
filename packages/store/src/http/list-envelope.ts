// The reference list envelope: total_count, next_page / previous_page as absolute URLs (absent when there is
// no such page) and the array under the resource's name.
import type { FastifyRequest } from 'fastify';

export interface ListEnvelope {
  total_count: number;
  next_page?: string;
  previous_page?: string;
  [resource: string]: unknown;
}

/** The request's own URL with only `page` changed, so clients can follow it verbatim. */
function pageUrl(request: FastifyRequest, page: number): string {
  const original = request.originalUrl;
  const queryAt = original.indexOf('?');
  const path = queryAt === -1 ? original : original.slice(0, queryAt);
  const kept = queryAt === -1 ? [] : original.slice(queryAt + 1).split('&').filter((part) => part !== '' && !/^page(=|$)/.test(part));
  return `${request.protocol}://${request.host}${path}?${[...kept, `page=${page}`].join('&')}`;
}

export function listEnvelope(request: FastifyRequest, name: string, rows: unknown[], total: number, page: number, count: number): ListEnvelope {
  const envelope: ListEnvelope = { total_count: total };
  if (page * count < total) envelope.next_page = pageUrl(request, page + 1);
  if (page > 1) envelope.previous_page = pageUrl(request, Math.min(page - 1, Math.ceil(total / count)));
  envelope[name] = rows;
  return envelope;
}
