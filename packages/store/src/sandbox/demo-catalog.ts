// The demo store's data, drawn from a fixed seed: every run makes the same categories, products (with variants and
// images given as URLs), customers, open carts and placed orders. Declared here as plain data; demo-seed.ts sends it
// through the API's own routes, so every rule a client meets holds for it too.

/** mulberry32: a small deterministic generator; the same seed gives the same sequence on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const DEMO_SEED = 37;

export interface DemoProduct {
  item_number: string;
  item_name: string;
  category: string;
  price: number;
  cost: number;
  quantity_on_hand: number;
  weight: number;
  short_description: string;
  /** Image URLs: the first is the primary picture. */
  images: string[];
  /** Sizes offered as variants (with their price adjustments), for some products. */
  sizes: { description: string; price_adjustment: number; item_number_extension: string }[];
}

export interface DemoCustomer {
  first_name: string;
  last_name: string;
  email: string;
  phone_number: string;
  address: { name: string; address_line_1: string; city: string; state: string; postal_code: string; country: string };
}

export interface DemoCart {
  /** Index into customers; undefined for an anonymous cart. */
  customer?: number;
  lines: { product: number; quantity: number; size?: number }[];
  /** Placed as an order with this card. */
  placed: boolean;
  /** A coupon applied to the cart (an open one: the demo's coupon at work). */
  coupon?: string;
}

/** A custom shipping method as POST /custom_shipping_methods takes it: a flat charge, or a share of the subtotal. */
export interface DemoShippingMethod {
  name: string;
  markup_type: 'Flat' | 'Percent';
  markup_amount: string;
}

/** A coupon and the discount that gives it its amount: a method, its CouponCode rule and its action. */
export interface DemoCoupon {
  coupon_code: string;
  method: string;
  modifier_type: 'Percent' | 'Amount';
  modifier_amount: string;
}

export interface DemoData {
  categories: string[];
  products: DemoProduct[];
  customers: DemoCustomer[];
  carts: DemoCart[];
  shippingMethods: DemoShippingMethod[];
  coupons: DemoCoupon[];
}

// The carting API's examples in the OpenAPI document (the rate "Custom;1;Free Ground Shipping", the code SAVE10) work on a demo store.
const SHIPPING_METHODS: DemoShippingMethod[] = [
  { name: 'Free Ground Shipping', markup_type: 'Flat', markup_amount: '0' },
  { name: 'Express', markup_type: 'Flat', markup_amount: '12.50' },
];
const COUPONS: DemoCoupon[] = [
  { coupon_code: 'SAVE10', method: 'Ten percent off with SAVE10', modifier_type: 'Percent', modifier_amount: '10' },
];

const CATEGORIES: Record<string, { nouns: string[]; low: number; high: number }> = {
  Kitchen: {
    nouns: ['Kettle', 'Skillet', 'Chef Knife', 'Cutting Board', 'Teapot', 'Mixing Bowl', 'Spatula', 'Colander'],
    low: 8,
    high: 120,
  },
  Garden: { nouns: ['Trowel', 'Watering Can', 'Pruner', 'Planter', 'Hose Reel', 'Seed Tray', 'Rake', 'Gloves'], low: 5, high: 90 },
  Outdoor: {
    nouns: ['Tent', 'Sleeping Bag', 'Lantern', 'Camp Chair', 'Backpack', 'Water Bottle', 'Hammock', 'Compass'],
    low: 12,
    high: 260,
  },
  Office: {
    nouns: ['Notebook', 'Desk Lamp', 'Stapler', 'Pen Set', 'Monitor Stand', 'Organizer', 'Planner', 'Mouse Pad'],
    low: 3,
    high: 80,
  },
  Apparel: { nouns: ['T-Shirt', 'Hoodie', 'Rain Jacket', 'Beanie', 'Socks', 'Scarf', 'Cap', 'Fleece'], low: 9, high: 140 },
  Toys: { nouns: ['Puzzle', 'Kite', 'Building Set', 'Yo-Yo', 'Board Game', 'Plush Bear', 'Spinning Top', 'Marble Run'], low: 4, high: 70 },
};
const ADJECTIVES = ['Classic', 'Everyday', 'Deluxe', 'Compact', 'Rustic', 'Nordic', 'Coastal', 'Urban'];
const FIRST = [
  'Ada',
  'Ben',
  'Chloe',
  'Diego',
  'Emma',
  'Farid',
  'Grace',
  'Hugo',
  'Iris',
  'Jonas',
  'Kira',
  'Liam',
  'Maya',
  'Noah',
  'Olga',
  'Priya',
  'Quinn',
  'Rosa',
  'Sami',
  'Tara',
];
const LAST = [
  'Alder',
  'Brook',
  'Castro',
  'Dunn',
  'Ellis',
  'Ferreira',
  'Gupta',
  'Hale',
  'Ito',
  'Jensen',
  'Khan',
  'Lopez',
  'Moreau',
  'Novak',
  'Okafor',
  'Park',
];
const CITIES = [
  { city: 'Austin', state: 'TX', zip: '787' },
  { city: 'Portland', state: 'OR', zip: '972' },
  { city: 'Denver', state: 'CO', zip: '802' },
  { city: 'Madison', state: 'WI', zip: '537' },
  { city: 'Raleigh', state: 'NC', zip: '276' },
];
const STREETS = ['Main St', 'Oak Ave', 'Maple Dr', 'Cedar Ln', 'Pine Rd', 'Elm St'];
const SIZES = [
  { description: 'Small', price_adjustment: 0, item_number_extension: '-S' },
  { description: 'Medium', price_adjustment: 2, item_number_extension: '-M' },
  { description: 'Large', price_adjustment: 4, item_number_extension: '-L' },
];

/** The demo data of a seed (DEMO_SEED unless a test asks for another). */
export function demoData(seed = DEMO_SEED): DemoData {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => {
    const chosen = list[Math.floor(random() * list.length)];
    if (chosen === undefined) throw new Error('nothing to pick from');
    return chosen;
  };
  const between = (low: number, high: number) => low + random() * (high - low);
  const cents = (value: number) => Math.round(value * 100) / 100;

  const products: DemoProduct[] = [];
  for (const [category, { nouns, low, high }] of Object.entries(CATEGORIES)) {
    for (const noun of nouns) {
      const n = products.length + 1;
      const item_number = `DEMO-${String(n).padStart(4, '0')}`;
      // Shop prices end in .99.
      const finalPrice = cents(Math.floor(between(low, high)) + 0.99);
      products.push({
        item_number,
        item_name: `${pick(ADJECTIVES)} ${noun}`,
        category,
        price: finalPrice,
        cost: cents(finalPrice * between(0.35, 0.6)),
        // Enough for every demo order of it: the seed places them all.
        quantity_on_hand: Math.floor(between(40, 160)),
        weight: cents(between(0.1, 8)),
        short_description: `A ${noun.toLowerCase()} for ${category.toLowerCase()} use, from the demo catalog.`,
        images: [1, 2].map((i) => `https://images.example.com/demo/${item_number.toLowerCase()}-${i}.jpg`),
        sizes: category === 'Apparel' ? SIZES : [],
      });
    }
  }

  const customers: DemoCustomer[] = [];
  const usedEmails = new Set<string>();
  while (customers.length < 20) {
    const first_name = pick(FIRST);
    const last_name = pick(LAST);
    const email = `${first_name}.${last_name}@example.com`.toLowerCase();
    if (usedEmails.has(email)) continue;
    usedEmails.add(email);
    const place = pick(CITIES);
    customers.push({
      first_name,
      last_name,
      email,
      phone_number: `555-01${String(Math.floor(between(0, 100))).padStart(2, '0')}`,
      address: {
        name: `${first_name} ${last_name}`,
        address_line_1: `${Math.floor(between(1, 999))} ${pick(STREETS)}`,
        city: place.city,
        state: place.state,
        postal_code: `${place.zip}${String(Math.floor(between(0, 100))).padStart(2, '0')}`,
        country: 'US',
      },
    });
  }

  const carts: DemoCart[] = [];
  for (let i = 0; i < 20; i += 1) {
    const lines: DemoCart['lines'] = [];
    const count = 1 + Math.floor(between(0, 3));
    const chosen = new Set<number>();
    while (chosen.size < count) chosen.add(Math.floor(between(0, products.length)));
    for (const product of [...chosen].sort((a, b) => a - b)) {
      const sizes = products[product]?.sizes.length ?? 0;
      lines.push({ product, quantity: 1 + Math.floor(between(0, 3)), ...(sizes > 0 ? { size: Math.floor(between(0, sizes)) } : {}) });
    }
    // Twelve become orders; the rest stay open, some with a known customer.
    const placed = i < 12;
    const customer = placed || random() < 0.5 ? Math.floor(between(0, customers.length)) : undefined;
    carts.push({
      ...(customer === undefined ? {} : { customer }),
      lines,
      placed,
      ...(i === 12 ? { coupon: COUPONS[0]?.coupon_code } : {}),
    });
  }
  return { categories: Object.keys(CATEGORIES), products, customers, carts, shippingMethods: SHIPPING_METHODS, coupons: COUPONS };
}
