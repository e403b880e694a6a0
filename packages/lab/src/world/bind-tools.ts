// Thin wrappers around Debian's BIND 9 tools: canonicalise a zone, make keys, make DS, sign.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export class BindToolError extends Error {
  override name = 'BindToolError';
}

async function tool(command: string, args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string; stdout?: string };
    if (e.code === 'ENOENT') throw new BindToolError(`${command} is not installed (Debian package bind9-utils)`);
    throw new BindToolError(`${command} failed: ${(e.stderr || e.stdout || e.message).trim()}`);
  }
}

/** One record of a zone in BIND's canonical "full" text (one record a line, absolute names). */
export interface CanonicalRecord {
  owner: string;
  ttl: number;
  type: string;
  rdata: string;
}

export function readCanonicalRecords(text: string): CanonicalRecord[] {
  const records: CanonicalRecord[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith(';')) continue;
    const match = /^(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s*(.*)$/.exec(line);
    if (match === null) continue;
    records.push({ owner: match[1].toLowerCase(), ttl: Number(match[2]), type: match[4].toUpperCase(), rdata: match[5].trim() });
  }
  return records;
}

// Scenarios serve broken data on purpose, so every integrity check is off.
const noChecks = [
  '-i',
  'none',
  '-k',
  'ignore',
  '-n',
  'ignore',
  '-m',
  'ignore',
  '-r',
  'ignore',
  '-M',
  'ignore',
  '-S',
  'ignore',
  '-T',
  'ignore',
  '-W',
  'ignore',
];

/** Reads zone text with BIND's own parser and writes it back one record a line. */
export async function compileZone(origin: string, inputPath: string, outputPath: string): Promise<string> {
  await tool('named-compilezone', ['-D', '-s', 'full', ...noChecks, '-o', outputPath, origin, inputPath]);
  return readFile(outputPath, 'utf8');
}

export interface KeyOptions {
  algorithm: string;
  bits?: number;
  ksk: boolean;
}

/** Makes a key pair in keyDir; returns the base name (Kzone.+alg+tag). */
export async function generateKey(origin: string, keyDir: string, options: KeyOptions): Promise<string> {
  const args = ['-q', '-K', keyDir, '-a', options.algorithm, '-n', 'ZONE'];
  if (options.bits !== undefined) args.push('-b', String(options.bits));
  if (options.ksk) args.push('-f', 'KSK');
  args.push(origin);
  return (await tool('dnssec-keygen', args, keyDir)).trim();
}

// dnssec-dsfromkey has -1 and -2 but names SHA-384 (digest type 4) only with -a.
const digestNames: Record<number, string> = { 1: 'SHA-1', 2: 'SHA-256', 4: 'SHA-384' };
const digestOption = (digestType: number): string[] => (digestNames[digestType] ? ['-a', digestNames[digestType]] : [`-${digestType}`]);

/** DS record text ("owner IN DS tag alg type digest") for a key file; with `cds`, a CDS record instead. */
export async function dsFromKey(keyFile: string, digestType: number, cds = false): Promise<string> {
  return (await tool('dnssec-dsfromkey', [...(cds ? ['-C'] : []), ...digestOption(digestType), keyFile])).trim();
}

/** DS record lines (`-A`: for every key, zone key or not) for the DNSKEY records at `origin` in a zone file. */
export async function dsFromZoneFile(zoneFile: string, origin: string, digestType: number): Promise<string[]> {
  return (await tool('dnssec-dsfromkey', ['-A', ...digestOption(digestType), '-f', zoneFile, origin]))
    .split('\n')
    .filter((line) => line.trim() !== '');
}

export interface SignOptions {
  origin: string;
  keyDir: string;
  keyFiles: string[];
  inception: string;
  expiration: string;
  nsec3?: { salt: string; iterations: number; optOut: boolean };
  /** Sign everything with every key (a single combined signing key). */
  allKeysSignAll: boolean;
}

export async function signZone(inputPath: string, outputPath: string, options: SignOptions): Promise<void> {
  // -P: no post-sign verification, so expired or otherwise broken signatures can be made on purpose.
  const args = [
    '-P',
    '-q',
    '-O',
    'full',
    '-K',
    options.keyDir,
    '-d',
    options.keyDir,
    '-o',
    options.origin,
    '-s',
    options.inception,
    '-e',
    options.expiration,
  ];
  if (options.nsec3 !== undefined) {
    args.push('-3', options.nsec3.salt, '-H', String(options.nsec3.iterations));
    if (options.nsec3.optOut) args.push('-A');
  }
  if (options.allKeysSignAll) args.push('-z');
  args.push('-f', outputPath, inputPath, ...options.keyFiles);
  await tool('dnssec-signzone', args);
}
