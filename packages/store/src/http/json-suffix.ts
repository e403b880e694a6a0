/** `.json` on the last path segment is optional: `/products.json` routes like `/products`. */
export function withoutJsonSuffix(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (!path.endsWith('.json') || path.endsWith('/openapi.json')) return url;
  return path.slice(0, -5) + (query === -1 ? '' : url.slice(query));
}
