// SQL for system.secrets and the platform-keys lock. Writers also signal `plinth_secrets` (NOTIFY,
// delivered on commit) so running servers and the functions runtime pick the change up.
import type { Queryable } from '../../core/db.js';

export const SECRETS_CHANNEL = 'plinth_secrets';

export interface SecretRow {
  key: string;
  valueCiphertext: string;
}

export interface SecretMeta {
  id: string;
  key: string;
  isActive: boolean;
  isReserved: boolean;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const META = `id, key, is_active as "isActive", is_reserved as "isReserved", last_used_at as "lastUsedAt",
  expires_at as "expiresAt", created_at as "createdAt", updated_at as "updatedAt"`;

export async function readActiveSecrets(db: Queryable, keys: string[]): Promise<SecretRow[]> {
  return db<SecretRow[]>`
    select key, value_ciphertext as "valueCiphertext"
    from system.secrets where key = any(${keys}) and is_active`;
}

/** Inserts reserved secrets that do not exist yet; existing ones win. Returns how many were new. */
export async function insertReservedSecrets(db: Queryable, rows: SecretRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await db`
    insert into system.secrets (key, value_ciphertext, is_reserved)
    select k, v, true
    from unnest(${rows.map((r) => r.key)}::text[], ${rows.map((r) => r.valueCiphertext)}::text[]) as t (k, v)
    on conflict (key) do nothing`;
  return inserted.count;
}

/** Stores a retired platform key (reserved) that stops counting at `expiresAt`. */
export async function insertRetiredSecret(
  db: Queryable,
  key: string,
  ciphertext: string,
  expiresAt: Date,
): Promise<void> {
  await db`
    insert into system.secrets (key, value_ciphertext, is_reserved, expires_at)
    values (${key}, ${ciphertext}, true, ${expiresAt})`;
}

/** Serialises writers of the platform's keys (first start, rotations) across servers. */
export async function lockPlatformKeys(db: Queryable): Promise<void> {
  await db`select pg_advisory_xact_lock(hashtext('plinth.platform_keys'))`;
}

/** Tells listeners (servers, the functions runtime) that `key` changed; sent on commit. */
export async function notifySecretChange(db: Queryable, key: string): Promise<void> {
  await db`select pg_notify(${SECRETS_CHANNEL}, ${key})`;
}

export async function listSecrets(db: Queryable): Promise<SecretMeta[]> {
  return db<SecretMeta[]>`select ${db.unsafe(META)} from system.secrets order by created_at desc, key`;
}

export async function findSecretMeta(db: Queryable, key: string): Promise<SecretMeta | undefined> {
  const [row] = await db<SecretMeta[]>`select ${db.unsafe(META)} from system.secrets where key = ${key}`;
  return row;
}

/** The sealed value of an active secret that has not expired at `now`; marks it used. */
export async function useActiveSecret(db: Queryable, key: string, now: Date): Promise<string | undefined> {
  const [row] = await db<{ valueCiphertext: string }[]>`
    update system.secrets set last_used_at = ${now}
    where key = ${key} and is_active and (expires_at is null or expires_at > ${now})
    returning value_ciphertext as "valueCiphertext"`;
  return row?.valueCiphertext;
}

export interface NewSecret {
  key: string;
  valueCiphertext: string;
  isReserved: boolean;
  expiresAt: Date | null;
}

/** Creates the secret, or revives an inactive one of the same key in place; undefined if active. */
export async function createOrRevive(db: Queryable, secret: NewSecret): Promise<string | undefined> {
  const [row] = await db<{ id: string }[]>`
    insert into system.secrets (key, value_ciphertext, is_reserved, expires_at)
    values (${secret.key}, ${secret.valueCiphertext}, ${secret.isReserved}, ${secret.expiresAt})
    on conflict (key) do update set
      value_ciphertext = excluded.value_ciphertext, is_reserved = excluded.is_reserved,
      expires_at = excluded.expires_at, is_active = true, last_used_at = null, updated_at = now()
    where not system.secrets.is_active
    returning id`;
  return row?.id;
}

export interface SecretChanges {
  valueCiphertext?: string;
  isActive?: boolean;
  isReserved?: boolean;
  expiresAt?: Date | null;
}

export async function updateSecret(db: Queryable, key: string, changes: SecretChanges): Promise<void> {
  await db`
    update system.secrets set
      value_ciphertext = coalesce(${changes.valueCiphertext ?? null}, value_ciphertext),
      is_active = coalesce(${changes.isActive ?? null}, is_active),
      is_reserved = coalesce(${changes.isReserved ?? null}, is_reserved),
      expires_at = ${changes.expiresAt === undefined ? db`expires_at` : db`${changes.expiresAt}`},
      updated_at = now()
    where key = ${key}`;
}

/** Renames the active secret `key` to `renamedTo`, expiring at `expiresAt`. */
export async function retireSecret(db: Queryable, key: string, renamedTo: string, expiresAt: Date): Promise<boolean> {
  const rows = await db`
    update system.secrets set key = ${renamedTo}, expires_at = ${expiresAt}, updated_at = now()
    where key = ${key} and is_active`;
  return rows.count === 1;
}

export async function keyExists(db: Queryable, key: string): Promise<boolean> {
  const [row] = await db`select 1 from system.secrets where key = ${key}`;
  return row !== undefined;
}

/** The active API and anon keys, current and retired (`…_OLD_<ms>`, with their expiry). */
export async function readAccessKeyRows(db: Queryable): Promise<(SecretRow & { expiresAt: Date | null })[]> {
  return db<(SecretRow & { expiresAt: Date | null })[]>`
    select key, value_ciphertext as "valueCiphertext", expires_at as "expiresAt"
    from system.secrets
    where is_active and (key in ('API_KEY', 'ANON_KEY')
      or (is_reserved and expires_at is not null
          and (starts_with(key, 'API_KEY_OLD_') or starts_with(key, 'ANON_KEY_OLD_'))))`;
}

/** The retired signing keys (public halves) whose grace period has not ended at `now`. */
export async function readRetiredPublicKeyRows(db: Queryable, now: Date): Promise<(SecretRow & { expiresAt: Date })[]> {
  return db<(SecretRow & { expiresAt: Date })[]>`
    select key, value_ciphertext as "valueCiphertext", expires_at as "expiresAt"
    from system.secrets
    where is_active and is_reserved and starts_with(key, 'JWT_PUBLIC_KEY_OLD_') and expires_at > ${now}`;
}

/**
 * Deletes the retired API/anon keys and signing keys whose grace period has ended (they no longer open anything);
 * run under the platform-keys lock. Returns their names.
 */
export async function purgeExpiredRetiredKeys(db: Queryable, now: Date): Promise<string[]> {
  const rows = await db<{ key: string }[]>`
    delete from system.secrets
    where is_reserved and expires_at is not null and expires_at <= ${now}
      and (starts_with(key, 'API_KEY_OLD_') or starts_with(key, 'ANON_KEY_OLD_')
        or starts_with(key, 'JWT_PUBLIC_KEY_OLD_'))
    returning key`;
  return rows.map((r) => r.key);
}

/** The sealed value of an active secret that has not expired. */
export async function readSealedSecret(db: Queryable, key: string): Promise<string | undefined> {
  const [row] = await db<{ ciphertext: string }[]>`
    select value_ciphertext as ciphertext from system.secrets
    where key = ${key} and is_active and (expires_at is null or expires_at > now())`;
  return row?.ciphertext;
}

/** Creates the reserved secret or replaces (and revives) the stored one. */
export async function upsertReservedSecret(db: Queryable, key: string, ciphertext: string, now: Date): Promise<void> {
  await db`
    insert into system.secrets (key, value_ciphertext, is_reserved, is_active)
    values (${key}, ${ciphertext}, true, true)
    on conflict (key) do update
      set value_ciphertext = excluded.value_ciphertext, is_active = true, is_reserved = true,
          expires_at = null, updated_at = ${now}`;
}

/** Marks an active secret inactive; false when there was none. */
export async function deactivateSecret(db: Queryable, key: string, now: Date): Promise<boolean> {
  const rows = await db`
    update system.secrets set is_active = false, updated_at = ${now}
    where key = ${key} and is_active returning key`;
  return rows.length > 0;
}

/** What the function runtime sees: every active user secret, and the anon key of the reserved ones. */
export async function readFunctionSecrets(db: Queryable, anonKeyName: string): Promise<SecretRow[]> {
  return db<SecretRow[]>`
    select key, value_ciphertext as "valueCiphertext" from system.secrets
    where is_active and (expires_at is null or expires_at > now())
      and (not is_reserved or key = ${anonKeyName})`;
}
