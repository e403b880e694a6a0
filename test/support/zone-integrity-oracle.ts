// The oracle for the ZONE_INTEGRITY module, from Debian's tools and not from our code: each server's
// zone transfer taken by dig and judged by ldns-verify-zone -Z (ldnsutils), the NSEC chain walked by
// ldns-walk, NSEC3 hashes computed by nsec3hash (bind9-utils). Recorded in test/reference-zone-integrity/
// like the reference findings, so CI runs none of the tools.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Lab } from '@app/lab';

const run = promisify(execFile);
export const zoneIntegrityRecordings = resolve(import.meta.dirname, '../reference-zone-integrity');

export interface OracleServer {
  ns: string;
  address: string;
}

export interface ZoneIntegrityRecording {
  zone: string;
  /** 'ns/address' → whether dig got the whole zone, and ldns-verify-zone -Z's verdict on it (zones with ZONEMD). */
  transfers: Record<string, { transferred: boolean; verified?: boolean; ldns?: string }>;
  /** ldns-walk at the first server: whether it listed the zone (exit 0, the apex first), the names it printed, its first line. */
  walk?: { server: string; enumerated: boolean; names: string[]; said: string };
  /** nsec3hash's hash (lower case) for each name, with the zone's NSEC3 salt and iterations. */
  nsec3?: { salt: string; iterations: number; hashes: Record<string, string> };
}

export interface OracleZone {
  zone: string;
  servers: OracleServer[];
  hasZonemd: boolean;
  signed: boolean;
  nsec3?: { salt: string; iterations: number };
  /** Names to hash with nsec3hash. */
  names: string[];
}

async function ldnsVerify(zoneText: string): Promise<{ verified: boolean; ldns: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'zonemd-oracle-'));
  try {
    const file = join(dir, 'zone');
    writeFileSync(file, zoneText);
    // ldns-verify-zone reads the file only; -Z: a valid ZONEMD is required, and alone enough for an unsigned zone.
    const result = await run('ldns-verify-zone', ['-Z', file]).then(
      ({ stdout, stderr }) => ({ code: 0, text: stdout + stderr }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code ?? 1,
        text: `${error.stdout ?? ''}${error.stderr ?? ''}`,
      }),
    );
    return { verified: result.code === 0, ldns: result.text.trim() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function recordOracle(lab: Lab, target: OracleZone): Promise<ZoneIntegrityRecording> {
  const recording: ZoneIntegrityRecording = { zone: target.zone, transfers: {} };
  for (const { ns, address } of target.servers) {
    const dig = await lab.exec('dig', [`@${address}`, target.zone, 'AXFR', '+time=3', '+tries=1'], { timeoutMs: 30_000 });
    const text = dig.stdout;
    const transferred = dig.code === 0 && /XFR size: \d+ records/.test(text) && !/Transfer failed/.test(text);
    recording.transfers[`${ns}/${address}`] = { transferred, ...(transferred && target.hasZonemd && (await ldnsVerify(text))) };
  }
  if (target.signed) {
    const { ns, address } = target.servers[0];
    const walk = await lab.exec('ldns-walk', [`@${address}`, target.zone], { timeoutMs: 60_000 });
    // ldns-walk starts its output with the zone's name and a tab, then one line per name: owner, types.
    const listing = walk.stdout.replace(/^\S+\t/, '');
    const names = listing
      .split('\n')
      .map((line) => line.trim().split(/\s+/)[0]?.toLowerCase() ?? '')
      .filter((name) => name.endsWith('.'));
    const apex = `${target.zone.toLowerCase()}.`;
    const refused = /does not seem to be DNSSEC secured/.test(walk.stdout + walk.stderr);
    recording.walk = {
      server: `${ns}/${address}`,
      enumerated: walk.code === 0 && !refused && names[0] === apex,
      names,
      said: `${listing}\n${walk.stderr}`.trim().split('\n')[0],
    };
  }
  if (target.nsec3) {
    const hashes: Record<string, string> = {};
    for (const name of target.names) {
      const { stdout } = await run('nsec3hash', [target.nsec3.salt, '1', String(target.nsec3.iterations), name]);
      hashes[name] = stdout.trim().split(/\s+/)[0].toLowerCase();
    }
    recording.nsec3 = { ...target.nsec3, hashes };
  }
  mkdirSync(zoneIntegrityRecordings, { recursive: true });
  writeFileSync(recordingPath(target.zone), `${JSON.stringify(recording, null, 2)}\n`);
  return recording;
}

const recordingPath = (zone: string): string => join(zoneIntegrityRecordings, `${zone}.json`);

/** The recorded oracle for the zone; recorded now when LAB_RECORD_ZONE_INTEGRITY says so (1: always, missing: when absent). */
export async function oracle(lab: Lab, target: OracleZone): Promise<ZoneIntegrityRecording> {
  const path = recordingPath(target.zone);
  const mode = process.env.LAB_RECORD_ZONE_INTEGRITY;
  if (mode === '1' || (mode === 'missing' && !existsSync(path))) return recordOracle(lab, target);
  if (!existsSync(path)) throw new Error(`no oracle recorded for ${target.zone}: run with LAB_RECORD_ZONE_INTEGRITY=missing`);
  return JSON.parse(readFileSync(path, 'utf8')) as ZoneIntegrityRecording;
}
