// SQL of the image variant cache (storage.image_variants): no request role reads it; the server
// does, only after the object's own access check passed for the caller.
import type { Queryable } from '../../core/db.js';

export interface VariantRow {
  source_blob_id: string;
  blob_id: string;
  size: string | number;
  mime_type: string;
}

/** The variant `params` of blob `sourceBlobId`, if cached; a hit marks it used (at most once a minute). */
export async function findVariant(
  db: Queryable,
  sourceBlobId: string,
  params: string,
): Promise<VariantRow | undefined> {
  const [row] = await db<VariantRow[]>`
    with hit as (
      select source_blob_id, blob_id, size, mime_type, last_used_at from storage.image_variants
      where source_blob_id = ${sourceBlobId} and params = ${params}
    ), touched as (
      update storage.image_variants v set last_used_at = now() from hit
      where v.blob_id = hit.blob_id and hit.last_used_at < now() - interval '1 minute'
    )
    select source_blob_id, blob_id, size, mime_type from hit`;
  return row;
}

/** Marks a variant used now (a hit answered from the server's memory of the cache). */
export async function touchVariant(db: Queryable, blobId: string): Promise<void> {
  await db`update storage.image_variants set last_used_at = now() where blob_id = ${blobId}`;
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
