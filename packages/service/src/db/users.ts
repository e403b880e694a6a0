// Batch-mode accounts. API keys are kept only as salted scrypt hashes.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Kysely } from 'kysely';
import type { ServiceSchema } from './tables.ts';

const derive = promisify(scrypt) as (key: string, salt: Buffer, length: number) => Promise<Buffer>;
const KEY_LENGTH = 32;
const unknownUserHash = `scrypt$${randomBytes(16).toString('base64')}$${randomBytes(KEY_LENGTH).toString('base64')}`;

async function hashApiKey(apiKey: string): Promise<string> {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${(await derive(apiKey, salt, KEY_LENGTH)).toString('base64')}`;
}

async function matches(apiKey: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(apiKey, Buffer.from(salt, 'base64'), expected.length);
  return timingSafeEqual(actual, expected);
}

/** Registers a user; false when the username is taken. */
export async function addUser(db: Kysely<ServiceSchema>, username: string, apiKey: string): Promise<boolean> {
  const api_key_hash = await hashApiKey(apiKey);
  const existing = await db.selectFrom('dh_user').select('id').where('username', '=', username).executeTakeFirst();
  if (existing !== undefined) return false;
  try {
    await db.insertInto('dh_user').values({ username, api_key_hash }).execute();
    return true;
  } catch (error) {
    // Another call registered the same name between our look and our insert.
    const again = await db.selectFrom('dh_user').select('id').where('username', '=', username).executeTakeFirst();
    if (again !== undefined) return false;
    throw error;
  }
}

export async function verifyUser(db: Kysely<ServiceSchema>, username: string, apiKey: string): Promise<boolean> {
  const row = await db.selectFrom('dh_user').select('api_key_hash').where('username', '=', username).executeTakeFirst();
  // An unknown user costs the same hashing time, so response times do not tell which names exist.
  const ok = await matches(apiKey, row?.api_key_hash ?? unknownUserHash);
  return row !== undefined && ok;
}
