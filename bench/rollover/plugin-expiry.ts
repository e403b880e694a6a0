// The first signature expiry that check_zone_rrsig_expiration (monitoring-plugins-contrib) reports,
// to the second: it prints days to a tenth, so the bench runs it with the clock frozen (faketime) and
// finds by bisection the smallest warning threshold (-W, in days) that it warns at. Its root server
// list is the Internet's; the copy run here names the lab's root instead, and Net::DNS looks names up
// through the lab's validator (RES_NAMESERVERS).
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const PLUGIN = '/usr/lib/nagios/plugins/check_zone_rrsig_expiration';

export async function pluginExpiry(dir: string, zone: string, resolver: string, root: string) {
  const text = readFileSync(PLUGIN, 'utf8').replace(/my @refs = qw \([^)]*\);/, `my @refs = qw ( ${root} );`);
  const copy = join(dir, 'check_zone_rrsig_expiration');
  writeFileSync(copy, text);
  const frozen = Math.floor(Date.now() / 1000);
  const at = new Date(frozen * 1000).toISOString().replace('T', ' ').slice(0, 19);
  const check = async (seconds: number) => {
    const result = await run('faketime', ['-f', at, 'perl', copy, '-Z', zone, '-4', '-C', '0', '-W', String((seconds + 0.5) / 86400)], {
      env: { ...process.env, RES_NAMESERVERS: resolver, TZ: 'UTC' },
    }).then(
      (r) => r.stdout,
      (e: { stdout?: string }) => e.stdout ?? '',
    );
    return result;
  };
  const status = await check(0);
  // Smallest s at which it warns: the signature expires `s` seconds after the frozen instant.
  let low = 0;
  let high = 30 * 86400;
  if (!(await check(high)).includes('WARNING')) throw new Error(`the plugin does not warn within 30 days: ${status}`);
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if ((await check(middle)).includes('WARNING')) high = middle;
    else low = middle + 1;
  }
  return { expiration: frozen + low, frozenAt: frozen, status: status.trim() };
}
