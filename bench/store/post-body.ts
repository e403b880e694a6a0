import { writableFields, resourceNamed } from '@app/store/testing';

/** The product every POST in the store benchmark creates. */
export const postBody = JSON.stringify({ item_name: 'Bench bolt', item_number: 'BB', price: 2.5, quantity_on_hand: 10, is_hidden: false });

/**
 * A seeded product with every writable field set, as a real catalogue's are: text, numbers, yes/no fields.
 * References stay unset (there is nothing to point at).
 */
export function seedBody(i: number): string {
  const body: Record<string, unknown> = {};
  for (const [name, field] of writableFields(resourceNamed('products'))) {
    if (field.references !== undefined) continue;
    if (field.type === 'string')
      body[name] = name === 'item_number' ? `BB-${i}` : `${name.replaceAll('_', ' ')} of product ${i}`.slice(0, field.maxLength ?? 200);
    else if (field.type === 'integer') body[name] = i % 50;
    else if (field.type === 'number') body[name] = 2.5 + (i % 7);
    else if (field.type === 'boolean') body[name] = i % 2 === 0;
    else if (field.type === 'flag') body[name] = i % 2;
    else if (field.type === 'datetime') body[name] = new Date(Date.UTC(2026, 0, 1 + (i % 28))).toISOString();
  }
  return JSON.stringify(body);
}
