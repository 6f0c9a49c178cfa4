// SQL for the S3 gateway's multipart uploads: the uploads in progress and their staged parts
// (each part's blob is claimed with storage.repo's claimBlob, in the transaction that writes it).
import type { Queryable } from '../../core/db.js';
import { likePrefix, type ObjectTag } from './storage.repo.js';

export interface MultipartUploadRow {
  upload_id: string;
  mime_type: string;
  tags: ObjectTag[];
}

export interface PartRow {
  part_number: number;
  blob_id: string;
  size: string;
  etag: string;
  created_at: Date;
}

export interface UploadInProgress {
  key: string;
  upload_id: string;
  created_at: Date;
}

export interface NewMultipartUpload {
  uploadId: string;
  bucket: string;
  key: string;
  mimeType: string;
  tags: ObjectTag[];
}

export interface NewPart {
  uploadId: string;
  partNumber: number;
  blobId: string;
  size: number;
  etag: string;
}

export async function findMultipartUpload(
  db: Queryable,
  uploadId: string,
  bucket: string,
  key: string,
): Promise<MultipartUploadRow | undefined> {
  const [upload] = await db<MultipartUploadRow[]>`
    select upload_id, mime_type, tags from storage.s3_multipart_uploads
    where upload_id = ${uploadId} and bucket = ${bucket} and key = ${key}`;
  return upload;
}

export async function insertMultipartUpload(db: Queryable, u: NewMultipartUpload): Promise<void> {
  await db`insert into storage.s3_multipart_uploads (upload_id, bucket, key, mime_type, tags)
    values (${u.uploadId}, ${u.bucket}, ${u.key}, ${u.mimeType}, ${db.json(u.tags)})`;
}

/** Deletes the upload and (by cascade) its parts; their blobs are noted as orphans by a trigger. */
export async function deleteMultipartUpload(db: Queryable, uploadId: string): Promise<void> {
  await db`delete from storage.s3_multipart_uploads where upload_id = ${uploadId}`;
}

/** Writes part `partNumber` of an upload, replacing an earlier part of that number. */
export async function upsertPart(db: Queryable, p: NewPart): Promise<void> {
  await db`
    insert into storage.s3_multipart_parts (upload_id, part_number, blob_id, size, etag)
    values (${p.uploadId}, ${p.partNumber}, ${p.blobId}, ${p.size}, ${p.etag})
    on conflict (upload_id, part_number) do update set blob_id = excluded.blob_id, size = excluded.size, etag = excluded.etag, created_at = now()`;
}

export async function listParts(db: Queryable, uploadId: string): Promise<PartRow[]> {
  return db<PartRow[]>`
    select part_number, blob_id, size, etag, created_at from storage.s3_multipart_parts
    where upload_id = ${uploadId} order by part_number`;
}

/**
 * Uploads in progress of keys starting with `prefix`, by key (byte order), then initiation: those
 * after `keyMarker`, and with `idMarker` also the uploads of that key initiated after it.
 */
export async function listUploadsInProgress(
  db: Queryable,
  bucket: string,
  prefix: string,
  keyMarker: string,
  idMarker: string | null,
): Promise<UploadInProgress[]> {
  return db<UploadInProgress[]>`
    select u.key, u.upload_id, u.created_at from storage.s3_multipart_uploads u
    where u.bucket = ${bucket} and u.key like ${likePrefix(prefix)}
      and (u.key collate "C" > ${keyMarker}
        or (${idMarker}::uuid is not null and u.key = ${keyMarker} and (u.created_at, u.upload_id) > (
          select m.created_at, m.upload_id from storage.s3_multipart_uploads m where m.upload_id = ${idMarker}::uuid)))
    order by u.key collate "C", u.created_at, u.upload_id
    limit 10000`;
}
