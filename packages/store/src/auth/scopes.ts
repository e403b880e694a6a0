// Scopes in read/write pairs per resource group, plus special scopes that are not tied to a group.
import type { ScopeGroup } from '../model/declaration.ts';

export const scopeGroups = ['catalog', 'orders', 'people', 'content', 'marketing', 'webhooks'] as const;
export type PairedGroup = (typeof scopeGroups)[number];
/** The group a resource declaration names; `settings` has one scope for reading and writing. */
export type ResourceGroup = ScopeGroup;

export const specialScopes = ['settings', 'no_expiry', 'decrypt', 'system'] as const;
export type SpecialScope = (typeof specialScopes)[number];
export type Scope = PairedGroup | `read_${PairedGroup}` | SpecialScope;

export const allScopes: readonly Scope[] = [...scopeGroups.flatMap((g) => [`read_${g}` as const, g]), ...specialScopes];

export class ScopeError extends Error {
  readonly unknown: string[];
  constructor(unknown: string[]) {
    super(`unknown scope${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
    this.name = 'ScopeError';
    this.unknown = unknown;
  }
}

export function isScope(text: string): text is Scope {
  return (allScopes as readonly string[]).includes(text);
}

/** Reads a scope list separated by spaces, commas or plus signs; an unknown name is an error. */
export function parseScopes(text: string | readonly string[]): Scope[] {
  const names = (typeof text === 'string' ? text.split(/[\s,+]+/) : text).map((s) => s.trim()).filter((s) => s !== '');
  const unknown = names.filter((n) => !isScope(n));
  if (unknown.length > 0) throw new ScopeError(unknown);
  return normalizeScopes(names as Scope[]);
}

/** Deduplicated, in the canonical order of `allScopes`. */
export function normalizeScopes(scopes: Iterable<Scope>): Scope[] {
  const set = new Set(scopes);
  return allScopes.filter((s) => set.has(s));
}

export function formatScopes(scopes: Iterable<Scope>): string {
  return normalizeScopes(scopes).join(' ');
}

/** The scope a request needs: `read_<group>` to read, `<group>` to write; settings has one scope. */
export function requiredScope(group: ResourceGroup, write: boolean): Scope {
  if (group === 'settings') return 'settings';
  return write ? group : `read_${group}`;
}

/** Whether granted scopes allow the access. A write scope covers reading; `system` covers every group. */
export function allows(granted: readonly Scope[], group: ResourceGroup, write: boolean): boolean {
  if (granted.includes('system')) return true;
  if (granted.includes(requiredScope(group, write))) return true;
  return !write && group !== 'settings' && granted.includes(group);
}

/** The scopes a browser session gets for the groups an admin may see: reading only. */
export function readScopesFor(groups: readonly ResourceGroup[]): Scope[] {
  return normalizeScopes(groups.map((g) => requiredScope(g, false)));
}
