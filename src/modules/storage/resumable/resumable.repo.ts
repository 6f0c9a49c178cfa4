// SQL of resumable uploads: their rows (storage.resumable_uploads) and the session-level advisory
// locks that keep two requests, on any server, off one upload.
import type { Queryable } from '../../../core/db.js';

export interface ResumableRow {
  id: string;
  bucket: string;
  key: string;
  upload_length: string | number;
  mime_type: string;
  cache_control: string | null;
  upsert: boolean;
  created_by: string;
  created_at: Date;
  expires_at: Date;
}

export interface NewResumable {
  id: string;
  bucket: string;
  key: string;
  uploadLength: number;
  mimeType: string;
  cacheControl: string | null;
  upsert: boolean;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertResumable(db: Queryable, u: NewResumable): Promise<void> {
  await db`insert into storage.resumable_uploads
      (id, bucket, key, upload_length, mime_type, cache_control, upsert, created_by, created_at, expires_at)
    values (${u.id}, ${u.bucket}, ${u.key}, ${u.uploadLength}, ${u.mimeType}, ${u.cacheControl}, ${u.upsert},
      ${u.createdBy}, ${u.createdAt}, ${u.expiresAt})`;
}

export async function findResumable(db: Queryable, id: string): Promise<ResumableRow | undefined> {
  const [row] = await db<ResumableRow[]>`
    select id, bucket, key, upload_length, mime_type, cache_control, upsert, created_by, created_at, expires_at
    from storage.resumable_uploads where id = ${id}`;
  return row;
}

/** Deletes the upload's row; false when it was gone already. */
export async function deleteResumable(db: Queryable, id: string): Promise<boolean> {
  const rows = await db`delete from storage.resumable_uploads where id = ${id} returning id`;
  return rows.length > 0;
}

/** Claims the row in the transaction that writes the object row (any role); false when gone. */
export async function claimResumable(db: Queryable, id: string): Promise<boolean> {
  const [row] = await db<{ claimed: boolean }[]>`select storage.claim_resumable_upload(${id}) as claimed`;
  return row!.claimed;
}

/** Uploads that expired at or before `now`, oldest first. */
export async function expiredResumables(db: Queryable, now: Date): Promise<string[]> {
  const rows = await db<{ id: string }[]>`
    select id from storage.resumable_uploads where expires_at <= ${now} order by expires_at limit 200`;
  return rows.map((r) => r.id);
}

// ---- locks (session-level, on the locker's own reserved connection)

/** The upload's lock key: 64 bits of its id's MD5, apart from every other advisory lock user. */
const lockKey = (id: string) => `resumable-upload:${id}`;

/** Takes the upload's lock for this session if nobody holds it; true when taken. */
export async function tryLockUpload(db: Queryable, id: string): Promise<boolean> {
  const [row] = await db<{ locked: boolean }[]>`
    select pg_try_advisory_lock(('x' || substr(md5(${lockKey(id)}), 1, 16))::bit(64)::bigint) as locked`;
  return row!.locked;
}

export async function unlockUpload(db: Queryable, id: string): Promise<void> {
  await db`select pg_advisory_unlock(('x' || substr(md5(${lockKey(id)}), 1, 16))::bit(64)::bigint)`;
}

/** Asks whichever server holds the upload's lock to let go of it (LISTENed by every locker). */
export async function requestUnlock(db: Queryable, channel: string, id: string): Promise<void> {
  await db`select pg_notify(${channel}, ${id})`;
}
