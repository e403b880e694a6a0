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

export function scaleShapes(rows: number, categoryIds: readonly number[], nextPageOf: NextPageOf): Shape[] {
  const categoryId = () => categoryIds[random(categoryIds.length)] ?? 1;
  const inADay = (resource: string) =>
    ((m: number) => `/${resource}?updated_at=gte:${updatedAt(m)}+AND+lt:${updatedAt(m + DAY)}&sort=updated_at&count=1000`)(
      random(rows - DAY),
    );
  const sinceRecently = (resource: string) =>
    `/${resource}?updated_at=gt:${updatedAt(rows - 1 - random(5 * DAY))}&sort=updated_at&count=1000`;
  return [
    { id: 'day', name: 'products, updated_at in a day, sort=updated_at, count=1000', path: () => inADay('products') },
    { id: 'since', name: 'products, updated_at since a recent time (incremental sync), count=1000', path: () => sinceRecently('products') },
    {
      id: 'next',
      name: 'products, updated_at from any time, sort=updated_at, count=1000, the next page by its cursor',
      path: () => nextPageOf(`/products?updated_at=gte:${updatedAt(random(rows - 5000))}&sort=updated_at&count=1000`),
    },
    {
      id: 'sku',
      name: 'products, item_number=eq',
      path: () => `/products?item_number=eq:SKU-${String(1 + random(rows)).padStart(7, '0')}`,
    },
    {
      id: 'category',
      name: 'products, primary_category_id=eq, count=1000',
      path: () => `/products?primary_category_id=eq:${categoryId()}&count=1000`,
    },
    {
      id: 'category-products',
      name: 'categories/{id}/products, count=1000',
      path: () => `/categories/${categoryId()}/products?count=1000`,
    },
    { id: 'first', name: 'products, count=1000, first page', path: () => '/products?count=1000' },
    {
      id: 'deep',
      name: 'products, count=1000, a deep page by its cursor (sort=id)',
      path: () => nextPageOf(`/products?id=gte:${1 + random(rows - 5000)}&count=1000`),
    },
    { id: 'offset', name: 'products, count=1000, page=N (offset)', path: () => `/products?count=1000&page=${1 + random(rows / 1000 - 1)}` },
    { id: 'orders-day', name: 'orders, updated_at in a day, sort=updated_at, count=1000', path: () => inADay('orders') },
    { id: 'orders-since', name: 'orders, updated_at since a recent time, count=1000', path: () => sinceRecently('orders') },
    { id: 'orders-first', name: 'orders, count=1000, first page', path: () => '/orders?count=1000' },
  ];
}
