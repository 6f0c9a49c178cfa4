// SQL for system.secrets.
import type { Queryable } from '../../core/db.js';

export interface SecretRow {
  key: string;
  valueCiphertext: string;
}

export async function readActiveSecrets(db: Queryable, keys: string[]): Promise<SecretRow[]> {
  return db<SecretRow[]>`
    select key, value_ciphertext as "valueCiphertext"
    from system.secrets where key = any(${keys}) and is_active`;
}

/** Inserts reserved secrets that do not exist yet; existing ones win. */
export async function insertReservedSecrets(db: Queryable, rows: SecretRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db`
    insert into system.secrets (key, value_ciphertext, is_reserved)
    select k, v, true
    from unnest(${rows.map((r) => r.key)}::text[], ${rows.map((r) => r.valueCiphertext)}::text[]) as t (k, v)
    on conflict (key) do nothing`;
}
