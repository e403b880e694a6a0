// `npm run cluster`: three `store serve` instances on one PostgreSQL and one Redis, behind HAProxy, until Ctrl-C.
// `--ha`: the PostgreSQL is one that fails over (cluster/postgres-ha.ts), made for this run and removed at the end.
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import pg from 'pg';
import { DEFAULT_DATA_DIR } from '../src/cli/store-location.ts';
import { startCluster } from './cluster/cluster.ts';
import { startPostgresHa } from './cluster/postgres-ha.ts';

const usage = `Usage: npm run cluster -- [options]
  --database <url>   PostgreSQL (or MariaDB) all instances share (default postgres://postgres@127.0.0.1:5432/store_cluster,
                     made if missing; STORE_DATABASE_URL)
  --redis <url>      Redis all instances share (default redis://127.0.0.1:6379; STORE_REDIS_URL)
  --instances <n>    how many store serve processes (default 3)
  --port <n>         HAProxy's HTTPS port (default 8443)
  --dir <path>       certificate, HAProxy's files and each instance's log (default $DATA_DIR/cluster)
  --ha               a PostgreSQL that fails over instead of --database: etcd, two Patroni nodes (a primary and a
                     synchronous standby) and HAProxy to the primary, on free ports of 127.0.0.1 in a temporary
                     folder; a throwaway (removed with Ctrl-C), for trying failover: kill the primary's postgres
  STORE_AUTH_KEY     the key every instance shares (default: auth.key in --dir, made on the first run)`;

const { values } = parseArgs({
  options: {
    database: { type: 'string' },
    redis: { type: 'string' },
    instances: { type: 'string' },
    port: { type: 'string' },
    dir: { type: 'string' },
    ha: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help === true) {
  console.log(usage);
  process.exit(0);
}
if (values.ha === true && values.database !== undefined) {
  console.error('--ha makes its own PostgreSQL: leave --database out');
  process.exit(1);
}
const ha = values.ha === true ? await startPostgresHa() : undefined;
const databaseUrl =
  (await ha?.createDatabase('store_cluster')) ??
  values.database ??
  process.env.STORE_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/store_cluster';
const redisUrl = values.redis ?? process.env.STORE_REDIS_URL ?? 'redis://127.0.0.1:6379';
const dir = values.dir ?? join(process.env.DATA_DIR ?? DEFAULT_DATA_DIR, ha === undefined ? 'cluster' : 'cluster-ha');

if (ha === undefined && databaseUrl.startsWith('postgres')) {
  // The shared database must exist before the first instance brings its schema up.
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  const admin = new pg.Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
  await admin.connect();
  const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  await admin.end();
}

const started = startCluster({
  databaseUrl,
  redisUrl,
  dir,
  instances: Number(values.instances ?? 3),
  port: Number(values.port ?? 8443),
  ...(process.env.STORE_WEBHOOK_ALLOWED_NETWORKS === undefined ? {} : { webhookNetworks: process.env.STORE_WEBHOOK_ALLOWED_NETWORKS }),
  ...(process.env.STORE_WEBHOOK_CA_FILE === undefined ? {} : { webhookCaFile: process.env.STORE_WEBHOOK_CA_FILE }),
});
const cluster = await started.catch(async (error: unknown) => {
  await ha?.stop();
  throw error;
});
if (ha !== undefined) {
  const primary = await ha.primary();
  console.log(`PostgreSQL that fails over, through HAProxy at 127.0.0.1:${ha.port} (files and logs: ${ha.dir}):`);
  for (const node of ha.nodes)
    console.log(
      `  ${node.name}: PostgreSQL 127.0.0.1:${node.pgPort}, Patroni ${node.restUrl} (${node.name === primary.name ? 'primary' : 'standby'}; data ${node.dataDir})`,
    );
  console.log(`  fail over: kill -9 $(head -1 ${primary.dataDir}/postmaster.pid)`);
}
console.log(`Cluster of ${cluster.instances.length} instances on ${databaseUrl.replace(/\/\/[^@/]*@/, '//')} and ${redisUrl}`);
for (const instance of cluster.instances) console.log(`  ${instance.name}: ${instance.apiUrl} (log: ${join(dir, `${instance.name}.log`)})`);
console.log(`HAProxy: ${cluster.apiUrl} (console: ${cluster.origin}/admin)`);
if (cluster.admin !== undefined)
  console.log(`A new store was created. Its admin: ${cluster.admin.email} / ${cluster.admin.password} (shown only this once)`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void cluster
      .stop()
      .then(() => ha?.stop())
      .then(() => process.exit(0));
  });
}
