// SQL of the image variant cache (storage.image_variants): no request role reads it; the server
// does, only after the object's own access check passed for the caller.
import type { Queryable } from '../../core/db.js';

export interface VariantRow {
  source_blob_id: string;
  blob_id: string;
  size: string | number;
  mime_type: string;
}

/**
 * The variant `params` of the object now at (bucket, key), if cached; a hit marks it used (at
 * most once a minute, so hits rarely write). The caller compares source_blob_id with the row
 * its access check read, so a replace between the two is never served.
 */
export async function findVariantAt(
  db: Queryable,
  bucket: string,
  key: string,
  params: string,
): Promise<VariantRow | undefined> {
  const [row] = await db<VariantRow[]>`
    with hit as (
      select v.source_blob_id, v.blob_id, v.size, v.mime_type, v.last_used_at
      from storage.objects o join storage.image_variants v on v.source_blob_id = o.blob_id and v.params = ${params}
      where o.bucket = ${bucket} and o.key = ${key}
    ), touched as (
      update storage.image_variants v set last_used_at = now() from hit
      where v.source_blob_id = hit.source_blob_id and v.params = ${params} and hit.last_used_at < now() - interval '1 minute'
    )
    select source_blob_id, blob_id, size, mime_type from hit`;
  return row;
}

/** Records a stored variant; false when one is there already (another request stored it first). */
export async function insertVariant(
  db: Queryable,
  v: { sourceBlobId: string; params: string; blobId: string; size: number; mimeType: string },
): Promise<boolean> {
  const rows = await db`
    insert into storage.image_variants (source_blob_id, params, blob_id, size, mime_type)
    values (${v.sourceBlobId}, ${v.params}, ${v.blobId}, ${v.size}, ${v.mimeType})
    on conflict (source_blob_id, params) do nothing returning blob_id`;
  return rows.length > 0;
}

/** Forgets one variant (its blob was found missing); the trigger notes the blob as an orphan. */
export async function deleteVariant(db: Queryable, blobId: string): Promise<void> {
  await db`delete from storage.image_variants where blob_id = ${blobId}`;
}

/**
 * Deletes the least recently used variants past `maxBytes` in all (their blobs are noted as
 * orphans by the trigger); answers how many went.
 */
export async function evictBeyond(db: Queryable, maxBytes: number): Promise<number> {
  const rows = await db`
    with ranked as (
      select blob_id, sum(size) over (order by last_used_at desc, blob_id) as kept
      from storage.image_variants
    )
    delete from storage.image_variants v using ranked r
    where v.blob_id = r.blob_id and r.kept > ${maxBytes}
    returning v.blob_id`;
  return rows.length;
}

/** The variant cache's size: how many variants and bytes. */
export async function variantTotals(db: Queryable): Promise<{ count: number; bytes: number }> {
  const [row] = await db<{ count: number; bytes: string }[]>`
    select count(*)::int as count, coalesce(sum(size), 0)::text as bytes from storage.image_variants`;
  return { count: row?.count ?? 0, bytes: Number(row?.bytes ?? 0) };
}
