// The OpenAPI document cut into parts a browser renders quickly: one per scope group, plus carts and OAuth.
// The whole document (1.5 MB) stays at /openapi.json for code generators; the docs page offers the parts.
import { resources } from '../model/registry.ts';

export interface DocumentGroup {
  name: string;
  /** The OpenAPI tags whose operations the part holds. */
  tags: readonly string[];
}

export const documentGroups: readonly DocumentGroup[] = [
  // The event log (GET /events) goes with the webhooks, whose events it lists.
  ...[...new Set(resources.map((r) => r.scope))].map((scope) => ({
    name: scope,
    tags: [...resources.filter((r) => r.scope === scope).map((r) => r.name), ...(scope === 'webhooks' ? ['events'] : [])],
  })),
  { name: 'carts', tags: ['carts'] },
  { name: 'oauth', tags: ['oauth'] },
  { name: 'bulk', tags: ['bulk_operations'] },
  { name: 'sandbox', tags: ['sandbox'] },
];

type Document = Record<string, unknown> & {
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown> & { schemas: Record<string, unknown>; parameters: Record<string, unknown> };
  tags: { name: string }[];
};

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
const COMPONENT_REF = /"#\/components\/(schemas|parameters)\/([^"]+)"/g;

/** The document with only the operations of these tags, and only the schemas and parameters they reach. */
export function documentPart(whole: Document, group: DocumentGroup): Document {
  const tags = new Set(group.tags);
  const paths: Document['paths'] = {};
  for (const [path, item] of Object.entries(whole.paths)) {
    const kept = Object.entries(item).filter(
      ([key, operation]) => !METHODS.has(key) || (operation as { tags?: string[] }).tags?.some((t) => tags.has(t)) === true,
    );
    if (kept.some(([key]) => METHODS.has(key))) paths[path] = Object.fromEntries(kept);
  }
  const kept = { schemas: {} as Record<string, unknown>, parameters: {} as Record<string, unknown> };
  const refs = (value: unknown) =>
    [...JSON.stringify(value).matchAll(COMPONENT_REF)].map((m) => [m[1] as 'schemas' | 'parameters', m[2] ?? ''] as const);
  // Shared answers (components.responses) are kept whole, so the schemas they name are reached too.
  let pending = refs([paths, whole.components.responses]);
  while (pending.length > 0) {
    const next: (readonly ['schemas' | 'parameters', string])[] = [];
    for (const [kind, name] of pending) {
      if (name in kept[kind] || !(name in whole.components[kind])) continue;
      kept[kind][name] = whole.components[kind][name];
      next.push(...refs(kept[kind][name]));
    }
    pending = next;
  }
  return { ...whole, paths, components: { ...whole.components, ...kept }, tags: whole.tags.filter((t) => tags.has(t.name)) };
}
