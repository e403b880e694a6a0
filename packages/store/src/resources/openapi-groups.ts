// The OpenAPI document cut into parts a browser renders quickly: one per scope group, plus carts and OAuth.
// The whole document (1.5 MB) stays at /openapi.json for code generators; the docs page offers the parts.
import { resources } from './registry.ts';

export interface DocumentGroup {
  name: string;
  /** The OpenAPI tags whose operations the part holds. */
  tags: readonly string[];
}

export const documentGroups: readonly DocumentGroup[] = [
  ...[...new Set(resources.map((r) => r.scope))].map((scope) => ({ name: scope, tags: resources.filter((r) => r.scope === scope).map((r) => r.name) })),
  { name: 'carts', tags: ['carts'] },
  { name: 'oauth', tags: ['oauth'] },
];

type Document = Record<string, unknown> & { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> }; tags: { name: string }[] };

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
const SCHEMA_REF = /"#\/components\/schemas\/([^"]+)"/g;

/** The document with only the operations of these tags, and only the schemas they reach. */
export function documentPart(whole: Document, group: DocumentGroup): Document {
  const tags = new Set(group.tags);
  const paths: Document['paths'] = {};
  for (const [path, item] of Object.entries(whole.paths)) {
    const kept = Object.entries(item).filter(([key, operation]) => !METHODS.has(key) || (operation as { tags?: string[] }).tags?.some((t) => tags.has(t)) === true);
    if (kept.some(([key]) => METHODS.has(key))) paths[path] = Object.fromEntries(kept);
  }
  const schemas: Record<string, unknown> = {};
  let pending = [...JSON.stringify(paths).matchAll(SCHEMA_REF)].map((m) => m[1] ?? '');
  while (pending.length > 0) {
    const next: string[] = [];
    for (const name of pending) {
      if (name in schemas || !(name in whole.components.schemas)) continue;
      schemas[name] = whole.components.schemas[name];
      next.push(...[...JSON.stringify(schemas[name]).matchAll(SCHEMA_REF)].map((m) => m[1] ?? ''));
    }
    pending = next;
  }
  return { ...whole, paths, components: { ...whole.components, schemas }, tags: whole.tags.filter((t) => tags.has(t.name)) };
}
