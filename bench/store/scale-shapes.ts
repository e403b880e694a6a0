// The list requests sync clients make on the million-row store, with a new value drawn for each: timed by scale.ts,
// profiled on the server's side by scale-profile.ts.

// One minute apart, in an order unrelated to the ids (7919 is prime to 10^6): rows were updated over ~2 years.
export const FIRST_UPDATE = Date.parse('2024-01-01T00:00:00.000Z');

export const random = (below: number) => Math.floor(Math.random() * below);
const updatedAt = (minute: number) => new Date(FIRST_UPDATE + minute * 60_000).toISOString();
const DAY = 24 * 60;

/** Reads a page untimed, for the shapes that start from the page before theirs; answers its next_page. */
export type NextPageOf = (path: string) => Promise<string>;

export interface Shape {
  /** Short, for choosing one on a command line. */
  id: string;
  name: string;
  path: () => Promise<string> | string;
}

/** `count`: the page size every list shape asks for. */
export function scaleShapes(rows: number, categoryIds: readonly number[], nextPageOf: NextPageOf, count = 1000): Shape[] {
  const categoryId = () => categoryIds[random(categoryIds.length)] ?? 1;
  const inADay = (resource: string) =>
    ((m: number) => `/${resource}?updated_at=gte:${updatedAt(m)}+AND+lt:${updatedAt(m + DAY)}&sort=updated_at&count=${count}`)(
      random(rows - DAY),
    );
  const sinceRecently = (resource: string) =>
    `/${resource}?updated_at=gt:${updatedAt(rows - 1 - random(5 * DAY))}&sort=updated_at&count=${count}`;
  return [
    { id: 'day', name: `products, updated_at in a day, sort=updated_at, count=${count}`, path: () => inADay('products') },
    {
      id: 'since',
      name: `products, updated_at since a recent time (incremental sync), count=${count}`,
      path: () => sinceRecently('products'),
    },
    {
      id: 'next',
      name: `products, updated_at from any time, sort=updated_at, count=${count}, the next page by its cursor`,
      path: () => nextPageOf(`/products?updated_at=gte:${updatedAt(random(rows - 5 * count))}&sort=updated_at&count=${count}`),
    },
    {
      id: 'sku',
      name: 'products, item_number=eq',
      path: () => `/products?item_number=eq:SKU-${String(1 + random(rows)).padStart(7, '0')}`,
    },
    {
      id: 'category',
      name: `products, primary_category_id=eq, count=${count}`,
      path: () => `/products?primary_category_id=eq:${categoryId()}&count=${count}`,
    },
    {
      id: 'category-products',
      name: `categories/{id}/products, count=${count}`,
      path: () => `/categories/${categoryId()}/products?count=${count}`,
    },
    { id: 'first', name: `products, count=${count}, first page`, path: () => `/products?count=${count}` },
    {
      id: 'deep',
      name: `products, count=${count}, a deep page by its cursor (sort=id)`,
      path: () => nextPageOf(`/products?id=gte:${1 + random(rows - 5 * count)}&count=${count}`),
    },
    {
      id: 'offset',
      name: `products, count=${count}, page=N (offset)`,
      path: () => `/products?count=${count}&page=${1 + random(Math.floor(rows / count) - 1)}`,
    },
    { id: 'orders-day', name: `orders, updated_at in a day, sort=updated_at, count=${count}`, path: () => inADay('orders') },
    { id: 'orders-since', name: `orders, updated_at since a recent time, count=${count}`, path: () => sinceRecently('orders') },
    { id: 'orders-first', name: `orders, count=${count}, first page`, path: () => `/orders?count=${count}` },
  ];
}
