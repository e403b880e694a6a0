// One PowerDNS Authoritative process (bind backend) playing one lab server: the named.conf listing
// its zones, the DNSSEC metadata database that marks signed zones as pre-signed (PowerDNS would
// otherwise serve their RRSIGs and NSEC/NSEC3 as plain data), and its command line.
import { rmSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import type { LabServer } from './world-plan.ts';
import { quote } from './config-quote.ts';

// The bind backend's own schema (pdns-backend-bind's bind-dnssec.schema.sqlite3.sql); only metadata is used.
const schema = `create table domainmetadata (id INTEGER PRIMARY KEY, domain VARCHAR(255) COLLATE NOCASE, kind VARCHAR(32) COLLATE NOCASE, content TEXT);
create index domainmetanameindex on domainmetadata(domain);
create table cryptokeys (id INTEGER PRIMARY KEY, domain VARCHAR(255) COLLATE NOCASE, flags INT NOT NULL, active BOOL, published BOOL DEFAULT 1, content TEXT);
create index domainnameindex on cryptokeys(domain);
create table tsigkeys (id INTEGER PRIMARY KEY, name VARCHAR(255) COLLATE NOCASE, algorithm VARCHAR(50) COLLATE NOCASE, secret VARCHAR(255));
create unique index namealgoindex on tsigkeys(name, algorithm);`;

/** Writes the server's named.conf (and metadata database) into dir; returns pdns_server's arguments. */
export function powerdnsSetup(server: LabServer, dir: string, port: number): string[] {
  const b = server.behaviour;
  const namedConf = `${dir}/named.conf`;
  writeFileSync(namedConf, server.zones.map((z) => `zone ${quote(z.origin)} { type master; file ${quote(z.file)}; };\n`).join(''));
  const args = [
    '--no-config',
    '--daemon=no',
    '--guardian=no',
    '--disable-syslog',
    '--write-pid=no',
    '--setuid=',
    '--setgid=',
    '--launch=bind',
    `--bind-config=${namedConf}`,
    `--socket-dir=${dir}`,
    `--local-address=${server.addresses.join(',')}`,
    `--local-port=${port}`,
    '--reuseport=no',
    // Every answer made afresh, as BIND, Knot and NSD make theirs.
    '--cache-ttl=0',
    '--query-cache-ttl=0',
    '--negquery-cache-ttl=0',
    '--distributor-threads=1',
    '--receiver-threads=1',
    '--signing-threads=1',
    '--server-id=disabled',
    `--version-string=${b.version ?? 'anonymous'}`,
    ...(b.axfr ? ['--disable-axfr=no', '--allow-axfr-ips=0.0.0.0/0,::/0'] : ['--disable-axfr=yes']),
    '--webserver=no',
    '--api=no',
    '--loglevel=4',
  ];
  const signed = server.zones.filter((z) => z.signed !== undefined);
  if (signed.length === 0) return args;
  const dbPath = `${dir}/dnssec.db`;
  rmSync(dbPath, { force: true });
  const db = new DatabaseSync(dbPath);
  try {
    db.exec(schema);
    const insert = db.prepare('insert into domainmetadata (domain, kind, content) values (?, ?, ?)');
    for (const zone of signed) {
      const domain = zone.origin === '.' ? '.' : zone.origin.slice(0, -1);
      insert.run(domain, 'PRESIGNED', '1');
      // PowerDNS finds a pre-signed zone's NSEC3 records by hashed name, with these parameters.
      const nsec3 = zone.signed?.nsec3;
      if (nsec3 !== undefined) insert.run(domain, 'NSEC3PARAM', `1 ${nsec3.optOut ? 1 : 0} ${nsec3.iterations} ${nsec3.salt}`);
    }
  } finally {
    db.close();
  }
  return [...args, `--bind-dnssec-db=${dbPath}`];
}
