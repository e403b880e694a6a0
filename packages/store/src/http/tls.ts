// The certificate the API serves: the configured one, or a self-signed one made on first start and kept.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface TlsMaterial {
  key: string;
  cert: string;
  /** True when this start made the certificate. */
  created: boolean;
}

export async function loadOrCreateCertificate(options: { dataDir: string; certFile?: string; keyFile?: string }): Promise<TlsMaterial> {
  if (options.certFile !== undefined || options.keyFile !== undefined) {
    if (options.certFile === undefined || options.keyFile === undefined)
      throw new Error('Give both a TLS certificate and its key, or neither');
    return { cert: readFileSync(options.certFile, 'utf8'), key: readFileSync(options.keyFile, 'utf8'), created: false };
  }
  const dir = join(options.dataDir, 'tls');
  const certFile = join(dir, 'store-cert.pem');
  const keyFile = join(dir, 'store-key.pem');
  if (existsSync(certFile) && existsSync(keyFile))
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), created: false };
  const now = new Date();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + 825 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  writeFileSync(certFile, pems.cert);
  return { cert: pems.cert, key: pems.private, created: true };
}
