// How scopes read to a person granting or choosing them.
import type { scopeGroups, Scope } from '../auth/scopes.ts';

const groupNames: Record<(typeof scopeGroups)[number], string> = {
  catalog: 'catalog (products, categories, manufacturers)',
  orders: 'orders',
  people: 'customers',
  content: 'content',
  marketing: 'marketing',
  webhooks: 'webhook subscriptions and their deliveries',
};

export function scopeLabel(scope: Scope): string {
  switch (scope) {
    case 'settings':
      return 'Read and change store settings';
    case 'no_expiry':
      return 'Keep access without expiring';
    case 'decrypt':
      return 'Read fields kept encrypted (such as tax ids)';
    case 'system':
      return 'Full access to every area';
    default:
      return scope.startsWith('read_') ? `Read ${groupNames[scope.slice(5) as keyof typeof groupNames]}` : `Read and change ${groupNames[scope as keyof typeof groupNames]}`;
  }
}
