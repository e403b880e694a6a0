// The HAProxy configuration of a cluster: TLS ends at HAProxy and starts again to each instance (verified
// against the store's certificate), X-Forwarded-Proto/-For are set for the instances, which trust only
// loopback as their proxy. A request whose connection to an instance never opened goes to another one
// (safe for any method); one that reached an instance is never sent twice, so a POST cannot run twice
// behind the client's back.

export interface HaproxyConfig {
  /** The port clients connect to. */
  port: number;
  /** Certificate and key in one PEM file, as HAProxy reads them. */
  pemFile: string;
  /** The CA that signs the instances' certificate. */
  caFile: string;
  instances: { name: string; port: number }[];
  /** Where HAProxy writes its pid (so the cluster can stop it). */
  pidFile: string;
}

export function haproxyConfig(config: HaproxyConfig): string {
  const servers = config.instances.map(
    // Checked every 500 ms: a killed instance leaves the rotation within about a second, and is back after one good check.
    (instance) =>
      `  server ${instance.name} 127.0.0.1:${instance.port} ssl verify required ca-file ${config.caFile} sni str(localhost) check inter 500 fall 2 rise 1`,
  );
  return [
    'global',
    '  maxconn 4096',
    `  pidfile ${config.pidFile}`,
    '  log stderr format short local0 warning',
    '',
    'defaults',
    '  mode http',
    '  log global',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  retries 3',
    '  option redispatch',
    '  retry-on conn-failure',
    '',
    'frontend store',
    `  bind 127.0.0.1:${config.port} ssl crt ${config.pemFile}`,
    '  option forwardfor',
    '  http-request set-header X-Forwarded-Proto https',
    '  default_backend instances',
    '',
    'backend instances',
    '  balance roundrobin',
    // The favicon needs neither a token nor the database, so a database outage does not take every instance out.
    '  option httpchk GET /favicon.ico',
    ...servers,
    '',
  ].join('\n');
}
