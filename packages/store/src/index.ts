export { buildStoreApp, API_PREFIX, type StoreAppOptions } from './app.ts';
export { serveStore, type ServeOptions, type RunningStore } from './server.ts';
export { resources } from './model/registry.ts';
export type { ResourceDeclaration, ScopeGroup } from './model/declaration.ts';
export type { ResourceRouteConfig, RouteConfig } from './model/route-config.ts';
