import { defineResource, type ResourceDeclaration } from './declaration.ts';
import { catalog } from './declarations/catalog.ts';
import { content } from './declarations/content.ts';
import { marketing } from './declarations/marketing.ts';
import { orders } from './declarations/orders.ts';
import { people } from './declarations/people.ts';
import { settings } from './declarations/settings.ts';
import { webhooks } from './declarations/webhooks.ts';

/** Every resource the API serves, in the order the OpenAPI document lists them. */
export const resources: readonly ResourceDeclaration[] = [
  ...[...catalog, ...orders, ...people, ...content, ...marketing, ...settings].map(defineResource),
  webhooks,
];

const byName = new Map(resources.map((r) => [r.name, r]));

export function resourceNamed(name: string): ResourceDeclaration {
  const found = byName.get(name);
  if (found === undefined) throw new Error(`No resource is declared as ${name}`);
  return found;
}

// A declaration naming a resource that does not exist is a mistake found at start-up, not on some request.
for (const resource of resources) {
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.references !== undefined && !byName.has(field.references))
      throw new Error(`${resource.name}.${name} refers to undeclared ${field.references}`);
  }
  for (const [name, nested] of Object.entries(resource.nested)) {
    const child = byName.get(nested.resource);
    if (child === undefined) throw new Error(`${resource.name}/${name} lists undeclared ${nested.resource}`);
    if (nested.kind === 'children' && !(nested.foreignKey in child.fields))
      throw new Error(`${resource.name}/${name}: ${child.name} has no ${nested.foreignKey}`);
    if (name in resource.fields) throw new Error(`${resource.name}/${name} is both a field and a nested collection`);
  }
}
