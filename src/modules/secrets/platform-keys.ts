// The platform's own credentials, kept as reserved secrets: the API key, the anon key, the
// access-token signing key and (when not given by the environment) the admin password. Created on
// the first start, in one locked transaction so two servers starting together agree. Retired
// API/anon keys (after a rotation) stay accepted until their grace period ends.
import { randomHex, randomToken, sha256 } from '../../core/ids.js';
import { generateSigningKey } from '../../core/jwt.js';
import type { Keyring } from '../../core/keyring.js';
import type { Deps } from '../../deps.js';
import { resealWithPrimaryKey } from './master-key.js';
import { RESERVED } from './reserved-names.js';
import { readSigningKeys, type SigningKeys } from './signing-keys.js';
import {
  insertReservedSecrets,
  lockPlatformKeys,
  purgeExpiredRetiredKeys,
  readAccessKeyRows,
  readActiveSecrets,
  type SecretRow,
} from './secrets.repo.js';

export {
  isPlatformKey,
  isRetiredKeyName,
  isWriteOnlySecret,
  RESERVED,
  RETIRED_PUBLIC_KEY_PREFIX,
} from './reserved-names.js';

export interface PlatformKeys extends SigningKeys {
  apiKey: string;
  anonKey: string;
  /** SHA-256 (hex) of every accepted API key → when it stops working (epoch ms; null: never). */
  apiKeyHashes: Map<string, number | null>;
  anonKeyHashes: Map<string, number | null>;
  /** The admin password when the environment did not set one. */
  storedAdminPassword: string;
  /** Names of the secrets this call created (a first start). */
  created: string[];
}

/** The infrastructure with the platform keys, for the modules that sign, check or show them. */
export type KeyedDeps = Deps & { keys: PlatformKeys };

function generateMissing(present: Set<string>, keyring: Keyring) {
  const fresh: Record<string, string> = {};
  if (!present.has(RESERVED.apiKey)) fresh[RESERVED.apiKey] = `ik_${randomHex(32)}`;
  if (!present.has(RESERVED.anonKey)) fresh[RESERVED.anonKey] = `anon_${randomHex(32)}`;
  if (!present.has(RESERVED.jwtPrivateKey)) {
    const key = generateSigningKey();
    fresh[RESERVED.jwtPrivateKey] = key.privatePem;
    fresh[RESERVED.jwtKeyId] = key.kid;
  }
  if (!present.has(RESERVED.adminPassword)) fresh[RESERVED.adminPassword] = randomToken(18);
  return Object.entries(fresh).map(([key, value]) => ({ key, valueCiphertext: keyring.seal(value) }));
}

/**
 * Loads the platform keys, creating the missing ones (first start); retired keys expired by now
 * are deleted and every value is resealed under the primary master key. Called once per server
 * start, before the app is built (main.ts, app.ts).
 */
export async function loadPlatformKeys(deps: Pick<Deps, 'sql' | 'keyring' | 'clock'>): Promise<PlatformKeys> {
  const { sql, keyring } = deps;
  const now = deps.clock.now();
  const names = Object.values(RESERVED);
  const { rows, created } = await sql.begin(async (tx) => {
    await lockPlatformKeys(tx);
    await purgeExpiredRetiredKeys(tx, now);
    await resealWithPrimaryKey(tx, keyring);
    const existing = await readActiveSecrets(tx, names);
    const missing = generateMissing(new Set(existing.map((r) => r.key)), keyring);
    await insertReservedSecrets(tx, missing);
    return { rows: [...existing, ...missing], created: missing.map((m) => m.key) };
  });
  const value = (key: string): string => {
    const row = rows.find((r) => r.key === key);
    if (!row) throw new Error(`Reserved secret ${key} is missing`);
    return keyring.open(row.valueCiphertext);
  };
  return {
    ...accessKeysFrom(await readAccessKeyRows(sql), keyring),
    ...(await readSigningKeys(sql, keyring, now)),
    storedAdminPassword: value(RESERVED.adminPassword),
    created,
  };
}

export type AccessKeys = Pick<PlatformKeys, 'apiKey' | 'anonKey' | 'apiKeyHashes' | 'anonKeyHashes'>;

/** The current API/anon keys and the hashes of every accepted one, from their stored rows. */
export function accessKeysFrom(rows: (SecretRow & { expiresAt: Date | null })[], keyring: Keyring): AccessKeys {
  const keys: AccessKeys = { apiKey: '', anonKey: '', apiKeyHashes: new Map(), anonKeyHashes: new Map() };
  for (const row of rows) {
    const plain = keyring.open(row.valueCiphertext);
    const isApi = row.key.startsWith(RESERVED.apiKey);
    (isApi ? keys.apiKeyHashes : keys.anonKeyHashes).set(
      sha256(plain).toString('hex'),
      row.expiresAt?.getTime() ?? null,
    );
    if (row.key === RESERVED.apiKey) keys.apiKey = plain;
    if (row.key === RESERVED.anonKey) keys.anonKey = plain;
  }
  if (!keys.apiKey || !keys.anonKey) throw new Error('The API key or anon key is missing');
  return keys;
}
