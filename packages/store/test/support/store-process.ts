// Runs a store in its own process (for load tests, so client and server do not share one event loop).
// Options come as JSON in argv[2]; the API URL and certificate go back over IPC; disconnecting stops it.
import { serveStore, type ServeOptions } from '../../src/server.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as ServeOptions;
const store = await serveStore(options);
process.send?.({ apiUrl: store.apiUrl, certificate: store.certificate });
process.on('disconnect', () => {
  void store.close().finally(() => process.exit(0));
});
