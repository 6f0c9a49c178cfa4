// AES-256-GCM envelopes for secrets at rest. Each envelope names the key that sealed it, so the
// master key can rotate: new data is sealed with the primary key, old data still opens.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export interface Keyring {
  seal(plaintext: string): string;
  open(envelope: string): string;
}

const keyIdOf = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 12);

/** `primary` seals; every key (primary and previous) can open what it sealed. */
export function createKeyring(primary: Buffer, previous: Buffer[] = []): Keyring {
  for (const key of [primary, ...previous]) {
    if (key.length !== 32) throw new Error('Encryption keys must be 32 bytes');
  }
  const primaryId = keyIdOf(primary);
  const keys = new Map([primary, ...previous].map((k) => [keyIdOf(k), k] as const));

  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', primary, iv);
      cipher.setAAD(Buffer.from(`${VERSION}:${primaryId}`));
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url'));
      return [VERSION, primaryId, ...parts].join(':');
    },
    open(envelope) {
      const [version, keyId, iv, tag, data] = envelope.split(':');
      if (version !== VERSION || !keyId || iv === undefined || !tag || data === undefined) {
        throw new Error('Not a sealed envelope');
      }
      const key = keys.get(keyId);
      if (!key) throw new Error(`No encryption key with id ${keyId} is configured`);
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(`${version}:${keyId}`));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
