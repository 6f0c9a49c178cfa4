// SQL for storage.*: buckets, object rows (run in the caller's scope where row-level security
// applies), the bookkeeping of blobs (pending, orphaned, posted directly), settings, S3 access keys.
import type { Queryable } from '../../core/db.js';

export interface BucketRow {
  name: string;
  public: boolean;
  /** Per-bucket upload limits (Supabase's bucket settings); null: none. */
  file_size_limit: string | number | null;
  allowed_mime_types: string[] | null;
}

export interface ObjectRow {
  bucket: string;
  key: string;
  blob_id: string;
  size: string | number;
  mime_type: string;
  etag: string;
  updated_at: Date;
  id: string;
  cache_control: string | null;
  uploaded_by: string | null;
  created_at: Date;
}

// A type alias (not an interface), so that it is JSON for the driver.
export type ObjectTag = { Key: string; Value: string };

export interface RowInput {
  bucket: string;
  key: string;
  blobId: string;
  size: number;
  mimeType: string;
  etag: string;
  via?: 'rest' | 's3';
  tags?: ObjectTag[];
  cacheControl?: string | null;
  /** Who the row names as uploader; the caller (auth.uid()) when absent. */
  owner?: string | null;
}

export interface ObjectPage {
  prefix?: string;
  search?: string;
  limit: number;
  offset: number;
}

/** A LIKE pattern for keys starting with `prefix` (its own %, _ and \ taken literally). */
export const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

// ---- buckets

export async function findBucket(db: Queryable, name: string): Promise<BucketRow | undefined> {
  const [bucket] = await db<
    BucketRow[]
  >`select name, public, file_size_limit, allowed_mime_types from storage.buckets where name = ${name}`;
  return bucket;
}

export type FullBucketRow = BucketRow & { owner: string | null; created_at: Date; updated_at: Date };

export async function listBuckets(db: Queryable): Promise<FullBucketRow[]> {
  return db<FullBucketRow[]>`
    select name, public, file_size_limit, allowed_mime_types, owner, created_at, updated_at
    from storage.buckets order by name`;
}

/** Every bucket with its object count. */
export async function listBucketSummaries(db: Queryable) {
  return db<{ name: string; public: boolean; objectCount: number }[]>`
    select b.name, b.public, (select count(*)::int from storage.objects o where o.bucket = b.name) as "objectCount"
    from storage.buckets b order by b.name`;
}

/** False when a bucket of that name exists already. */
export async function insertBucket(db: Queryable, name: string, isPublic: boolean): Promise<boolean> {
  const rows =
    await db`insert into storage.buckets (name, public) values (${name}, ${isPublic}) on conflict do nothing returning name`;
  return rows.length > 0;
}

export async function bucketHasObjects(db: Queryable, bucket: string): Promise<boolean> {
  const [any] = await db`select 1 from storage.objects where bucket = ${bucket} limit 1`;
  return any !== undefined;
}

/** The bucket's S3 CORS configuration (JSON text); null when none is set. */
export async function findBucketCors(db: Queryable, bucket: string): Promise<string | null> {
  const [row] = await db<{ s3_cors: string | null }[]>`select s3_cors from storage.buckets where name = ${bucket}`;
  return row?.s3_cors ?? null;
}

export async function setBucketCors(db: Queryable, bucket: string, cors: string | null): Promise<void> {
  await db`update storage.buckets set s3_cors = ${cors} where name = ${bucket}`;
}

export interface BucketLimits {
  fileSizeLimit: number | null;
  allowedMimeTypes: string[] | null;
}

/** Sets the bucket's visibility and, when given, its upload limits; false when there is no such bucket. */
export async function updateBucketSettings(
  db: Queryable,
  name: string,
  isPublic: boolean,
  limits?: BucketLimits,
): Promise<boolean> {
  const rows = limits
    ? await db`update storage.buckets set public = ${isPublic}, file_size_limit = ${limits.fileSizeLimit},
        allowed_mime_types = ${limits.allowedMimeTypes}, updated_at = now() where name = ${name} returning name`
    : await db`update storage.buckets set public = ${isPublic}, updated_at = now() where name = ${name} returning name`;
  return rows.length > 0;
}

/** Sets the upload limits of a bucket just made. */
export async function setBucketLimits(db: Queryable, name: string, limits: BucketLimits): Promise<void> {
  await db`update storage.buckets set file_size_limit = ${limits.fileSizeLimit},
    allowed_mime_types = ${limits.allowedMimeTypes} where name = ${name}`;
}

/** Deletes every object row of the bucket (their blobs go as orphans). */
export async function deleteAllObjects(db: Queryable, bucket: string): Promise<void> {
  await db`delete from storage.objects where bucket = ${bucket}`;
}

/** False when there is no such bucket. */
export async function setBucketPublic(db: Queryable, name: string, isPublic: boolean): Promise<boolean> {
  const rows = await db`update storage.buckets set public = ${isPublic} where name = ${name} returning name`;
  return rows.length > 0;
}

/** Deletes the bucket and (by cascade) its object rows; false when there is no such bucket. */
export async function deleteBucket(db: Queryable, name: string): Promise<boolean> {
  const rows = await db`delete from storage.buckets where name = ${name} returning name`;
  return rows.length > 0;
}

// ---- objects

/** Creates or replaces the row of (bucket, key); a replaced blob is noted as an orphan by a trigger. */
export async function upsertObject(db: Queryable, r: RowInput): Promise<ObjectRow> {
  const [written] = await db<ObjectRow[]>`
    insert into storage.objects (bucket, key, blob_id, size, mime_type, etag, uploaded_via, tags, cache_control, uploaded_by)
    values (${r.bucket}, ${r.key}, ${r.blobId}, ${r.size}, ${r.mimeType}, ${r.etag}, ${r.via ?? 'rest'}, ${db.json(r.tags ?? [])},
      ${r.cacheControl ?? null}, coalesce(${r.owner ?? null}::uuid, auth.uid()))
    on conflict (bucket, key) do update set
      blob_id = excluded.blob_id, size = excluded.size, mime_type = excluded.mime_type,
      etag = excluded.etag, uploaded_via = excluded.uploaded_via, tags = excluded.tags,
      cache_control = excluded.cache_control, updated_at = now()
    returning bucket, key, blob_id, size, mime_type, etag, updated_at, id, cache_control, uploaded_by, created_at`;
  return written!;
}

/** Creates the row of (bucket, key); a row there already is a unique violation (23505). */
export async function insertObject(db: Queryable, r: RowInput): Promise<ObjectRow> {
  const [written] = await db<ObjectRow[]>`
    insert into storage.objects (bucket, key, blob_id, size, mime_type, etag, uploaded_via, tags, cache_control, uploaded_by)
    values (${r.bucket}, ${r.key}, ${r.blobId}, ${r.size}, ${r.mimeType}, ${r.etag}, ${r.via ?? 'rest'}, ${db.json(r.tags ?? [])},
      ${r.cacheControl ?? null}, coalesce(${r.owner ?? null}::uuid, auth.uid()))
    returning bucket, key, blob_id, size, mime_type, etag, updated_at, id, cache_control, uploaded_by, created_at`;
  return written!;
}

/** Renames an object (to another bucket too); undefined when the caller sees no such source. */
export async function moveObject(
  db: Queryable,
  from: { bucket: string; key: string },
  to: { bucket: string; key: string },
): Promise<ObjectRow | undefined> {
  const [moved] = await db<ObjectRow[]>`
    update storage.objects set bucket = ${to.bucket}, key = ${to.key}, updated_at = now()
    where bucket = ${from.bucket} and key = ${from.key}
    returning bucket, key, blob_id, size, mime_type, etag, updated_at, id, cache_control, uploaded_by, created_at`;
  return moved;
}

export async function findObject(db: Queryable, bucket: string, key: string): Promise<ObjectRow | undefined> {
  const [row] = await db<ObjectRow[]>`
    select bucket, key, blob_id, size, mime_type, etag, updated_at, id, cache_control, uploaded_by, created_at
    from storage.objects where bucket = ${bucket} and key = ${key}`;
  return row;
}

/** One page of a bucket's objects by key, each row with the total count of matches. */
export async function listObjects(
  db: Queryable,
  bucket: string,
  q: ObjectPage,
): Promise<(ObjectRow & { total: string })[]> {
  return db<(ObjectRow & { total: string })[]>`
    select bucket, key, blob_id, size, mime_type, etag, updated_at, id, cache_control, uploaded_by, created_at, count(*) over () as total
    from storage.objects
    where bucket = ${bucket}
      and key like ${likePrefix(q.prefix ?? '')}
      and (${q.search ?? null}::text is null or strpos(key, ${q.search ?? null}::text) > 0)
    order by key limit ${q.limit} offset ${q.offset}`;
}

export interface ListedKey {
  key: string;
  size: string;
  etag: string;
  updated_at: Date;
}

/** Up to 1000 keys starting with `prefix` after `cursor`, in byte order (collation "C"), as S3 sorts. */
export async function listKeysAfter(db: Queryable, bucket: string, prefix: string, cursor: string) {
  return db<ListedKey[]>`
    select key, size, etag, updated_at from storage.objects
    where bucket = ${bucket} and key like ${likePrefix(prefix)} and key collate "C" > ${cursor}
    order by key collate "C" limit 1000`;
}

/** The object's tags; none when there is no such object. */
export async function findObjectTags(db: Queryable, bucket: string, key: string): Promise<ObjectTag[]> {
  const [row] = await db<
    { tags: ObjectTag[] }[]
  >`select tags from storage.objects where bucket = ${bucket} and key = ${key}`;
  return row?.tags ?? [];
}

export async function setObjectTags(db: Queryable, bucket: string, key: string, tags: ObjectTag[]): Promise<void> {
  await db`update storage.objects set tags = ${db.json(tags)} where bucket = ${bucket} and key = ${key}`;
}

/** Deletes the rows of `keys` the caller may delete; answers the keys deleted. */
export async function deleteObjects(db: Queryable, bucket: string, keys: string[]): Promise<string[]> {
  const rows = await db<{ key: string }[]>`
    delete from storage.objects where bucket = ${bucket} and key = any(${keys}) returning key`;
  return rows.map((r) => r.key);
}

// ---- blobs

/** Notes a blob about to be written, so that bytes whose row never comes are found again. */
export async function notePendingBlob(db: Queryable, blobId: string): Promise<void> {
  await db`insert into storage.pending_blobs (blob_id) values (${blobId})`;
}

export async function forgetPendingBlobs(db: Queryable, blobIds: string[]): Promise<void> {
  await db`delete from storage.pending_blobs where blob_id = any(${blobIds})`;
}

/** Blobs noted as pending for more than an hour: their write never reached its row. */
export async function abandonedBlobs(db: Queryable): Promise<string[]> {
  const rows = await db<{ blob_id: string }[]>`
    select blob_id from storage.pending_blobs where created_at < now() - interval '1 hour' limit 500`;
  return rows.map((r) => r.blob_id);
}

/** Marks a pending blob as referenced, in the transaction that writes its row. */
export async function claimBlob(db: Queryable, blobId: string): Promise<void> {
  await db`select storage.claim_blob(${blobId})`;
}

/** Blobs of replaced and deleted objects (noted by a trigger), oldest first. */
export async function orphanBlobs(db: Queryable): Promise<string[]> {
  const rows = await db<{ blob_id: string }[]>`select blob_id from storage.orphan_blobs order by created_at limit 500`;
  return rows.map((r) => r.blob_id);
}

export async function forgetOrphanBlobs(db: Queryable, blobIds: string[]): Promise<void> {
  await db`delete from storage.orphan_blobs where blob_id = any(${blobIds})`;
}

/** Multipart uploads nobody completed or aborted in a week (their parts' blobs go as orphans). */
export async function deleteStaleMultipartUploads(db: Queryable): Promise<void> {
  await db`delete from storage.s3_multipart_uploads where created_at < now() - interval '7 days'`;
}

// ---- uploads posted straight to the backend

export interface DirectUploadNote {
  blobId: string;
  bucket: string;
  key: string;
  requestedBy: string;
  expiresAt: Date;
}

export async function noteDirectUpload(db: Queryable, u: DirectUploadNote): Promise<void> {
  await db`insert into storage.direct_uploads (blob_id, bucket, key, requested_by, expires_at)
    values (${u.blobId}, ${u.bucket}, ${u.key}, ${u.requestedBy}, ${u.expiresAt})`;
}

/** The newest uploads `requestedBy` noted for (bucket, key) that may still be confirmed. */
export async function confirmableUploads(
  db: Queryable,
  bucket: string,
  key: string,
  requestedBy: string,
  after: Date,
): Promise<string[]> {
  const rows = await db<{ blob_id: string }[]>`
    select blob_id from storage.direct_uploads
    where bucket = ${bucket} and key = ${key} and requested_by = ${requestedBy} and expires_at > ${after}
    order by created_at desc limit 5`;
  return rows.map((r) => r.blob_id);
}

/** Removes the note of a posted blob; false when it was claimed (or removed) already. */
export async function claimDirectUpload(db: Queryable, blobId: string): Promise<boolean> {
  const [row] = await db<{ claimed: boolean }[]>`select storage.claim_direct_upload(${blobId}) as claimed`;
  return row!.claimed;
}

export async function forgetDirectUpload(db: Queryable, blobId: string): Promise<void> {
  await db`delete from storage.direct_uploads where blob_id = ${blobId}`;
}

/** Uploads whose confirmation window closed before `before`. */
export async function lapsedDirectUploads(db: Queryable, before: Date): Promise<string[]> {
  const rows = await db<{ blob_id: string }[]>`
    select blob_id from storage.direct_uploads where expires_at <= ${before} limit 500`;
  return rows.map((r) => r.blob_id);
}

// ---- quota (STORAGE_QUOTA_BYTES)

/** Holds off every other writer of the quota's usage until the transaction ends. */
export async function lockQuota(db: Queryable): Promise<void> {
  await db`select pg_advisory_xact_lock(hashtext('storage.quota'))`;
}

/** Bytes of every object plus the declared lengths of uploads still in progress at `now`. */
export async function usedBytes(db: Queryable, now: Date): Promise<number> {
  const [row] = await db<{ used: string }[]>`select storage.used_bytes(${now})::text as used`;
  return Number(row!.used);
}

// ---- settings

export interface ConfigRow {
  id: string;
  max_file_size_mb: number | null;
  created_at: Date;
  updated_at: Date;
}

export async function readConfig(db: Queryable): Promise<ConfigRow> {
  const [row] = await db<ConfigRow[]>`select id, max_file_size_mb, created_at, updated_at from storage.config`;
  return row!;
}

export async function setMaxFileSize(db: Queryable, maxFileSizeMb: number): Promise<ConfigRow> {
  const [row] = await db<ConfigRow[]>`
    update storage.config set max_file_size_mb = ${maxFileSizeMb}, updated_at = now()
    returning id, max_file_size_mb, created_at, updated_at`;
  return row!;
}

// ---- S3 access keys

export interface AccessKeyRow {
  id: string;
  access_key_id: string;
  description: string | null;
  created_at: Date;
  last_used_at: Date | null;
}

/** Holds off every other creator of access keys until the transaction ends. */
export async function lockAccessKeys(db: Queryable): Promise<void> {
  await db`select pg_advisory_xact_lock(hashtext('storage.s3_access_keys'))`;
}

export async function countAccessKeys(db: Queryable): Promise<number> {
  const [existing] = await db<{ count: number }[]>`select count(*)::int as count from storage.s3_access_keys`;
  return existing?.count ?? 0;
}

export interface NewAccessKey {
  accessKeyId: string;
  secretCiphertext: string;
  description: string | null;
  createdAt: Date;
}

export async function insertAccessKey(db: Queryable, k: NewAccessKey): Promise<AccessKeyRow> {
  const [created] = await db<AccessKeyRow[]>`
    insert into storage.s3_access_keys (access_key_id, secret_ciphertext, description, created_at)
    values (${k.accessKeyId}, ${k.secretCiphertext}, ${k.description}, ${k.createdAt})
    returning id, access_key_id, description, created_at, last_used_at`;
  return created!;
}

export async function listAccessKeys(db: Queryable): Promise<AccessKeyRow[]> {
  return db<AccessKeyRow[]>`
    select id, access_key_id, description, created_at, last_used_at from storage.s3_access_keys order by created_at, id`;
}

/** False when there is no such key. */
export async function deleteAccessKey(db: Queryable, id: string): Promise<boolean> {
  const rows = await db`delete from storage.s3_access_keys where id = ${id} returning id`;
  return rows.length > 0;
}

/** The sealed secret of an access key id, marked as used at `now`; undefined when unknown. */
export async function useAccessKey(db: Queryable, accessKeyId: string, now: Date): Promise<string | undefined> {
  const [row] = await db<{ secret_ciphertext: string }[]>`
    update storage.s3_access_keys set last_used_at = ${now}
    where access_key_id = ${accessKeyId} returning secret_ciphertext`;
  return row?.secret_ciphertext;
}
