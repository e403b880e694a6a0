// `npm run cluster`: three `store serve` instances on one PostgreSQL and one Redis, behind HAProxy, until Ctrl-C.
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import pg from 'pg';
import { DEFAULT_DATA_DIR } from '../src/cli/store-location.ts';
import { startCluster } from './cluster/cluster.ts';

const usage = `Usage: npm run cluster -- [options]
  --database <url>   PostgreSQL (or MariaDB) all instances share (default postgres://postgres@127.0.0.1:5432/store_cluster,
                     made if missing; STORE_DATABASE_URL)
  --redis <url>      Redis all instances share (default redis://127.0.0.1:6379; STORE_REDIS_URL)
  --instances <n>    how many store serve processes (default 3)
  --port <n>         HAProxy's HTTPS port (default 8443)
  --dir <path>       certificate, HAProxy's files and each instance's log (default $DATA_DIR/cluster)
  STORE_AUTH_KEY     the key every instance shares (default: auth.key in --dir, made on the first run)`;

const { values } = parseArgs({
  options: {
    database: { type: 'string' },
    redis: { type: 'string' },
    instances: { type: 'string' },
    port: { type: 'string' },
    dir: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help === true) {
  console.log(usage);
  process.exit(0);
}
const databaseUrl = values.database ?? process.env.STORE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/store_cluster';
const redisUrl = values.redis ?? process.env.STORE_REDIS_URL ?? 'redis://127.0.0.1:6379';
const dir = values.dir ?? join(process.env.DATA_DIR ?? DEFAULT_DATA_DIR, 'cluster');

if (databaseUrl.startsWith('postgres')) {
  // The shared database must exist before the first instance brings its schema up.
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  const admin = new pg.Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
  await admin.connect();
  const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  await admin.end();
}

const cluster = await startCluster({
  databaseUrl,
  redisUrl,
  dir,
  instances: Number(values.instances ?? 3),
  port: Number(values.port ?? 8443),
  ...(process.env.STORE_WEBHOOK_ALLOWED_NETWORKS === undefined ? {} : { webhookNetworks: process.env.STORE_WEBHOOK_ALLOWED_NETWORKS }),
  ...(process.env.STORE_WEBHOOK_CA_FILE === undefined ? {} : { webhookCaFile: process.env.STORE_WEBHOOK_CA_FILE }),
});
console.log(`Cluster of ${cluster.instances.length} instances on ${databaseUrl.replace(/\/\/[^@/]*@/, '//')} and ${redisUrl}`);
for (const instance of cluster.instances) console.log(`  ${instance.name}: ${instance.apiUrl} (log: ${join(dir, `${instance.name}.log`)})`);
console.log(`HAProxy: ${cluster.apiUrl} (console: ${cluster.origin}/admin)`);
if (cluster.admin !== undefined)
  console.log(`A new store was created. Its admin: ${cluster.admin.email} / ${cluster.admin.password} (shown only this once)`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void cluster.stop().then(() => process.exit(0));
  });
}
