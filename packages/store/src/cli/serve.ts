// `store serve`: the API over HTTPS, by default on https://127.0.0.1:8443 with SQLite in the data directory (store-location.ts).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isPlan, plans } from '../limits/plans.ts';
import { serveStore } from '../server.ts';
import { DEFAULT_DATA_DIR, storeLocation } from './store-location.ts';

const usage = `Usage: store serve [options]
  --host <address>        listen address (default 127.0.0.1, or STORE_HOST)
  --port <n>              HTTPS port (default 8443, or STORE_PORT)
  --http-port <n>         also open a plain-HTTP port that only redirects to HTTPS (STORE_HTTP_PORT)
  --database <url>        sqlite:<path>, postgres://... or mysql://... (STORE_DATABASE_URL;
                          default sqlite:$DATA_DIR/store.sqlite)
  DATA_DIR                the data directory (default: the repository's data/ folder,
                          ${DEFAULT_DATA_DIR}, whatever the current directory)
  --cert <file> --key <file>  TLS certificate and key (STORE_TLS_CERT, STORE_TLS_KEY; default: a
                          self-signed one made on first start under $DATA_DIR/tls)
  --trusted-proxy <cidr>  believe X-Forwarded-Proto from this proxy (repeatable; STORE_TRUSTED_PROXIES, comma-separated)
  --allowed-host <name>   a host name the store answers to, besides the listen address (and localhost on
                          loopback); others get 421 (repeatable; STORE_ALLOWED_HOSTS, comma-separated)
  STORE_REDIS_URL         Redis for rate-limit counters shared across instances (default: per instance)
  STORE_WEBHOOK_ALLOWED_NETWORKS  comma-separated addresses or CIDRs in loopback/private ranges that
                          webhooks may reach (default none; e.g. 127.0.0.0/8,::1 for development)
  STORE_WEBHOOK_CA_FILE   PEM file of extra CAs that webhook receivers' certificates may chain to
  STORE_EVENT_LOG_DAYS    days GET /events keeps an event (default 30)
  --plan <plan>           the plan of a store made on first start: ${plans.join(', ')} (default gold)
  --sandbox               sandbox mode: the store's clock can be moved forward (POST /api/v1/sandbox/clock,
                          store sandbox clock; STORE_SANDBOX=1)`;

function port(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`${name}: "${text}" is not a port number`);
  return value;
}

export async function serveCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'http-port': { type: 'string' },
      database: { type: 'string' },
      cert: { type: 'string' },
      key: { type: 'string' },
      'trusted-proxy': { type: 'string', multiple: true },
      'allowed-host': { type: 'string', multiple: true },
      plan: { type: 'string' },
      sandbox: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) {
    console.log(usage);
    return;
  }
  const env = process.env;
  const location = storeLocation(values.database);
  console.log(`Store ${location.description}`);
  const plan = values.plan ?? env.STORE_PLAN;
  if (plan !== undefined && !isPlan(plan)) throw new Error(`--plan: "${plan}" is not one of ${plans.join(', ')}`);
  const proxies =
    values['trusted-proxy'] ??
    env.STORE_TRUSTED_PROXIES?.split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  const allowedHosts =
    values['allowed-host'] ??
    env.STORE_ALLOWED_HOSTS?.split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  const httpPort = port(values['http-port'] ?? env.STORE_HTTP_PORT, '--http-port');
  const certFile = values.cert ?? env.STORE_TLS_CERT;
  const keyFile = values.key ?? env.STORE_TLS_KEY;
  const webhookNetworks =
    env.STORE_WEBHOOK_ALLOWED_NETWORKS?.split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '') ?? [];
  const eventLogDays =
    env.STORE_EVENT_LOG_DAYS === undefined || env.STORE_EVENT_LOG_DAYS === '' ? undefined : Number(env.STORE_EVENT_LOG_DAYS);
  if (eventLogDays !== undefined && !(Number.isFinite(eventLogDays) && eventLogDays > 0))
    throw new Error('STORE_EVENT_LOG_DAYS: a number of days above 0');
  const webhookCa =
    env.STORE_WEBHOOK_CA_FILE === undefined || env.STORE_WEBHOOK_CA_FILE === ''
      ? undefined
      : readFileSync(env.STORE_WEBHOOK_CA_FILE, 'utf8');

  const store = await serveStore({
    databaseUrl: location.databaseUrl,
    dataDir: location.dataDir,
    host: values.host ?? env.STORE_HOST ?? '127.0.0.1',
    port: port(values.port ?? env.STORE_PORT, '--port') ?? 8443,
    ...(httpPort === undefined ? {} : { httpPort }),
    ...(certFile === undefined ? {} : { certFile }),
    ...(keyFile === undefined ? {} : { keyFile }),
    ...(proxies === undefined ? {} : { trustedProxies: proxies }),
    ...(allowedHosts === undefined ? {} : { allowedHosts }),
    ...(plan === undefined ? {} : { plan }),
    ...(values.sandbox === true || env.STORE_SANDBOX === '1' ? { sandbox: true } : {}),
    ...(env.STORE_REDIS_URL === undefined || env.STORE_REDIS_URL === '' ? {} : { redisUrl: env.STORE_REDIS_URL }),
    webhooks: {
      allowedNetworks: webhookNetworks,
      ...(webhookCa === undefined ? {} : { ca: webhookCa }),
      ...(eventLogDays === undefined ? {} : { eventLogDays }),
    },
  });
  if (store.firstStart !== undefined) {
    console.log('A new store was created. Its admin account (shown only this once):');
    console.log(`  email:    ${store.firstStart.email}`);
    console.log(`  password: ${store.firstStart.password}`);
  }
  console.log(`Store API listening on ${store.apiUrl}`);
  if (store.httpPort !== undefined) console.log(`Plain HTTP on port ${store.httpPort} redirects to HTTPS`);

  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      store.close().then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(error);
          process.exit(1);
        },
      );
    });
  }
}
