// Master-key rotation: at startup, every sealed value whose envelope names another key than the
// primary one (PLINTH_ENCRYPTION_KEY) is opened with the previous key and sealed again.
import type { Queryable } from '../../core/db.js';
import type { Keyring } from '../../core/keyring.js';

/** Every column that holds keyring envelopes, with the column that identifies its rows. */
const SEALED_COLUMNS = [
  { table: 'system.secrets', id: 'id', column: 'value_ciphertext' },
  { table: 'auth.oauth_configs', id: 'provider', column: 'client_secret_ciphertext' },
  { table: 'auth.custom_oauth_configs', id: 'key', column: 'client_secret_ciphertext' },
  { table: 'email.smtp_config', id: 'id', column: 'password_ciphertext' },
] as const;

/** The key id an envelope (`v1:<keyId>:…`) names. */
export const envelopeKeyId = (envelope: string): string => envelope.split(':')[1] ?? '';

/**
 * Re-seals, under the primary key, every value sealed with another key. Runs inside the startup
 * transaction that holds the platform-keys lock; values do not change, so nobody is notified.
 * Returns how many values were re-sealed.
 */
export async function resealWithPrimaryKey(tx: Queryable, keyring: Keyring): Promise<number> {
  const primaryPrefix = `v1:${envelopeKeyId(keyring.seal(''))}:`;
  let count = 0;
  for (const { table, id, column } of SEALED_COLUMNS) {
    const stale = await tx.unsafe<{ id: string; sealed: string }[]>(
      `select ${id}::text as id, ${column} as sealed from ${table}
       where ${column} is not null and ${column} <> '' and not starts_with(${column}, $1) for update`,
      [primaryPrefix],
    );
    if (stale.length === 0) continue;
    const resealed = stale.map((row) => {
      try {
        return keyring.seal(keyring.open(row.sealed));
      } catch (err) {
        throw new Error(
          `A value in ${table}.${column} is sealed with encryption key id ${envelopeKeyId(row.sealed)}, ` +
            'which is not configured: put that key in PLINTH_PREVIOUS_ENCRYPTION_KEYS.',
          { cause: err },
        );
      }
    });
    await tx.unsafe(
      `update ${table} set ${column} = t.sealed from unnest($1::text[], $2::text[]) as t (id, sealed)
       where ${table}.${id}::text = t.id`,
      [stale.map((r) => r.id), resealed],
    );
    count += stale.length;
  }
  return count;
}
