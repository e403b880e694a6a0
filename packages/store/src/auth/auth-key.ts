// The server key that app secrets, authorization codes and CSRF tokens derive from.
// From STORE_AUTH_KEY (64 hex digits) or a key file made on first start, readable by its owner only.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export class AuthKeyError extends Error {
  override name = 'AuthKeyError';
}

function parseKey(text: string, where: string): Uint8Array {
  const hex = text.trim();
  if (!/^[0-9a-fA-F]{64,}$/.test(hex) || hex.length % 2 !== 0)
    throw new AuthKeyError(`${where} must hold at least 64 hex digits (32 bytes)`);
  return Buffer.from(hex, 'hex');
}

export function loadAuthKey(options: { env?: NodeJS.ProcessEnv; file: string }): Uint8Array {
  const fromEnv = (options.env ?? process.env).STORE_AUTH_KEY;
  if (fromEnv !== undefined && fromEnv !== '') return parseKey(fromEnv, 'STORE_AUTH_KEY');
  try {
    return parseKey(readFileSync(options.file, 'utf8'), options.file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(options.file), { recursive: true });
  const key = randomBytes(32);
  // 'wx' fails if another process made the file first; then theirs wins.
  try {
    writeFileSync(options.file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return parseKey(readFileSync(options.file, 'utf8'), options.file);
    throw error;
  }
}
