// Fields kept encrypted at rest (AES-256-GCM). The key is derived from the server's auth key, so a
// copy of the database alone does not reveal them.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';

export interface FieldCipher {
  encrypt(plain: string): string;
  /** The plain text, or undefined when the value was not encrypted with this key. */
  decrypt(stored: string): string | undefined;
}

function isEncrypted(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

export function fieldCipher(serverKey: Uint8Array): FieldCipher {
  const key = Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), 'store field encryption v1', 32));
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return PREFIX + [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url')).join(':');
    },
    decrypt(stored) {
      if (!isEncrypted(stored)) return undefined;
      const [iv, body, tag] = stored
        .slice(PREFIX.length)
        .split(':')
        .map((part) => Buffer.from(part, 'base64url'));
      if (iv === undefined || body === undefined || tag === undefined || iv.length !== 12 || tag.length !== 16) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
