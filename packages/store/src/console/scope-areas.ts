// Scopes as a person chooses and reads them: one row per area with None, Read or Read and modify, which
// map onto the scope model's read_<group>/<group> pairs (settings has one scope for both).
import { normalizeScopes, type Scope } from '../auth/scopes.ts';

export type Level = 'none' | 'read' | 'modify';

export interface Area {
  /** The form field's name and the fragment ids. */
  id: string;
  name: string;
  covers: string;
  /** The scope that lets a token read; undefined where reading needs the modify scope too. */
  read: Scope | undefined;
  modify: Scope;
}

export const areas: readonly Area[] = [
  {
    id: 'catalog',
    name: 'Catalog',
    covers: 'products, categories, manufacturers, inventory, reviews',
    read: 'read_catalog',
    modify: 'catalog',
  },
  { id: 'orders', name: 'Orders', covers: 'orders, carts, shipments, quotes, subscriptions', read: 'read_orders', modify: 'orders' },
  { id: 'people', name: 'Customers', covers: 'customers, addresses, wish lists', read: 'read_people', modify: 'people' },
  { id: 'content', name: 'Content', covers: 'pages, blog posts, links, email templates', read: 'read_content', modify: 'content' },
  {
    id: 'marketing',
    name: 'Marketing',
    covers: 'coupons, discounts, gift certificates, mailing lists',
    read: 'read_marketing',
    modify: 'marketing',
  },
  { id: 'webhooks', name: 'Webhooks', covers: 'webhook subscriptions and their deliveries', read: 'read_webhooks', modify: 'webhooks' },
  {
    id: 'settings',
    name: 'Store settings',
    covers: 'shipping, payment and tax settings, locations, admin users',
    read: undefined,
    modify: 'settings',
  },
];

export const levelText: Record<Level, string> = { none: 'No access', read: 'Read', modify: 'Read and modify' };

/** The levels an area offers: settings has no read-only scope. */
export function levelsOf(area: Area): Level[] {
  return area.read === undefined ? ['none', 'modify'] : ['none', 'read', 'modify'];
}

/** Scopes not tied to an area, in plain words. */
const specialText: Partial<Record<Scope, string>> = {
  system: 'Full access to every area, including areas added later',
  no_expiry: 'Keep access without expiring',
  decrypt: 'Read fields kept encrypted, such as tax exemption numbers and cardholder names',
};

/** The scopes for one level per area, as a form sends them (`area=level`); unknown levels read as none. */
export function scopesFromLevels(levels: (areaId: string) => string): Scope[] {
  const scopes: Scope[] = [];
  for (const area of areas) {
    const level = levels(area.id);
    if (level === 'modify') scopes.push(area.modify);
    else if (level === 'read' && area.read !== undefined) scopes.push(area.read);
  }
  return normalizeScopes(scopes);
}

/** The level granted scopes give an area: a modify scope covers reading, and `system` covers everything. */
export function levelIn(scopes: readonly Scope[], area: Area): Level {
  if (scopes.includes('system') || scopes.includes(area.modify)) return 'modify';
  return area.read !== undefined && scopes.includes(area.read) ? 'read' : 'none';
}

export interface Described {
  name: string;
  /** The area's level, or undefined for a scope not tied to one. */
  level: Level | undefined;
  detail: string;
}

/** Granted scopes in plain words: each area with access, then the special scopes. */
export function describeScopes(scopes: readonly Scope[]): Described[] {
  if (scopes.includes('system')) {
    return [{ name: 'Everything', level: 'modify', detail: specialText.system ?? '' }, ...special(scopes.filter((s) => s !== 'system'))];
  }
  const shown = areas.flatMap((area) => {
    const level = levelIn(scopes, area);
    return level === 'none' ? [] : [{ name: area.name, level, detail: area.covers }];
  });
  return [...shown, ...special(scopes)];
}

function special(scopes: readonly Scope[]): Described[] {
  return scopes.flatMap((s) => {
    const text = specialText[s];
    return text === undefined || s === 'system' ? [] : [{ name: text, level: undefined, detail: '' }];
  });
}
