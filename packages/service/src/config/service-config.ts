// The service's configuration: the reference backend_config.ini format, then environment
// variables for the common cases, then built-in defaults.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { NetworkListError, outboundPolicy } from '@app/outbound-address';
import { parse } from 'ini';
import { LANGUAGE_TABLE } from '../shared/languages.ts';
import { DEFAULT_QUEUES, MAX_QUEUES, parseQueues } from './queues.ts';

export interface ProfileSource {
  name: string;
  /** Listed by profile_names. `default` is always public. */
  public: boolean;
  /** The profile JSON; none for the built-in ones (`default`, `extended`). */
  path?: string;
}

export interface ServiceConfig {
  databaseUrl: string;
  listen: { host: string; port: number };
  pollingIntervalSeconds: number;
  enableAddApiUser: boolean;
  enableAddBatchJob: boolean;
  /** `LANGUAGE.locale`, e.g. `da_DK en_US`. */
  locales: string[];
  profiles: ReadonlyMap<string, ProfileSource>;
  maxExecutionSeconds: number;
  frontendProcesses: number;
  batchProcesses: number;
  lockOnQueue: number;
  /** The queues a test may be put in (SERVICE.queues, with 0 and lock_on_queue), in order. */
  queues: number[];
  ageReusePreviousTestSeconds: number;
  /** Runs again after a run cut short (its agent died or lost the database) before the test is finished as died. */
  maximalRetries: number;
  /** Seconds an agent's claim on a running test holds without renewal: how long a dead agent's tests wait before another agent takes them up. */
  agentLeaseSeconds: number;
  /** Root hints file for the resolver; the IANA root servers when unset. */
  rootHintsFile?: string;
  /** Where agents share answers about parents and shared name servers (redis://… or unix:///path); none: each run asks its own. */
  redisUrl?: string;
  bodyLimitBytes: number;
  /** Most domains one add_batch_job may hold. */
  maxBatchSize: number;
  /** Host names, besides the listen address, that the service answers to (DNS rebinding guard). */
  allowedHosts: string[];
  /** Watches' alerts (src/watch/). */
  watch: WatchSettings;
}

export interface WatchSettings {
  /** The web interface's address as alert recipients reach it, for the links; no final slash. */
  publicUrl: string;
  /** How often due and finished runs are looked for. */
  pollSeconds: number;
  /** Extra CA certificates (PEM file) trusted for webhooks and SMTP, besides the system's. */
  caFile?: string;
  /**
   * Addresses and CIDR networks in loopback, private or reserved ranges that webhooks may reach anyway; every
   * other address in those ranges is refused (the caller names the webhook, so it must not reach inside).
   */
  allowedNetworks: string[];
  /** Where e-mail alerts go out; without it, watches cannot have an e-mail address. */
  smtp?: { host: string; port: number; secure: boolean; user?: string; password?: string; from: string };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Ini = Record<string, Record<string, unknown> | undefined>;
type Env = Record<string, string | undefined>;

const DEFAULT_LOCALES = Object.values(LANGUAGE_TABLE).map((language) => language.locale);

/** Reads a backend_config.ini (when given) and applies environment overrides. */
export function loadConfig(options: { file?: string; env?: Env; cwd?: string } = {}): ServiceConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  let ini: Ini = {};
  let base = cwd;
  if (options.file !== undefined) {
    const path = resolve(cwd, options.file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new ConfigError(`Cannot read the configuration file ${path}: ${(error as Error).message}`);
    }
    ini = parse(text);
    base = dirname(path);
  }
  const get = (section: string, key: string): string | undefined => {
    const value = ini[section]?.[key];
    // The ini parser gives booleans for true/false; everything else stays text.
    if (typeof value === 'string') return value.trim();
    return typeof value === 'boolean' ? String(value) : undefined;
  };
  const int = (what: string, value: string | undefined, fallback: number): number => {
    if (value === undefined || value === '') return fallback;
    if (!/^\d+$/.test(value)) throw new ConfigError(`${what} must be a non-negative integer, not "${value}"`);
    return Number(value);
  };
  const bool = (what: string, value: string | undefined, fallback: boolean): boolean => {
    if (value === undefined || value === '') return fallback;
    const lower = value.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
    if (['0', 'false', 'no', 'off'].includes(lower)) return false;
    throw new ConfigError(`${what} must be true or false, not "${value}"`);
  };
  // The reference moved these keys from [ZONEMASTER] to [SERVICE]; either works.
  const service = (key: string) => get('SERVICE', key) ?? get('ZONEMASTER', key);

  const listen = env.DNS_SERVICE_LISTEN ?? '127.0.0.1:5000';
  const listenMatch = /^(.*):(\d+)$/.exec(listen);
  if (listenMatch === null) throw new ConfigError(`DNS_SERVICE_LISTEN must be host:port, not "${listen}"`);

  const rootHints = env.DNS_ROOT_HINTS ?? get('RESOLVER', 'root_hints');
  const locales = (env.DNS_SERVICE_LOCALE ?? get('LANGUAGE', 'locale') ?? DEFAULT_LOCALES.join(' ')).split(/\s+/).filter((l) => l !== '');
  for (const locale of locales) {
    if (!/^[a-z]{2}_[A-Z]{2}$/.test(locale)) throw new ConfigError(`LANGUAGE.locale has "${locale}", which is not a locale tag like en_US`);
  }

  const lockOnQueue = int('lock_on_queue', env.DNS_SERVICE_LOCK_ON_QUEUE ?? service('lock_on_queue'), 0);
  const queuesSetting = env.DNS_SERVICE_QUEUES ?? service('queues') ?? DEFAULT_QUEUES;
  const queues = parseQueues(queuesSetting);
  if (queues === undefined)
    throw new ConfigError(
      `SERVICE.queues must list at most ${MAX_QUEUES} queues as numbers and ranges (such as 0-9 or 0, 5, 7-8), not "${queuesSetting}"`,
    );

  return {
    databaseUrl: env.DNS_SERVICE_DATABASE_URL ?? databaseUrlFromIni(get, base, env),
    listen: { host: (listenMatch[1] ?? '').replace(/^\[(.*)\]$/, '$1'), port: Number(listenMatch[2]) },
    pollingIntervalSeconds: Number(get('DB', 'polling_interval') ?? '0.5'),
    enableAddApiUser: bool(
      'RPCAPI.enable_add_api_user',
      env.DNS_SERVICE_ENABLE_ADD_API_USER ?? get('RPCAPI', 'enable_add_api_user'),
      false,
    ),
    enableAddBatchJob: bool(
      'RPCAPI.enable_add_batch_job',
      env.DNS_SERVICE_ENABLE_ADD_BATCH_JOB ?? get('RPCAPI', 'enable_add_batch_job'),
      true,
    ),
    locales,
    profiles: profilesFromIni(ini, base),
    maxExecutionSeconds: int('max_zonemaster_execution_time', service('max_zonemaster_execution_time'), 600),
    frontendProcesses: int('number_of_processes_for_frontend_testing', service('number_of_processes_for_frontend_testing'), 20),
    batchProcesses: int('number_of_processes_for_batch_testing', service('number_of_processes_for_batch_testing'), 20),
    lockOnQueue,
    // The default queue and the one this agent serves are always among them.
    queues: [...new Set([0, lockOnQueue, ...queues])].sort((a, b) => a - b),
    ageReusePreviousTestSeconds: int('age_reuse_previous_test', service('age_reuse_previous_test'), 600),
    // The reference's default is 0; 1 here, so restarting an agent (a deploy) does not kill the tests it was running.
    maximalRetries: int('maximal_number_of_retries', service('maximal_number_of_retries'), 1),
    agentLeaseSeconds: leaseSeconds(int('agent_lease_seconds', env.DNS_SERVICE_AGENT_LEASE_SECONDS ?? service('agent_lease_seconds'), 60)),
    ...(rootHints === undefined || rootHints === '' ? {} : { rootHintsFile: resolve(base, rootHints) }),
    ...redisUrlOf(env.DNS_SERVICE_REDIS_URL ?? get('REDIS', 'url')),
    bodyLimitBytes: int('DNS_SERVICE_BODY_LIMIT', env.DNS_SERVICE_BODY_LIMIT, 4 * 1024 * 1024),
    maxBatchSize: positive(
      'RPCAPI.max_batch_size',
      int('RPCAPI.max_batch_size', env.DNS_SERVICE_MAX_BATCH_SIZE ?? get('RPCAPI', 'max_batch_size'), 10_000),
    ),
    allowedHosts: hostNames(env.DNS_SERVICE_ALLOWED_HOSTS ?? get('RPCAPI', 'allowed_hosts') ?? ''),
    watch: watchSettings(get, int, bool, base, env, listenMatch[0]),
  };
}

function redisUrlOf(value: string | undefined): { redisUrl?: string } {
  if (value === undefined || value === '') return {};
  if (!URL.canParse(value) || !/^(rediss?|unix):$/.test(new URL(value).protocol))
    throw new ConfigError(`REDIS.url must be a redis://, rediss:// or unix:// address, not "${value}"`);
  return { redisUrl: value };
}

function watchSettings(
  get: (section: string, key: string) => string | undefined,
  int: (what: string, value: string | undefined, fallback: number) => number,
  bool: (what: string, value: string | undefined, fallback: boolean) => boolean,
  base: string,
  env: Env,
  listen: string,
): WatchSettings {
  const publicUrl = (env.DNS_SERVICE_PUBLIC_URL ?? get('WATCH', 'public_url') ?? `http://${listen}`).replace(/\/+$/, '');
  if (!URL.canParse(publicUrl) || !/^https?:$/.test(new URL(publicUrl).protocol))
    throw new ConfigError(`WATCH.public_url must be an http(s) address, not "${publicUrl}"`);
  const caFile = env.DNS_SERVICE_WATCH_CA_FILE ?? get('WATCH', 'ca_file');
  const allowedNetworks = (env.DNS_SERVICE_WATCH_ALLOWED_NETWORKS ?? get('WATCH', 'allowed_networks') ?? '')
    .split(/[\s,]+/)
    .filter((entry) => entry !== '');
  try {
    outboundPolicy({ allowedNetworks, refusalEnd: '' });
  } catch (error) {
    if (error instanceof NetworkListError) throw new ConfigError(`WATCH.allowed_networks: ${error.message}`);
    throw error;
  }
  const host = get('SMTP', 'host');
  const pollSeconds = Number(get('WATCH', 'poll_interval') ?? '5');
  if (!(pollSeconds >= 0.1 && pollSeconds <= 3600))
    throw new ConfigError(`WATCH.poll_interval must be between 0.1 and 3600 seconds, not "${get('WATCH', 'poll_interval')}"`);
  const settings: WatchSettings = {
    publicUrl,
    pollSeconds,
    allowedNetworks,
    ...(caFile === undefined || caFile === '' ? {} : { caFile: resolve(base, caFile) }),
  };
  if (host === undefined || host === '') return settings;
  const secure = bool('SMTP.secure', get('SMTP', 'secure'), false);
  const user = get('SMTP', 'user');
  const password = env.DNS_SERVICE_SMTP_PASSWORD ?? get('SMTP', 'password');
  const from = get('SMTP', 'from');
  if (from === undefined || from === '') throw new ConfigError('SMTP.from is needed when SMTP.host is set');
  return {
    ...settings,
    smtp: {
      host,
      port: int('SMTP.port', get('SMTP', 'port'), secure ? 465 : 587),
      secure,
      from,
      ...(user === undefined || user === '' ? {} : { user, password: password ?? '' }),
    },
  };
}

/**
 * Below a few seconds a lease would expire between two renewals of a busy agent (renewed every
 * third of it, at most every 20 s); a day is long past any test's execution time.
 */
function leaseSeconds(value: number): number {
  if (value < 6 || value > 86_400) throw new ConfigError(`agent_lease_seconds must be between 6 and 86400 seconds, not ${value}`);
  return value;
}

function positive(what: string, value: number): number {
  if (value < 1) throw new ConfigError(`${what} must be at least 1`);
  return value;
}

/** A list of host names separated by spaces or commas, lower case, without a final dot. */
function hostNames(text: string): string[] {
  const names = text
    .split(/[\s,]+/)
    .filter((name) => name !== '')
    .map((name) => name.toLowerCase().replace(/\.$/, ''));
  for (const name of names) {
    if (!/^[a-z0-9_.:[\]-]+$/.test(name)) throw new ConfigError(`RPCAPI.allowed_hosts has "${name}", which is not a host name`);
  }
  return names;
}

function databaseUrlFromIni(get: (section: string, key: string) => string | undefined, base: string, env: Env): string {
  const engine = (get('DB', 'engine') ?? 'SQLite').toLowerCase();
  const server = (section: string, scheme: string, port: number) => {
    const url = new URL(`${scheme}://localhost`);
    url.hostname = get(section, 'host') ?? '127.0.0.1';
    url.port = get(section, 'port') ?? String(port);
    url.username = encodeURIComponent(get(section, 'user') ?? '');
    url.password = encodeURIComponent(get(section, 'password') ?? '');
    url.pathname = `/${encodeURIComponent(get(section, 'database') ?? 'zonemaster')}`;
    return url.toString();
  };
  switch (engine) {
    case 'sqlite': {
      const file = get('SQLITE', 'database_file');
      const path =
        file !== undefined
          ? isAbsolute(file)
            ? file
            : resolve(base, file)
          : join(env.DATA_DIR ?? resolve('data'), 'domain-health.sqlite');
      return `sqlite:${path}`;
    }
    case 'postgresql':
      return server('POSTGRESQL', 'postgres', 5432);
    case 'mysql':
      return server('MYSQL', 'mysql', 3306);
    default:
      throw new ConfigError(`DB.engine must be SQLite, PostgreSQL or MySQL, not "${engine}"`);
  }
}

function profilesFromIni(ini: Ini, base: string): Map<string, ProfileSource> {
  // Built in: the reference's test cases, and those plus the ones beyond it (the web interface's).
  const profiles = new Map<string, ProfileSource>([
    ['default', { name: 'default', public: true }],
    ['extended', { name: 'extended', public: true }],
  ]);
  for (const [section, isPublic] of [
    ['PUBLIC PROFILES', true],
    ['PRIVATE PROFILES', false],
  ] as const) {
    for (const [rawName, rawPath] of Object.entries(ini[section] ?? {})) {
      const name = rawName.toLowerCase();
      if (!/^[a-z0-9]$|^[a-z0-9][a-z0-9_-]{0,30}[a-z0-9]$/.test(name))
        throw new ConfigError(`[${section}] has "${rawName}", which is not a valid profile name`);
      if (profiles.has(name) && name !== 'default' && name !== 'extended') throw new ConfigError(`Profile "${name}" is defined twice`);
      if (name === 'default' && !isPublic) throw new ConfigError('The default profile cannot be private');
      const path = String(rawPath).trim();
      profiles.set(name, { name, public: isPublic, ...(path === '' ? {} : { path: resolve(base, path) }) });
    }
  }
  return profiles;
}
