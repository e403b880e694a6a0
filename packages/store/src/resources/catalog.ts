import { defineResource } from './declaration.ts';

export const productStatuses = defineResource({
  name: 'product_statuses',
  singular: 'product_status',
  scope: 'catalog',
  maxAgeSeconds: 300,
  fields: {
    name: { type: 'string', required: true, maxLength: 100 },
    is_unavailable: { type: 'boolean' },
    is_hidden: { type: 'boolean' },
    is_back_ordered: { type: 'boolean' },
    show_quantity: { type: 'boolean' },
  },
  nested: { products: { kind: 'children', resource: 'products', foreignKey: 'product_status_id' } },
});

export const manufacturers = defineResource({
  name: 'manufacturers',
  singular: 'manufacturer',
  scope: 'catalog',
  maxAgeSeconds: 300,
  fields: {
    name: { type: 'string', required: true, maxLength: 255 },
    description: { type: 'string', maxLength: 2000 },
    url: { type: 'string', maxLength: 500 },
    is_hidden: { type: 'boolean' },
    sort_order: { type: 'integer' },
  },
  nested: { products: { kind: 'children', resource: 'products', foreignKey: 'manufacturer_id' } },
});

export const categories = defineResource({
  name: 'categories',
  singular: 'category',
  scope: 'catalog',
  maxAgeSeconds: 300,
  fields: {
    name: { type: 'string', required: true, maxLength: 255 },
    parent_category_id: { type: 'integer', references: 'categories' },
    description: { type: 'string', maxLength: 2000 },
    is_hidden: { type: 'boolean' },
    sort_order: { type: 'integer' },
  },
  nested: {
    products: { kind: 'link', resource: 'products', table: 'product_categories', parentKey: 'category_id', childKey: 'product_id' },
    categories: { kind: 'children', resource: 'categories', foreignKey: 'parent_category_id' },
  },
});

export const products = defineResource({
  name: 'products',
  singular: 'product',
  scope: 'catalog',
  maxAgeSeconds: 60,
  fields: {
    item_number: { type: 'string', maxLength: 100 },
    item_name: { type: 'string', required: true, maxLength: 255 },
    product_status_id: { type: 'integer', references: 'product_statuses' },
    primary_category_id: { type: 'integer', references: 'categories' },
    manufacturer_id: { type: 'integer', references: 'manufacturers' },
    short_description: { type: 'string', maxLength: 2000 },
    price: { type: 'number' },
    cost: { type: 'number' },
    retail: { type: 'number' },
    weight: { type: 'number', minimum: 0 },
    quantity_on_hand: { type: 'integer' },
    is_hidden: { type: 'boolean' },
    is_discontinued: { type: 'boolean' },
    keywords: { type: 'string', maxLength: 1000 },
    sort_order: { type: 'integer' },
  },
  nested: {
    categories: { kind: 'link', resource: 'categories', table: 'product_categories', parentKey: 'product_id', childKey: 'category_id' },
  },
});
