import { defineResource } from './declaration.ts';

export const customers = defineResource({
  name: 'customers',
  singular: 'customer',
  scope: 'people',
  maxAgeSeconds: 60,
  fields: {
    first_name: { type: 'string', maxLength: 100 },
    last_name: { type: 'string', maxLength: 100 },
    email: { type: 'string', required: true, maxLength: 255 },
    phone: { type: 'string', maxLength: 50 },
    company: { type: 'string', maxLength: 255 },
    is_no_tax: { type: 'boolean' },
  },
  nested: { orders: { kind: 'children', resource: 'orders', foreignKey: 'customer_id' } },
});
