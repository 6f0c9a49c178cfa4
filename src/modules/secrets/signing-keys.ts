// Rotation of the access-token signing key with a JWKS grace period, and the refresh that keeps
// every server's signing and verifying keys current: the rotating server refreshes at once, the
// others on the `plinth_secrets` notification. A retired key keeps only its public half.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { type Queryable, withTx } from '../../core/db.js';
import { generateSigningKey, type SigningKey, signingKeyFromPem } from '../../core/jwt.js';
import type { Keyring } from '../../core/keyring.js';
import type { Deps } from '../../deps.js';
import { RESERVED, RETIRED_PUBLIC_KEY_PREFIX } from './reserved-names.js';
import { followSecretChanges } from './reserved-secrets.service.js';
import {
  insertRetiredSecret,
  keyExists,
  lockPlatformKeys,
  notifySecretChange,
  purgeExpiredRetiredKeys,
  readActiveSecrets,
  readRetiredPublicKeyRows,
  upsertReservedSecret,
} from './secrets.repo.js';

export interface SigningKeys {
  signingKey: SigningKey;
  /** Public keys that verify access tokens, by key id. */
  publicKeys: Map<string, KeyObject>;
  /** Key id → when a retired signing key stops verifying (epoch ms). */
  publicKeyExpiry: Map<string, number>;
}

/** What a retired key's row holds (sealed): its key id and public key. */
interface RetiredPublicKey {
  kid: string;
  publicPem: string;
}

/** The current signing key and every public key that still verifies, from the stored rows. */
export async function readSigningKeys(db: Queryable, keyring: Keyring, now: Date): Promise<SigningKeys> {
  const current = await readActiveSecrets(db, [RESERVED.jwtKeyId, RESERVED.jwtPrivateKey]);
  const retired = await readRetiredPublicKeyRows(db, now);
  const value = (key: string) => {
    const row = current.find((r) => r.key === key);
    if (!row) throw new Error(`Reserved secret ${key} is missing`);
    return keyring.open(row.valueCiphertext);
  };
  const signingKey = signingKeyFromPem(value(RESERVED.jwtKeyId), value(RESERVED.jwtPrivateKey));
  // The current key first (the JWKS lists it first); a retired row never replaces it.
  const publicKeys = new Map<string, KeyObject>([[signingKey.kid, signingKey.publicKey]]);
  const publicKeyExpiry = new Map<string, number>();
  for (const row of retired) {
    const { kid, publicPem } = JSON.parse(keyring.open(row.valueCiphertext)) as RetiredPublicKey;
    if (publicKeys.has(kid)) continue;
    publicKeys.set(kid, createPublicKey(publicPem));
    publicKeyExpiry.set(kid, row.expiresAt.getTime());
  }
  return { signingKey, publicKeys, publicKeyExpiry };
}

const sealedRetiredKey = (keyring: Keyring, keys: SigningKeys): string =>
  keyring.seal(
    JSON.stringify({
      kid: keys.signingKey.kid,
      publicPem: keys.signingKey.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    } satisfies RetiredPublicKey),
  );

export interface SigningKeyService {
  /** A new signing key now; the old one verifies (and stays in the JWKS) for `graceHours`. */
  rotate(graceHours: number): Promise<{ keyId: string; oldKeyExpiresAt: Date }>;
  refresh(): Promise<void>;
  listen(onError: (err: unknown) => void): Promise<void>;
  close(): Promise<void>;
}

export function createSigningKeyService(
  deps: Pick<Deps, 'sql' | 'keyring' | 'clock'> & { keys: SigningKeys },
): SigningKeyService {
  let started = 0;
  let applied = 0;
  let unlisten: (() => Promise<void>) | undefined;

  const refresh = async () => {
    const generation = ++started;
    const keys = await readSigningKeys(deps.sql, deps.keyring, deps.clock.now());
    // A slower, older read must not undo a newer one.
    if (generation < applied) return;
    applied = generation;
    Object.assign(deps.keys, keys);
  };

  return {
    refresh,
    async rotate(graceHours) {
      const now = deps.clock.now();
      const oldKeyExpiresAt = new Date(now.getTime() + graceHours * 3_600_000);
      const fresh = generateSigningKey();
      await withTx(deps.sql, async (tx) => {
        await lockPlatformKeys(tx);
        await purgeExpiredRetiredKeys(tx, now);
        // Read under the lock: a rotation on another server may have changed the key meanwhile.
        const current = await readSigningKeys(tx, deps.keyring, now);
        let stamp = now.getTime();
        while (await keyExists(tx, `${RETIRED_PUBLIC_KEY_PREFIX}${stamp}`)) stamp += 1;
        if (graceHours > 0) {
          const retired = `${RETIRED_PUBLIC_KEY_PREFIX}${stamp}`;
          await insertRetiredSecret(tx, retired, sealedRetiredKey(deps.keyring, current), oldKeyExpiresAt);
        }
        await upsertReservedSecret(tx, RESERVED.jwtPrivateKey, deps.keyring.seal(fresh.privatePem), now);
        await upsertReservedSecret(tx, RESERVED.jwtKeyId, deps.keyring.seal(fresh.kid), now);
        await notifySecretChange(tx, RESERVED.jwtPrivateKey);
      });
      await refresh();
      return { keyId: fresh.kid, oldKeyExpiresAt };
    },
    async listen(onError) {
      const subscription = await followSecretChanges(
        deps.sql,
        (changed) => {
          if (changed === RESERVED.jwtPrivateKey || changed === 'restore') refresh().catch(onError);
        },
        // After a lost connection is listening again, notifications sent meanwhile are lost: reload.
        () => refresh().catch(onError),
      );
      unlisten = subscription.unlisten;
    },
    async close() {
      await unlisten?.();
    },
  };
}
