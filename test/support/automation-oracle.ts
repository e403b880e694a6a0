// The oracle for Automation01: BIND's dnssec-cds, given the DS RRset the parent serves and, per child
// name server, the DNSKEY, CDNSKEY and CDS answers with their RRSIGs as dig prints them. Written apart
// from the engine: it knows DNS only through dig's and dnssec-cds's text. Recorded in
// test/reference-automation/ so CI runs no dnssec-cds; AUTOMATION_RECORD=1 records anew, =missing the absent.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Lab } from '@app/lab';

export const automationRecordings = resolve(import.meta.dirname, '../reference-automation');

export interface OracleParentDs {
  action: 'publish' | 'remove' | 'none';
  ds: string[];
  /** Per server: dnssec-cds's output lines, or its error. */
  runs: Record<string, string>;
}

/** A DS line as the engine prints it: owner (lower case) TTL IN DS tag algorithm type HEX, the digest in one piece. */
export function normalDs(line: string): string | undefined {
  const fields = line.trim().split(/\s+/);
  const at = fields.indexOf('DS');
  if (at < 0 || fields[0].startsWith(';')) return undefined;
  const ttl = fields.slice(1, at).find((f) => /^\d+$/.test(f)) ?? '';
  const [tag, algorithm, type, ...digest] = fields.slice(at + 1);
  return `${fields[0].toLowerCase()} ${ttl} IN DS ${tag} ${algorithm} ${type} ${digest.join('').toUpperCase()}`;
}

const canonical = (lines: readonly string[]): string[] => [...new Set(lines)].sort();

async function dig(lab: Lab, server: string, name: string, type: string): Promise<string> {
  const result = await lab.exec('dig', ['+dnssec', '+norec', '+noall', '+answer', '+nomultiline', `@${server}`, name, type], {
    timeoutMs: 20_000,
  });
  return result.stdout;
}

/** dnssec-cds's verdict on one server's answers: the new DS lines, or the error. */
async function runDnssecCds(lab: Lab, dir: string, domain: string, server: string, dsset: string): Promise<string[] | string> {
  const child = (await Promise.all(['DNSKEY', 'CDNSKEY', 'CDS'].map((type) => dig(lab, server, domain, type)))).join('');
  const childFile = join(dir, `child-${server.replace(/[^0-9a-f]/gi, '_')}`);
  writeFileSync(childFile, child);
  // The engine takes CDS as published, whatever their digest type, and makes SHA-256 DS from CDNSKEY.
  const hasCds = child.split('\n').some((line) => {
    const fields = line.trim().split(/\s+/);
    return fields[3] === 'CDS' && fields[5] !== '0';
  });
  const digests = hasCds ? ['-a', 'SHA-1', '-a', 'SHA-256', '-a', 'SHA-384'] : [];
  const result = await lab.exec('dnssec-cds', [...digests, '-s', '20000101000000', '-d', dsset, '-f', childFile, domain], {
    timeoutMs: 20_000,
  });
  if (result.code !== 0) return `error: ${result.stderr.trim().split('\n').at(-1) ?? ''}`;
  return canonical(result.stdout.split('\n').flatMap((line) => normalDs(line) ?? []));
}

/** What a parent following dnssec-cds would do for `domain`, from the parent server `parent` and the child servers. */
export async function oracleParentDs(lab: Lab, domain: string, parent: string, servers: readonly string[]): Promise<OracleParentDs> {
  const path = join(automationRecordings, `${domain.replace(/\.$/, '')}.json`);
  const mode = process.env.AUTOMATION_RECORD;
  if (existsSync(path) && mode !== '1') return JSON.parse(readFileSync(path, 'utf8')) as OracleParentDs;
  const dir = join(lab.dir, 'automation-oracle', domain);
  mkdirSync(dir, { recursive: true });
  const dsset = join(dir, `dsset-${domain}`);
  const old = (await dig(lab, parent, domain, 'DS')).split('\n').filter((l) => l.trim().split(/\s+/)[3] === 'DS');
  writeFileSync(dsset, `${old.join('\n')}\n`);
  const oldSet = canonical(old.flatMap((l) => normalDs(l) ?? []));
  const runs: Record<string, string> = {};
  const outputs = await Promise.all(servers.map((server) => runDnssecCds(lab, dir, domain, server, dsset)));
  servers.forEach((server, i) => (runs[server] = typeof outputs[i] === 'string' ? outputs[i] : outputs[i].join('\n')));
  const texts = new Set(Object.values(runs));
  let verdict: Pick<OracleParentDs, 'action' | 'ds'> = { action: 'none', ds: [] };
  const [only] = outputs;
  if (old.length > 0 && texts.size === 1 && Array.isArray(only)) {
    // dnssec-cds 9.18 knows no RFC 8078 delete: it validates the algorithm-0 CDNSKEY and turns it into a DS
    // of algorithm 0. Validated and of algorithm 0 only, that is the delete request.
    const deletion = only.every((line) => line.split(' ')[5] === '0');
    if (only.length === 0 || deletion) verdict = { action: 'remove', ds: [] };
    else if (only.join('\n') !== oldSet.join('\n')) verdict = { action: 'publish', ds: only };
  }
  const recorded = { ...verdict, runs };
  if (mode === '1' || mode === 'missing' || !existsSync(path)) {
    mkdirSync(automationRecordings, { recursive: true });
    writeFileSync(path, `${JSON.stringify(recorded, null, 2)}\n`);
  }
  return recorded;
}
