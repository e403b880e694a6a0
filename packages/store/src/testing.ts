// `@app/store/testing`: what tools beside the server (benchmarks, load scripts) build on, so they never reach
// into the package's folders and a move inside it never breaks them.
export { loadOrCreateCertificate } from './http/tls.ts';
export { createApp } from './auth/apps.ts';
export { createConsoleToken } from './auth/tokens.ts';
export { authContext } from './auth/context.ts';
export { authPlugin } from './auth/auth-plugin.ts';
export type { AuthTables } from './auth/schema.ts';
export type { StoreSchema } from './db/schema.ts';
export { ensureStore } from './db/first-start.ts';
export { MIGRATION_PRODUCT, storeMigrations } from './db/migrations.ts';
export { writableFields } from './model/declaration.ts';
export { resourceNamed } from './model/registry.ts';
export { jsonObjectText } from './db/sqlite-json.ts';
