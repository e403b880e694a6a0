import { categories, manufacturers, products, productStatuses } from './catalog.ts';
import type { ResourceDeclaration } from './declaration.ts';
import { orderItems, orders, orderStatuses } from './orders.ts';
import { customers } from './people.ts';

/** Every resource the API serves, in the order the OpenAPI document lists them. */
export const resources: readonly ResourceDeclaration[] = [
  products,
  categories,
  productStatuses,
  manufacturers,
  customers,
  orders,
  orderItems,
  orderStatuses,
];

export function resourceNamed(name: string): ResourceDeclaration {
  const found = resources.find((r) => r.name === name);
  if (found === undefined) throw new Error(`No resource is declared as ${name}`);
  return found;
}
