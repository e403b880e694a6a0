// The reference backend_config.ini format, environment overrides, and clear errors for bad values.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadProfiles } from '../src/config/profiles.ts';
import { ConfigError, loadConfig } from '../src/config/service-config.ts';

function ini(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'dns-service-ini-'));
  writeFileSync(join(dir, 'fast.json'), JSON.stringify({ net: { ipv6: false }, resolver: { defaults: { timeout: 2 } } }));
  writeFileSync(join(dir, 'broken.json'), '{ not json');
  writeFileSync(join(dir, 'hints'), '.  3600000 NS a.root-servers.lab.\n');
  const file = join(dir, 'backend_config.ini');
  writeFileSync(file, text);
  return file;
}

describe('configuration', () => {
  test('defaults without a file: SQLite under DATA_DIR, 127.0.0.1:5000, the eight locales', () => {
    const config = loadConfig({ env: { DATA_DIR: '/var/lib/dh' } });
    assert.equal(config.databaseUrl, 'sqlite:/var/lib/dh/domain-health.sqlite');
    assert.deepEqual(config.listen, { host: '127.0.0.1', port: 5000 });
    assert.equal(config.enableAddApiUser, false);
    assert.equal(config.enableAddBatchJob, true);
    assert.deepEqual(config.locales, ['da_DK', 'en_US', 'es_ES', 'fi_FI', 'fr_FR', 'nb_NO', 'sl_SI', 'sv_SE']);
    assert.equal(config.ageReusePreviousTestSeconds, 600);
    assert.equal(config.maxExecutionSeconds, 600);
    assert.equal(config.lockOnQueue, 0);
    assert.equal(config.maximalRetries, 1);
    assert.equal(config.agentLeaseSeconds, 60);
    assert.equal(config.rootHintsFile, undefined);
    // The engine's two shipped profiles: the reference's test cases, and those with ours beyond them.
    assert.deepEqual([...config.profiles.keys()], ['default', 'extended']);
    assert.deepEqual(config.queues, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(config.watch.allowedNetworks, [], 'alerts reach no special address unless the operator says so');
  });

  test('a reference file: PostgreSQL, RPCAPI, LANGUAGE, profiles, ZONEMASTER and RESOLVER keys', () => {
    const file = ini(`; reference layout
[DB]
engine = PostgreSQL
polling_interval = 0.25

[POSTGRESQL]
host = db.internal
port = 5433
user = zonemaster
password = p@ss word
database = zm

[RPCAPI]
enable_add_api_user = yes
enable_add_batch_job = false

[LANGUAGE]
locale = en_US sv_SE

[PUBLIC PROFILES]
Fast = fast.json

[PRIVATE PROFILES]
internal = fast.json

[ZONEMASTER]
max_zonemaster_execution_time = 300
number_of_processes_for_frontend_testing = 30
number_of_processes_for_batch_testing = 10
lock_on_queue = 2
age_reuse_previous_test = 60
maximal_number_of_retries = 0
agent_lease_seconds = 180

[RESOLVER]
root_hints = hints
`);
    const config = loadConfig({ file, env: {} });
    assert.equal(config.databaseUrl, 'postgres://zonemaster:p%40ss%20word@db.internal:5433/zm');
    assert.equal(config.pollingIntervalSeconds, 0.25);
    assert.equal(config.enableAddApiUser, true);
    assert.equal(config.enableAddBatchJob, false);
    assert.deepEqual(config.locales, ['en_US', 'sv_SE']);
    assert.deepEqual(
      [...config.profiles.values()].map((p) => [p.name, p.public]),
      [
        ['default', true],
        ['extended', true],
        ['fast', true],
        ['internal', false],
      ],
    );
    assert.equal(config.maxExecutionSeconds, 300);
    assert.equal(config.frontendProcesses, 30);
    assert.equal(config.batchProcesses, 10);
    assert.equal(config.lockOnQueue, 2);
    assert.equal(config.ageReusePreviousTestSeconds, 60);
    assert.equal(config.maximalRetries, 0);
    assert.equal(config.agentLeaseSeconds, 180);
    assert.equal(config.rootHintsFile, join(file, '..', 'hints'));
    const profiles = loadProfiles(config.profiles);
    assert.equal(profiles.get('fast')?.ipv4, true);
    assert.equal(profiles.get('fast')?.ipv6, false);
  });

  test('MySQL and SQLite engines', () => {
    assert.equal(
      loadConfig({ file: ini('[DB]\nengine = MySQL\n[MYSQL]\nhost = 127.0.0.1\nuser = root\ndatabase = zm\n'), env: {} }).databaseUrl,
      'mysql://root@127.0.0.1:3306/zm',
    );
    const file = ini('[DB]\nengine = SQLite\n[SQLITE]\ndatabase_file = zm.sqlite\n');
    assert.equal(loadConfig({ file, env: {} }).databaseUrl, `sqlite:${join(file, '..', 'zm.sqlite')}`);
  });

  test('environment variables override the file', () => {
    const file = ini(
      '[RPCAPI]\nenable_add_api_user = false\n[RESOLVER]\nroot_hints = hints\n[ZONEMASTER]\nlock_on_queue = 1\nagent_lease_seconds = 90\n',
    );
    const config = loadConfig({
      file,
      env: {
        DNS_SERVICE_DATABASE_URL: 'mysql://root@127.0.0.1:3306/x',
        DNS_SERVICE_LISTEN: '[::1]:5353',
        DNS_SERVICE_ENABLE_ADD_API_USER: '1',
        DNS_ROOT_HINTS: '/etc/lab/hints',
        DNS_SERVICE_LOCK_ON_QUEUE: '3',
        DNS_SERVICE_LOCALE: 'fr_FR',
        DNS_SERVICE_AGENT_LEASE_SECONDS: '30',
        DNS_SERVICE_QUEUES: '20-22',
        DNS_SERVICE_WATCH_CA_FILE: '/etc/dns-health/alerts-ca.pem',
        DNS_SERVICE_WATCH_ALLOWED_NETWORKS: '10.1.2.0/24, ::1',
      },
    });
    assert.equal(config.databaseUrl, 'mysql://root@127.0.0.1:3306/x');
    assert.deepEqual(config.listen, { host: '::1', port: 5353 });
    assert.equal(config.enableAddApiUser, true);
    assert.equal(config.rootHintsFile, '/etc/lab/hints');
    assert.equal(config.lockOnQueue, 3);
    assert.equal(config.agentLeaseSeconds, 30);
    assert.deepEqual(config.locales, ['fr_FR']);
    assert.deepEqual(config.queues, [0, 3, 20, 21, 22], "the default queue and the agent's own are always there");
    assert.equal(config.watch.caFile, '/etc/dns-health/alerts-ca.pem');
    assert.deepEqual(config.watch.allowedNetworks, ['10.1.2.0/24', '::1']);
  });

  test("Redis for the agents' shared answers: from the file or the environment, none by default", () => {
    assert.equal(loadConfig({ env: {} }).redisUrl, undefined);
    assert.equal(
      loadConfig({ file: ini('[REDIS]\nurl = redis://cache.internal:6379/2\n'), env: {} }).redisUrl,
      'redis://cache.internal:6379/2',
    );
    assert.equal(
      loadConfig({ file: ini('[REDIS]\nurl = redis://a\n'), env: { DNS_SERVICE_REDIS_URL: 'unix:///run/redis/redis.sock' } }).redisUrl,
      'unix:///run/redis/redis.sock',
    );
  });

  test('the watch settings from the file: ca_file beside it, allowed_networks, and SERVICE.queues', () => {
    const file = ini('[SERVICE]\nqueues = 0, 5, 7-8\n[WATCH]\nca_file = ca.pem\nallowed_networks = 127.0.0.1 192.168.7.0/24\n');
    const config = loadConfig({ file, env: {} });
    assert.equal(config.watch.caFile, join(file, '..', 'ca.pem'));
    assert.deepEqual(config.watch.allowedNetworks, ['127.0.0.1', '192.168.7.0/24']);
    assert.deepEqual(config.queues, [0, 5, 7, 8]);
  });

  test('bad values are refused with what and why', () => {
    const bad: [string, RegExp][] = [
      ['[DB]\nengine = Oracle\n', /DB.engine must be SQLite, PostgreSQL or MySQL/],
      ['[RPCAPI]\nenable_add_api_user = maybe\n', /enable_add_api_user must be true or false/],
      ['[ZONEMASTER]\nage_reuse_previous_test = soon\n', /age_reuse_previous_test must be a non-negative integer/],
      ['[SERVICE]\nmaximal_number_of_retries = -1\n', /maximal_number_of_retries must be a non-negative integer/],
      ['[LANGUAGE]\nlocale = english\n', /"english", which is not a locale tag/],
      ['[SERVICE]\nagent_lease_seconds = 2\n', /agent_lease_seconds must be between 6 and 86400 seconds, not 2/],
      ['[ZONEMASTER]\nagent_lease_seconds = 1m\n', /agent_lease_seconds must be a non-negative integer/],
      ['[PUBLIC PROFILES]\n-bad- = fast.json\n', /not a valid profile name/],
      ['[PRIVATE PROFILES]\ndefault = fast.json\n', /default profile cannot be private/],
      ['[WATCH]\nallowed_networks = localhost\n', /WATCH.allowed_networks: "localhost" is not an address or a CIDR network/],
      ['[WATCH]\nallowed_networks = 10.0.0.0/33\n', /WATCH.allowed_networks: "10.0.0.0\/33"/],
      ['[SERVICE]\nqueues = 0-1000\n', /SERVICE.queues must list at most 100 queues/],
      ['[SERVICE]\nqueues = all\n', /SERVICE.queues must list .* not "all"/],
      ['[SERVICE]\nqueues = 5-2\n', /SERVICE.queues must list/],
      ['[REDIS]\nurl = cache.internal:6379\n', /REDIS.url must be a redis:\/\/, rediss:\/\/ or unix:\/\/ address/],
    ];
    for (const [text, message] of bad)
      assert.throws(
        () => loadConfig({ file: ini(text), env: {} }),
        (e: Error) => e instanceof ConfigError && message.test(e.message),
      );
    assert.throws(() => loadConfig({ file: '/nonexistent/backend_config.ini', env: {} }), /Cannot read the configuration file/);
    const broken = loadConfig({ file: ini('[PUBLIC PROFILES]\nbroken = broken.json\n'), env: {} });
    assert.throws(() => loadProfiles(broken.profiles), /Profile "broken" .* cannot be used/);
  });
});
