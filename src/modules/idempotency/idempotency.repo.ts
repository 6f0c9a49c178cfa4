// SQL of Idempotency-Key outcomes (system.idempotency_keys): the per-key lock, the stored first
// answer, and the claim a function call holds while it runs.
import type { Queryable } from '../../core/db.js';

/** One key of one caller on one route. */
export interface KeyId {
  principal: string;
  route: string;
  key: string;
}

export interface StoredOutcome {
  status: number;
  headers: Record<string, string>;
  body: Buffer | null;
}

export interface KeyRow {
  fingerprint: string;
  /** Null while a function call that claimed the key has not answered. */
  outcome: StoredOutcome | null;
  createdAt: Date;
}

interface Row {
  fingerprint: string;
  status: number | null;
  headers: Record<string, string>;
  body: Buffer | null;
  created_at: Date;
}

const toKeyRow = (row: Row): KeyRow => ({
  fingerprint: row.fingerprint,
  outcome: row.status === null ? null : { status: row.status, headers: row.headers, body: row.body },
  createdAt: row.created_at,
});

/**
 * The key's transaction-scoped lock, without waiting: false when another transaction holds it
 * (the same key in flight). A 64-bit hash of the id: a collision only answers a spurious 409.
 */
export async function tryLockKey(tx: Queryable, id: KeyId): Promise<boolean> {
  const [row] = await tx<{ locked: boolean }[]>`
    select pg_try_advisory_xact_lock(hashtextextended(${`${id.principal}\n${id.route}\n${id.key}`}, 0)) as locked`;
  return row?.locked === true;
}

/** The key's row unless it expired by `now`. */
export async function findKey(tx: Queryable, id: KeyId, now: Date): Promise<KeyRow | undefined> {
  const [row] = await tx<Row[]>`
    select fingerprint, status, headers, body, created_at from system.idempotency_keys
    where principal = ${id.principal} and route = ${id.route} and key = ${id.key} and expires_at > ${now}`;
  return row ? toKeyRow(row) : undefined;
}

/** Stores the key's outcome (null: claimed, not answered yet), replacing an expired row. */
export async function saveKey(
  tx: Queryable,
  id: KeyId,
  entry: { fingerprint: string; outcome: StoredOutcome | null; now: Date; expiresAt: Date },
): Promise<void> {
  const { outcome } = entry;
  await tx`
    insert into system.idempotency_keys (principal, route, key, fingerprint, status, headers, body, created_at, expires_at)
    values (${id.principal}, ${id.route}, ${id.key}, ${entry.fingerprint}, ${outcome?.status ?? null},
            ${tx.json(outcome?.headers ?? {})}, ${outcome?.body ?? null}, ${entry.now}, ${entry.expiresAt})
    on conflict (principal, route, key) do update set
      fingerprint = excluded.fingerprint, status = excluded.status, headers = excluded.headers,
      body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at`;
}

/**
 * Deletes up to `limit` keys that expired by `now`, skipping rows another transaction holds: each
 * stored outcome sweeps a few, so the table holds about a day of keys however long it runs.
 */
export async function deleteExpiredKeys(db: Queryable, now: Date, limit: number): Promise<void> {
  await db`
    delete from system.idempotency_keys where ctid = any(array(
      select ctid from system.idempotency_keys where expires_at <= ${now}
      limit ${limit} for update skip locked))`;
}

/**
 * Claims the key for a call that runs outside any transaction (a function): inserted, or taken
 * over when expired or when its claim is older than `staleBefore` (a server that died mid-call).
 * Returns the existing row when the key is held or answered.
 */
export async function claimKey(
  tx: Queryable,
  id: KeyId,
  entry: { fingerprint: string; now: Date; expiresAt: Date; staleBefore: Date },
): Promise<{ claimed: true } | { claimed: false; row: KeyRow | undefined }> {
  const claimed = await tx`
    insert into system.idempotency_keys (principal, route, key, fingerprint, status, created_at, expires_at)
    values (${id.principal}, ${id.route}, ${id.key}, ${entry.fingerprint}, null, ${entry.now}, ${entry.expiresAt})
    on conflict (principal, route, key) do update set
      fingerprint = excluded.fingerprint, status = null, headers = '{}', body = null,
      created_at = excluded.created_at, expires_at = excluded.expires_at
    where idempotency_keys.expires_at <= ${entry.now}
       or (idempotency_keys.status is null and idempotency_keys.created_at < ${entry.staleBefore})
    returning 1`;
  if (claimed.length > 0) return { claimed: true };
  // Undefined only when it went between the two statements: the caller answers "try again".
  return { claimed: false, row: await findKey(tx, id, entry.now) };
}

/** Drops a claim whose call failed before answering, so that a retry runs it. */
export async function releaseClaim(tx: Queryable, id: KeyId, fingerprint: string): Promise<void> {
  await tx`
    delete from system.idempotency_keys
    where principal = ${id.principal} and route = ${id.route} and key = ${id.key}
      and fingerprint = ${fingerprint} and status is null`;
}
