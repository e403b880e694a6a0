// Runs a store in its own process (for load tests, so client and server do not share one event loop).
// Options come as JSON in argv[2]; the API URL, certificate, an all-scopes token and a read-only one (read_catalog,
// another app) go back over IPC; disconnecting stops it.
import { serveStore, type ServeOptions } from '../../src/server.ts';
import { issueTestToken } from './test-token.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as ServeOptions;
const store = await serveStore(options);
const storeId = store.firstStart?.storeId ?? 1;
const token = await issueTestToken(store.app, storeId);
const readToken = await issueTestToken(store.app, storeId, 'read_catalog', 'Read-only harness');
process.send?.({ apiUrl: store.apiUrl, certificate: store.certificate, token, readToken });
process.on('disconnect', () => {
  void store.close().finally(() => process.exit(0));
});
