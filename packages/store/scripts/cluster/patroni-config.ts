// One Patroni node's configuration (JSON, which Patroni's YAML reader takes as it is). The timings make a
// crashed primary fail over within seconds: its Patroni checks every `loop_wait`, and `primary_start_timeout: 0`
// has it hand over to the standby instead of restarting PostgreSQL in place. `synchronous_mode` makes a commit
// wait until the standby has it, and lets only that standby take over: a write the store acknowledged is never
// lost in a failover. With the standby gone the primary goes on alone (not `synchronous_mode_strict`), so
// writes do not stop while the old primary comes back; `use_pg_rewind` lets it rejoin as a standby.

export interface PatroniNode {
  name: string;
  /** PostgreSQL's port on 127.0.0.1. */
  pgPort: number;
  /** Patroni's REST API port on 127.0.0.1 (what HAProxy asks who is primary). */
  restPort: number;
  dataDir: string;
  /** Holds the node's Unix socket and .pgpass. */
  runDir: string;
}

export interface PatroniSettings {
  /** The cluster's name in etcd; both nodes share it. */
  scope: string;
  etcdPort: number;
  binDir: string;
  /** false for a throwaway set (tests): no fsync, so what is measured is Patroni's failover, not the disk. */
  durable: boolean;
}

export function patroniConfig(node: PatroniNode, settings: PatroniSettings): string {
  const local = (port: number) => `127.0.0.1:${port}`;
  const config = {
    scope: settings.scope,
    namespace: '/store/',
    name: node.name,
    log: { level: 'INFO' },
    restapi: { listen: local(node.restPort), connect_address: local(node.restPort) },
    etcd3: { hosts: [`127.0.0.1:${settings.etcdPort}`] },
    bootstrap: {
      dcs: {
        ttl: 10,
        loop_wait: 1,
        retry_timeout: 5,
        maximum_lag_on_failover: 1048576,
        primary_start_timeout: 0,
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: true,
          // A node pg_rewind cannot bring back copies the primary afresh instead of staying down.
          remove_data_directory_on_rewind_failure: true,
          remove_data_directory_on_diverged_timelines: true,
          use_slots: true,
          parameters: {
            wal_level: 'replica',
            hot_standby: 'on',
            wal_log_hints: 'on',
            max_connections: 200,
            max_wal_senders: 10,
            max_replication_slots: 10,
            wal_keep_size: '256MB',
            // pg_rewind needs full_page_writes, so only fsync goes.
            ...(settings.durable ? {} : { fsync: 'off' }),
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C' }],
    },
    postgresql: {
      listen: local(node.pgPort),
      connect_address: local(node.pgPort),
      data_dir: node.dataDir,
      bin_dir: settings.binDir,
      pgpass: `${node.runDir}/pgpass`,
      use_unix_socket: true,
      // Only loopback reaches these servers: trust there, as the machine's own PostgreSQL does for tests.
      pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication replicator 127.0.0.1/32 trust'],
      authentication: {
        // No passwords (trust): with one, even empty, initdb is given a password file and refuses an empty one.
        superuser: { username: 'postgres' },
        replication: { username: 'replicator' },
      },
      parameters: { unix_socket_directories: node.runDir },
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
