// Rotation of the API key and anon key with a grace period, and the refresh that keeps every
// server's accepted keys current: the rotating server refreshes at once, the others on the
// `plinth_secrets` notification.
import { withTx } from '../../core/db.js';
import { randomHex } from '../../core/ids.js';
import { accessKeysFrom, type KeyedDeps, RESERVED } from './platform-keys.js';
import {
  insertReservedSecrets,
  keyExists,
  lockPlatformKeys,
  notifySecretChange,
  purgeExpiredRetiredKeys,
  readAccessKeyRows,
  retireSecret,
} from './secrets.repo.js';
import { followSecretChanges } from './reserved-secrets.service.js';

export type AccessKeyKind = 'api' | 'anon';

const NAMES = { api: RESERVED.apiKey, anon: RESERVED.anonKey } as const;
const PREFIXES = { api: 'ik_', anon: 'anon_' } as const;

type KeyDeps = Pick<KeyedDeps, 'sql' | 'keyring' | 'keys' | 'clock'>;

export interface AccessKeyService {
  /** A new key now; the old one keeps working for `graceHours`. */
  rotate(kind: AccessKeyKind, graceHours: number): Promise<{ key: string; oldKeyExpiresAt: Date }>;
  /** Reloads the accepted keys from the database. */
  refresh(): Promise<void>;
  /** Starts following other servers' changes; `onError` hears a refresh that failed. */
  listen(onError: (err: unknown) => void): Promise<void>;
  close(): Promise<void>;
}

export function createAccessKeyService(deps: KeyDeps): AccessKeyService {
  let started = 0;
  let applied = 0;
  let unlisten: (() => Promise<void>) | undefined;

  const refresh = async () => {
    const generation = ++started;
    const keys = accessKeysFrom(await readAccessKeyRows(deps.sql), deps.keyring);
    // A slower, older read must not undo a newer one.
    if (generation < applied) return;
    applied = generation;
    Object.assign(deps.keys, keys);
  };

  return {
    refresh,
    async rotate(kind, graceHours) {
      const name = NAMES[kind];
      const now = deps.clock.now();
      const oldKeyExpiresAt = new Date(now.getTime() + graceHours * 3_600_000);
      const key = `${PREFIXES[kind]}${randomHex(32)}`;
      await withTx(deps.sql, async (tx) => {
        await lockPlatformKeys(tx);
        await purgeExpiredRetiredKeys(tx, now);
        let stamp = now.getTime();
        while (await keyExists(tx, `${name}_OLD_${stamp}`)) stamp += 1;
        if (!(await retireSecret(tx, name, `${name}_OLD_${stamp}`, oldKeyExpiresAt))) {
          throw new Error(`Reserved secret ${name} is missing`);
        }
        await insertReservedSecrets(tx, [{ key: name, valueCiphertext: deps.keyring.seal(key) }]);
        await notifySecretChange(tx, name);
      });
      await refresh();
      return { key, oldKeyExpiresAt };
    },
    async listen(onError) {
      const subscription = await followSecretChanges(
        deps.sql,
        (changed) => {
          // After a restore too: the keys it kept are the current ones, reloaded like after a rotation.
          if (changed === NAMES.api || changed === NAMES.anon || changed === 'restore') refresh().catch(onError);
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
