// What a POST /bulk_operations asks for, checked before anything is stored: the type, a resource that takes it,
// and the caller's scope for it (an export reads, an import writes).
import type { Principal } from '../auth/principal.ts';
import { allows, requiredScope } from '../auth/scopes.ts';
import { ApiError } from '../model/api-error.ts';
import type { ResourceDeclaration } from '../model/declaration.ts';
import { resources } from '../model/registry.ts';
import { jobTypes, type JobType } from './bulk-job.ts';

/** Resources whose writes take more than their records (their routes check what goes with them): one at a time. */
const notImportable: Readonly<Record<string, string>> = {
  webhooks: 'a subscription is checked against its target and its app; POST /webhooks one at a time',
  carts: 'carts are priced by the carting rules; use the carting API',
  cart_items: 'cart lines are priced by the carting rules; use the carting API',
};

export function jobTypeOf(value: unknown): JobType {
  if (typeof value !== 'string' || !(jobTypes as readonly string[]).includes(value))
    throw new ApiError(400, `type: one of ${jobTypes.join(', ')}`);
  return value as JobType;
}

export function jobResource(name: unknown, type: JobType, principal: Principal | undefined): ResourceDeclaration {
  if (typeof name !== 'string' || name === '')
    throw new ApiError(400, 'resource: the name of a resource, as in its path (products, customers, orders, ...)');
  const resource = resources.find((r) => r.name === name);
  if (resource === undefined) throw new ApiError(400, `resource: there is no resource "${name.slice(0, 50)}"`);
  const operation = type === 'export' ? 'list' : 'create';
  if (!resource.operations.includes(operation))
    throw new ApiError(400, `resource: ${resource.name} cannot be ${type === 'export' ? 'listed' : 'created'}, so not ${type}ed`);
  const refused = type === 'import' ? notImportable[resource.name] : undefined;
  if (refused !== undefined) throw new ApiError(400, `resource: ${resource.name} cannot be imported: ${refused}`);
  const write = type === 'import';
  if (!allows(principal?.scopes ?? [], resource.scope, write)) {
    const who = principal?.kind === 'session' ? 'Your admin account does not have' : 'This token does not have';
    throw new ApiError(403, `${who} the ${requiredScope(resource.scope, write)} scope this ${type} needs`);
  }
  return resource;
}

/** Who started a job, for the record. */
export function startedBy(principal: Principal | undefined): string {
  if (principal === undefined) return 'unknown';
  return principal.kind === 'token' ? principal.appId : `admin ${principal.adminUserId}`;
}
