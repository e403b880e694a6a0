import { defineResource } from './declaration.ts';

export const orderStatuses = defineResource({
  name: 'order_statuses',
  singular: 'order_status',
  scope: 'orders',
  maxAgeSeconds: 300,
  fields: {
    name: { type: 'string', required: true, maxLength: 100 },
    is_open: { type: 'boolean' },
    is_declined: { type: 'boolean' },
    is_cancelled: { type: 'boolean' },
    is_shipped: { type: 'boolean' },
  },
  nested: { orders: { kind: 'children', resource: 'orders', foreignKey: 'order_status_id' } },
});

export const orders = defineResource({
  name: 'orders',
  singular: 'order',
  scope: 'orders',
  maxAgeSeconds: 30,
  fields: {
    customer_id: { type: 'integer', references: 'customers' },
    order_status_id: { type: 'integer', references: 'order_statuses' },
    ordered_at: { type: 'datetime' },
    subtotal: { type: 'number' },
    tax_total: { type: 'number' },
    shipping_total: { type: 'number' },
    grand_total: { type: 'number' },
    notes: { type: 'string', maxLength: 2000 },
  },
  nested: { items: { kind: 'children', resource: 'order_items', foreignKey: 'order_id' } },
});

export const orderItems = defineResource({
  name: 'order_items',
  singular: 'order_item',
  scope: 'orders',
  maxAgeSeconds: 30,
  fields: {
    order_id: { type: 'integer', required: true, references: 'orders' },
    product_id: { type: 'integer', references: 'products' },
    item_number: { type: 'string', maxLength: 100 },
    item_name: { type: 'string', maxLength: 255 },
    quantity: { type: 'integer', minimum: 0 },
    price: { type: 'number' },
  },
});
