// A world of its own inside a lab namespace for the rollover bench: a signed root (ns.root.) that
// delegates roll. with its DS, roll.'s two servers, and a validating BIND resolver with the root's key
// as trust anchor. Every change is a zone file signed again with dnssec-signzone (explicit keys,
// explicit signature validity) and a SIGHUP, so each step of a rollover happens when the bench says.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

export const ROOT_ADDRESS = '203.0.113.250';
export const CHILD_ADDRESSES = ['203.0.113.251', '203.0.113.252'];
export const VALIDATOR = '203.0.113.253';
export const ZONE = 'roll';

export interface Key {
  file: string;
  tag: number;
  ksk: boolean;
  /** The DNSKEY record as the .key file gives it. */
  record: string;
}

export interface ChildState {
  /** Keys in the DNSKEY set. */
  published: Key[];
  /** Keys that sign: KSKs the DNSKEY set, ZSKs the rest. */
  signing: Key[];
  /** Key tags the parent's DS name. */
  ds: Key[];
  /** Signature validity, seconds since the epoch. */
  inception: number;
  expiration: number;
}

const stamp = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);

export class RolloverWorld {
  readonly dir: string;
  readonly ttl: number;
  readonly dsTtl: number;
  #auth?: ChildProcess;
  #validator?: ChildProcess;
  #rootKeys: Key[] = [];

  constructor(dir: string, ttl: number, dsTtl: number) {
    this.dir = dir;
    this.ttl = ttl;
    this.dsTtl = dsTtl;
    mkdirSync(dir, { recursive: true });
  }

  key(zone: string, ksk: boolean): Key {
    const args = ['-q', '-K', this.dir, '-a', 'ECDSAP256SHA256', '-L', String(this.ttl), ...(ksk ? ['-f', 'KSK'] : []), '-n', 'ZONE', zone];
    const base = execFileSync('dnssec-keygen', args, { encoding: 'utf8' }).trim();
    const record = readFileSync(join(this.dir, `${base}.key`), 'utf8')
      .split('\n')
      .find((line) => line.includes('DNSKEY'));
    if (record === undefined) throw new Error(`no DNSKEY in ${base}.key`);
    return { file: join(this.dir, base), tag: Number(base.split('+').at(-1)), ksk, record };
  }

  async start(child: ChildState): Promise<void> {
    for (const address of [ROOT_ADDRESS, ...CHILD_ADDRESSES, VALIDATOR]) execFileSync('ip', ['addr', 'add', `${address}/32`, 'dev', 'lo']);
    this.#rootKeys = [this.key('.', true), this.key('.', false)];
    this.writeChild(child);
    writeFileSync(join(this.dir, 'hints'), `. 518400 NS ns.root.\nns.root. 518400 A ${ROOT_ADDRESS}\n`);
    const anchor = this.#rootKeys[0].record.split(/\s+/);
    const [flags, protocol, algorithm, ...key] = anchor.slice(anchor.indexOf('DNSKEY') + 1);
    writeFileSync(
      join(this.dir, 'anchors.conf'),
      `trust-anchors {\n  . static-key ${flags} ${protocol} ${algorithm} "${key.join('')}";\n};\n`,
    );
    const common = (name: string) =>
      `  directory "${this.dir}";\n  pid-file none;\n  session-keyfile none;\n  managed-keys-directory "${this.dir}";\n  listen-on-v6 { none; };\n  notify no;\n  dump-file "${this.dir}/${name}.dump";`;
    writeFileSync(
      join(this.dir, 'auth.conf'),
      `options {\n${common('auth')}\n  listen-on { ${ROOT_ADDRESS}; ${CHILD_ADDRESSES.join('; ')}; };\n  recursion no;\n};\n` +
        `view root { match-destinations { ${ROOT_ADDRESS}; }; zone "." { type primary; file "root.signed"; }; };\n` +
        `view roll { match-destinations { ${CHILD_ADDRESSES.join('; ')}; }; zone "${ZONE}" { type primary; file "${ZONE}.signed"; }; };\n`,
    );
    writeFileSync(
      join(this.dir, 'validator.conf'),
      `options {\n${common('validator')}\n  listen-on { ${VALIDATOR}; };\n  recursion yes;\n  allow-query { any; };\n  dnssec-validation yes;\n  qname-minimization off;\n};\n` +
        `include "${this.dir}/anchors.conf";\nzone "." { type hint; file "${this.dir}/hints"; };\n`,
    );
    this.#auth = this.#named('auth');
    this.#validator = this.#named('validator');
    await delay(1500);
    if (this.#auth.exitCode !== null || this.#validator.exitCode !== null)
      throw new Error(`named did not start; its logs are auth.log and validator.log in ${this.dir}`);
  }

  /**
   * named in the foreground, its log in a file of the world: a pipe nobody reads fills once the validator has logged
   * enough failed validations, and named then stops answering while it waits to write.
   */
  #named(name: string): ChildProcess {
    const log = openSync(join(this.dir, `${name}.log`), 'w');
    try {
      return spawn('named', ['-g', '-n', '1', '-c', join(this.dir, `${name}.conf`)], { stdio: ['ignore', 'ignore', log] });
    } finally {
      closeSync(log);
    }
  }

  /** Signs roll. as `child` says and the root with roll.'s DS as `child.ds` says; the servers load both. */
  writeChild(child: ChildState): void {
    const now = Math.floor(Date.now() / 1000);
    const zoneText = [
      `$TTL ${this.ttl}`,
      `@ SOA ns1.${ZONE}. hostmaster.${ZONE}. ${now} 60 60 600 ${this.ttl}`,
      '@ NS ns1',
      '@ NS ns2',
      `ns1 A ${CHILD_ADDRESSES[0]}`,
      `ns2 A ${CHILD_ADDRESSES[1]}`,
      'www A 192.0.2.80',
      ...child.published.map((k) => k.record),
      '',
    ].join('\n');
    writeFileSync(join(this.dir, `${ZONE}.db`), zoneText);
    const ksks = child.signing.filter((k) => k.ksk).flatMap((k) => ['-k', k.file]);
    const zsks = child.signing.filter((k) => !k.ksk).map((k) => k.file);
    execFileSync(
      'dnssec-signzone',
      [
        '-q',
        '-P',
        '-x',
        '-O',
        'full',
        '-N',
        'unixtime',
        '-s',
        stamp(child.inception),
        '-e',
        stamp(child.expiration),
        '-o',
        `${ZONE}.`,
        '-f',
        join(this.dir, `${ZONE}.signed`),
        ...ksks,
        join(this.dir, `${ZONE}.db`),
        ...zsks,
      ],
      { cwd: this.dir },
    );
    const ds = child.ds
      .map((k) => execFileSync('dnssec-dsfromkey', ['-2', '-T', String(this.dsTtl), `${k.file}.key`], { encoding: 'utf8' }).trim())
      .join('\n');
    writeFileSync(
      join(this.dir, 'root.db'),
      [
        '$TTL 86400',
        `. SOA ns.root. hostmaster.root. ${now} 1800 900 604800 ${this.ttl}`,
        '. NS ns.root.',
        `ns.root. A ${ROOT_ADDRESS}`,
        `${ZONE}. ${this.ttl} NS ns1.${ZONE}.`,
        `${ZONE}. ${this.ttl} NS ns2.${ZONE}.`,
        `ns1.${ZONE}. ${this.ttl} A ${CHILD_ADDRESSES[0]}`,
        `ns2.${ZONE}. ${this.ttl} A ${CHILD_ADDRESSES[1]}`,
        ds,
        ...this.#rootKeys.map((k) => k.record),
        '',
      ].join('\n'),
    );
    execFileSync(
      'dnssec-signzone',
      [
        '-q',
        '-P',
        '-O',
        'full',
        '-N',
        'unixtime',
        '-s',
        stamp(now - 3600),
        '-e',
        stamp(now + 86400),
        '-o',
        '.',
        '-f',
        join(this.dir, 'root.signed'),
        '-k',
        this.#rootKeys[0].file,
        join(this.dir, 'root.db'),
        this.#rootKeys[1].file,
      ],
      { cwd: this.dir },
    );
    this.#auth?.kill('SIGHUP');
  }

  async stop(): Promise<void> {
    for (const child of [this.#auth, this.#validator]) child?.kill('SIGTERM');
    await delay(300);
    for (const address of [ROOT_ADDRESS, ...CHILD_ADDRESSES, VALIDATOR]) {
      try {
        execFileSync('ip', ['addr', 'del', `${address}/32`, 'dev', 'lo']);
      } catch {
        // gone with the namespace
      }
    }
  }
}
