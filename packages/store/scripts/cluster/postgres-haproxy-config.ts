// HAProxy in front of a Patroni pair: one TCP port that always leads to the current primary. Each node's Patroni
// answers GET /primary with 200 only while its PostgreSQL is the running primary holding the leader key, so
// the check follows a failover by itself. A server marked down has its sessions cut (`on-marked-down
// shutdown-sessions`): the store's connections to the old primary fail at once, and its pool opens new ones,
// which land on the new primary.

export interface PostgresHaproxyConfig {
  /** The port the store connects to. */
  port: number;
  nodes: { name: string; pgPort: number; restPort: number }[];
  pidFile: string;
}

export function postgresHaproxyConfig(config: PostgresHaproxyConfig): string {
  return [
    'global',
    '  maxconn 2000',
    `  pidfile ${config.pidFile}`,
    '  log stderr format short local0 warning',
    '',
    'defaults',
    '  mode tcp',
    '  log global',
    '  timeout connect 2s',
    // Pooled connections sit idle between queries; the pool, not HAProxy, decides when to close them.
    '  timeout client 30m',
    '  timeout server 30m',
    '  timeout check 1s',
    '',
    'listen postgres',
    `  bind 127.0.0.1:${config.port}`,
    '  option httpchk GET /primary',
    '  http-check expect status 200',
    // Checked every 500 ms: a primary that died is out within about a second, the new one in after one good check.
    '  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions',
    ...config.nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.pgPort} check port ${node.restPort}`),
    '',
  ].join('\n');
}
