// Every method and path a Fastify app serves, read from the app's own route tree (printRoutes), so a suite
// that walks them covers a route added later without being told about it.
import type { FastifyInstance } from 'fastify';

export interface ServedRoute {
  method: string;
  /** With Fastify's parameters, e.g. /api/v1/products/:id/categories/:childId */
  path: string;
}

// One line of the tree: indentation (4 characters per level), a branch, the path segment, then its methods.
const LINE = /^((?:│ {3}| {4})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/;

export function servedRoutes(app: FastifyInstance): ServedRoute[] {
  const routes: ServedRoute[] = [];
  const paths: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = LINE.exec(line);
    if (match === null) continue;
    const depth = (match[1] ?? '').length / 4;
    // A child's segment continues its parent's path (the tree splits `/shipping` and `_estimation`).
    const path = (depth === 0 ? '' : (paths[depth - 1] ?? '')) + (match[2] ?? '');
    paths[depth] = path;
    paths.length = depth + 1;
    for (const method of (match[3] ?? '').split(', ').filter((m) => m !== '')) routes.push({ method, path });
  }
  return routes;
}
