// What other modules keep in, and hear from, the secret store: reserved secrets of their own
// (the processor's keys, say) sealed by the caller's keyring, the environment the function runtime
// sees, and the `plinth_secrets` signal every write sends on commit.
import type { Queryable, Sql } from '../../core/db.js';
import type { Keyring } from '../../core/keyring.js';
import { isWriteOnlySecret, RESERVED } from './reserved-names.js';
import * as repo from './secrets.repo.js';

/** The sealed value of an active, unexpired secret; undefined when there is none. */
export const readSealedSecret = (db: Queryable, key: string): Promise<string | undefined> =>
  repo.readSealedSecret(db, key);

/**
 * The sealed values of the active secrets among `keys`, by key (absent keys are left out). For
 * values a caller chooses by name (schedule headers), so platform credentials are left out too.
 */
export async function readSealedSecrets(db: Queryable, keys: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(keys)].filter((key) => !isWriteOnlySecret(key));
  const rows = wanted.length === 0 ? [] : await repo.readActiveSecrets(db, wanted);
  return new Map(rows.map((row) => [row.key, row.valueCiphertext]));
}

/** Creates or replaces a reserved secret (sealed by the caller) and tells every listener. */
export async function writeReservedSecret(db: Queryable, key: string, ciphertext: string, now: Date): Promise<void> {
  await repo.upsertReservedSecret(db, key, ciphertext, now);
  await repo.notifySecretChange(db, key);
}

/** Stores a reserved secret only when none is stored yet (a first-start seed); true when it did. */
export async function seedReservedSecret(db: Queryable, key: string, ciphertext: string): Promise<boolean> {
  const seeded = (await repo.insertReservedSecrets(db, [{ key, valueCiphertext: ciphertext }])) > 0;
  if (seeded) await repo.notifySecretChange(db, key);
  return seeded;
}

/** Deactivates a secret and tells every listener; false when it was not active. */
export async function deactivateSecret(db: Queryable, key: string, now: Date): Promise<boolean> {
  const changed = await repo.deactivateSecret(db, key, now);
  if (changed) await repo.notifySecretChange(db, key);
  return changed;
}

/** The environment of the function runtime: user secrets and the anon key, opened. */
export async function readFunctionEnvironment(db: Queryable, keyring: Keyring): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const row of await repo.readFunctionSecrets(db, RESERVED.anonKey))
    env[row.key] = keyring.open(row.valueCiphertext);
  return env;
}

/**
 * Calls `onChange` with the name of every secret that changes, on any server. `onReconnect` runs
 * once the listening connection is back after a loss (notifications sent meanwhile are lost).
 */
export async function followSecretChanges(
  sql: Sql,
  onChange: (key: string) => void,
  onReconnect?: () => void,
): Promise<{ unlisten(): Promise<void> }> {
  let subscribed = false;
  const subscription = await sql.listen(repo.SECRETS_CHANNEL, onChange, () => {
    if (subscribed) onReconnect?.();
    subscribed = true;
  });
  return { unlisten: () => subscription.unlisten() };
}
