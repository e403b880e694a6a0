// The lab's own CA and a certificate per server that offers DoT or DoH, made at each start (so none
// expires unless a scenario asks it to): valid for the server's names, or expired, for another name,
// or self-signed, as its `encrypted.certificate` says.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { CertificateKind } from '../scenario/scenario-format.ts';
import type { LabServer, TlsFiles } from './world-plan.ts';

const day = 86_400_000;
const bare = (name: string): string => name.replace(/\.$/, '');

/** When each kind of certificate is valid, from now. */
function validity(kind: CertificateKind): { notBeforeDate: Date; notAfterDate: Date } {
  const now = Date.now();
  return kind === 'expired'
    ? { notBeforeDate: new Date(now - 60 * day), notAfterDate: new Date(now - 30 * day) }
    : { notBeforeDate: new Date(now - 3600_000), notAfterDate: new Date(now + 90 * day) };
}

async function leaf(names: string[], kind: CertificateKind, ca?: { key: string; cert: string }): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: names[0] }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    ...validity(kind),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: names.map((value) => ({ type: 2, value })) },
    ],
    ...(ca && { ca }),
  });
  return { cert: pems.cert, key: pems.private };
}

export interface LabCertificates {
  caPath: string;
  /** By server name. */
  files: Map<string, TlsFiles>;
}

export async function makeLabCertificates(servers: readonly LabServer[], runDir: string): Promise<LabCertificates | undefined> {
  const wanting = servers.filter((s) => s.encrypted !== undefined);
  if (wanting.length === 0) return undefined;
  const dir = join(runDir, 'tls');
  await mkdir(dir, { recursive: true });
  const ca = await generate([{ name: 'commonName', value: 'DNS lab CA' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 90 * day),
    notAfterDate: new Date(Date.now() + 365 * day),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const caPath = join(dir, 'lab-ca.pem');
  await writeFile(caPath, ca.cert);
  const files = new Map<string, TlsFiles>();
  await Promise.all(
    wanting.map(async (server, index) => {
      const kind = server.encrypted!.certificate;
      const names = kind === 'wrong-name' ? [`not-${bare(server.name)}`] : [bare(server.name)];
      const made = await leaf(names, kind, kind === 'self-signed' ? undefined : { key: ca.private, cert: ca.cert });
      const base = join(dir, `${index}-${bare(server.name).replace(/[^a-z0-9.-]/gi, '_')}`);
      await writeFile(`${base}.pem`, made.cert);
      await writeFile(`${base}.key`, made.key, { mode: 0o600 });
      files.set(server.name, { cert: `${base}.pem`, key: `${base}.key` });
    }),
  );
  return { caPath, files };
}
