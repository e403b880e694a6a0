// A backend_config.ini with a public and a private profile, written to a temporary directory.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function writeConfigFixture(extra = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'dns-service-config-'));
  writeFileSync(join(dir, 'ipv4-only.json'), JSON.stringify({ net: { ipv4: true, ipv6: false } }));
  writeFileSync(join(dir, 'secret.json'), JSON.stringify({ net: { ipv4: false, ipv6: true } }));
  const file = join(dir, 'backend_config.ini');
  writeFileSync(
    file,
    `[DB]
engine = SQLite

[SQLITE]
database_file = ${join(dir, 'db.sqlite')}

[RPCAPI]
enable_add_api_user = true
enable_add_batch_job = true

[LANGUAGE]
locale = da_DK en_US es_ES fi_FI fr_FR nb_NO sl_SI sv_SE

[PUBLIC PROFILES]
IPv4-Only = ipv4-only.json

[PRIVATE PROFILES]
secret = secret.json

[ZONEMASTER]
age_reuse_previous_test = 600
${extra}`,
  );
  return file;
}
