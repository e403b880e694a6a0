// Every key a store route may set in its Fastify `config`, in one place. The declaration below types
// `routeOptions.config` for the whole package, so plugins read these keys without casts.
import type { FastifyRequest } from 'fastify';
import type { ScopeGroup } from './declaration.ts';

/** What a resource route tells the auth, cache, webhooks and `expand=` plugins. */
export interface ResourceRouteConfig {
  /** The resource whose records the route reads or writes (the cache's tag, the webhooks' event source). */
  resource: string;
  /** The scope group the auth plugin checks: `read_<group>` for reads, `<group>` for writes. */
  scope: ScopeGroup;
  access: 'read' | 'write';
  /** Other resources a write changes, so their cached reads are dropped too. */
  touches?: readonly string[];
  /** Other resources a read's answer comes from, so their writes drop it from the cache too. */
  reads?: readonly string[];
  /** On read routes, the resource whose records the answer holds (a nested list holds the child's): what `expand=` names. */
  lists?: string;
  /** `/{res}/{id}/filled`: every nested collection is expanded. */
  fillsAll?: boolean;
  /**
   * A read computed afresh each time and stored (a cart's figures, which webhooks take part in): never answered
   * from the cache, and it drops the cached reads of what it stored, as a write does.
   */
  alwaysFresh?: boolean;
}

/** Keys any route may set, resource route or not. */
export interface RouteFlags {
  /** Served to anybody, under the API prefix too (the API's own documentation). */
  public?: boolean;
  /** Not an API call, so not counted against the caller's plan (console pages, the favicon). */
  notRateLimited?: boolean;
  /** An Idempotency-Key's answer is kept by the write's own transaction (http/answer-in-write.ts). */
  answerInWrite?: boolean;
}

/** Every key a route may set; a route that is no resource route sets none of ResourceRouteConfig's. */
export type RouteConfig = Partial<ResourceRouteConfig> & RouteFlags;

declare module 'fastify' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an interface merge is how Fastify types route config
  interface FastifyContextConfig extends RouteConfig {}
}

/** The route's config as the route set it. */
export function routeConfigOf(request: FastifyRequest): RouteConfig {
  return request.routeOptions.config;
}

/** The config of a resource route; undefined on other routes. */
export function resourceRouteOf(request: FastifyRequest): (ResourceRouteConfig & RouteFlags) | undefined {
  const config: RouteConfig = request.routeOptions.config;
  return isResourceRoute(config) ? config : undefined;
}

function isResourceRoute(config: RouteConfig): config is ResourceRouteConfig & RouteFlags {
  return config.resource !== undefined && config.scope !== undefined && config.access !== undefined;
}
