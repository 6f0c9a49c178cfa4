// SQL of Sites: deployments (runs), their uploaded files and served assets, the content-addressed
// blobs, the one site row and its custom domains. Every change that moves what a host serves
// notifies SITES_CHANNEL so every server reloads its directory.
import type { Queryable } from '../../core/db.js';
import type { DeploymentStatus } from './sites.schemas.js';

export const SITES_CHANNEL = 'plinth_sites';

export interface RunRow {
  id: string;
  providerDeploymentId: string | null;
  provider: string;
  status: DeploymentStatus;
  url: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

const RUN_COLUMNS = `id, provider_deployment_id as "providerDeploymentId", provider, status, url, metadata,
  created_at as "createdAt", updated_at as "updatedAt"`;

export async function insertRun(
  db: Queryable,
  run: { status: DeploymentStatus; metadata: Record<string, unknown>; now: Date },
): Promise<RunRow> {
  const [row] = await db.unsafe<RunRow[]>(
    `insert into deployments.runs (status, metadata, created_at, updated_at) values ($1, $2, $3, $3)
     returning ${RUN_COLUMNS}`,
    [run.status, run.metadata as never, run.now],
  );
  return row as RunRow;
}

export async function findRun(db: Queryable, id: string, lock = false): Promise<RunRow | undefined> {
  const [row] = await db.unsafe<RunRow[]>(
    `select ${RUN_COLUMNS} from deployments.runs where id = $1${lock ? ' for update' : ''}`,
    [id],
  );
  return row;
}

export async function listRuns(
  db: Queryable,
  limit: number,
  offset: number,
): Promise<{ rows: RunRow[]; total: number }> {
  const rows = await db.unsafe<RunRow[]>(
    `select ${RUN_COLUMNS} from deployments.runs order by created_at desc, id desc limit $1 offset $2`,
    [limit, offset],
  );
  const [count] = await db`select count(*)::int as total from deployments.runs`;
  return { rows, total: count!.total as number };
}

/** Sets the status and merges `metadata` into the stored metadata (keys given replace theirs). */
export async function updateRun(
  db: Queryable,
  id: string,
  change: { status: DeploymentStatus; metadata?: Record<string, unknown>; url?: string | null; now: Date },
): Promise<RunRow> {
  const [row] = await db.unsafe<RunRow[]>(
    `update deployments.runs set status = $2, metadata = coalesce(metadata, '{}'::jsonb) || $3::jsonb,
       url = case when $4::boolean then $5 else url end, updated_at = $6
     where id = $1 returning ${RUN_COLUMNS}`,
    [id, change.status, (change.metadata ?? {}) as never, change.url !== undefined, change.url ?? null, change.now],
  );
  return row as RunRow;
}

export async function setBuildLog(db: Queryable, id: string, log: string): Promise<void> {
  await db`update deployments.runs set build_log = ${log} where id = ${id}`;
}

export async function buildLogOf(db: Queryable, id: string): Promise<string | null | undefined> {
  const [row] = await db`select build_log from deployments.runs where id = ${id}`;
  return row ? (row.build_log as string | null) : undefined;
}

export interface FileRow {
  fileId: string;
  path: string;
  sha: string;
  size: number;
  uploadedAt: Date | null;
}

const FILE_COLUMNS = `id as "fileId", file_path as "path", sha, size_bytes::float8 as "size", uploaded_at as "uploadedAt"`;

export async function insertFiles(
  db: Queryable,
  runId: string,
  files: { path: string; sha: string; size: number; uploaded: boolean }[],
  now: Date,
): Promise<FileRow[]> {
  if (files.length === 0) return [];
  return db.unsafe<FileRow[]>(
    `insert into deployments.files (deployment_id, file_path, sha, size_bytes, uploaded_at, created_at, updated_at)
     select $1, f.path, f.sha, f.size, case when f.uploaded then $2::timestamptz end, $2, $2
       from jsonb_to_recordset($3::jsonb) as f(path text, sha text, size bigint, uploaded boolean)
     returning ${FILE_COLUMNS}`,
    [runId, now, files as never],
  );
}

export async function findFile(db: Queryable, runId: string, fileId: string): Promise<FileRow | undefined> {
  const [row] = await db.unsafe<FileRow[]>(
    `select ${FILE_COLUMNS} from deployments.files where deployment_id = $1 and id = $2`,
    [runId, fileId],
  );
  return row;
}

export async function markUploaded(db: Queryable, runId: string, fileId: string, now: Date): Promise<FileRow> {
  const [row] = await db.unsafe<FileRow[]>(
    `update deployments.files set uploaded_at = coalesce(uploaded_at, $3), updated_at = $3
     where deployment_id = $1 and id = $2 returning ${FILE_COLUMNS}`,
    [runId, fileId, now],
  );
  return row as FileRow;
}

export async function filesOf(db: Queryable, runId: string): Promise<FileRow[]> {
  return db.unsafe<FileRow[]>(
    `select ${FILE_COLUMNS} from deployments.files where deployment_id = $1 order by file_path`,
    [runId],
  );
}

export interface BlobRow {
  sha: string;
  encoding: 'identity' | 'br' | 'gzip';
  blobId: string;
  size: number;
}

/** The identity blobs held among `shas` (same size), marked as used now so pruning keeps them. */
export async function touchHeldBlobs(
  db: Queryable,
  files: { sha: string; size: number }[],
  now: Date,
): Promise<Set<string>> {
  if (files.length === 0) return new Set();
  const rows = await db.unsafe<{ sha: string }[]>(
    `update deployments.blobs b set last_used_at = $1
       from jsonb_to_recordset($2::jsonb) as f(sha text, size bigint)
      where b.sha = f.sha and b.encoding = 'identity' and b.size_bytes = f.size
     returning b.sha`,
    [now, files as never],
  );
  return new Set(rows.map((r) => r.sha));
}

export async function blobsOf(db: Queryable, sha: string): Promise<BlobRow[]> {
  return db.unsafe<BlobRow[]>(
    `select sha, encoding, blob_id as "blobId", size_bytes::float8 as "size" from deployments.blobs where sha = $1`,
    [sha],
  );
}

/** Records a blob; false when one was already recorded for that sha and encoding (keep that one). */
export async function insertBlob(db: Queryable, blob: BlobRow, now: Date): Promise<boolean> {
  const rows = await db`
    insert into deployments.blobs (sha, encoding, blob_id, size_bytes, last_used_at)
    values (${blob.sha}, ${blob.encoding}, ${blob.blobId}, ${blob.size}, ${now})
    on conflict (sha, encoding) do update set last_used_at = excluded.last_used_at
    returning blob_id = ${blob.blobId} as inserted`;
  return rows[0]!.inserted as boolean;
}

export interface AssetRow {
  path: string;
  sha: string;
  size: number;
  contentType: string;
}

export async function insertAssets(db: Queryable, runId: string, assets: AssetRow[]): Promise<void> {
  if (assets.length === 0) return;
  await db.unsafe(
    `insert into deployments.assets (deployment_id, path, sha, size_bytes, content_type)
     select $1, a.path, a.sha, a.size, a."contentType"
       from jsonb_to_recordset($2::jsonb) as a(path text, sha text, size bigint, "contentType" text)`,
    [runId, assets as never],
  );
}

/** Every asset of a deployment with the blobs of its bytes (identity and precompressed). */
export async function assetsWithBlobs(
  db: Queryable,
  runId: string,
): Promise<(AssetRow & { blobs: { encoding: BlobRow['encoding']; blobId: string; size: number }[] })[]> {
  return db.unsafe(
    `select a.path, a.sha, a.size_bytes::float8 as "size", a.content_type as "contentType",
            coalesce(jsonb_agg(jsonb_build_object('encoding', b.encoding, 'blobId', b.blob_id, 'size', b.size_bytes))
                       filter (where b.sha is not null), '[]') as blobs
       from deployments.assets a left join deployments.blobs b on b.sha = a.sha
      where a.deployment_id = $1
      group by a.path, a.sha, a.size_bytes, a.content_type`,
    [runId],
  );
}

export interface SiteRow {
  slug: string;
  liveDeploymentId: string | null;
  spaFallback: boolean;
  retention: number;
  domains: string[];
}

export async function loadSite(db: Queryable): Promise<SiteRow> {
  const [row] = await db.unsafe<SiteRow[]>(
    `select s.slug, s.live_deployment_id as "liveDeploymentId", s.spa_fallback as "spaFallback", s.retention,
            coalesce((select array_agg(domain order by domain) from deployments.domains), '{}') as domains
       from deployments.site s`,
  );
  return row as SiteRow;
}

export async function notifySites(db: Queryable): Promise<void> {
  await db`select pg_notify(${SITES_CHANNEL}, '')`;
}

/** Makes `runId` live, unless `onlyIfNewer` and the live deployment was created after it. */
export async function setLive(db: Queryable, runId: string, onlyIfNewer: boolean): Promise<boolean> {
  const rows = await db`
    update deployments.site s set live_deployment_id = ${runId}
     where ${!onlyIfNewer} or s.live_deployment_id is null
        or (select created_at from deployments.runs where id = s.live_deployment_id)
           <= (select created_at from deployments.runs where id = ${runId})
    returning 1`;
  if (rows.length > 0) await notifySites(db);
  return rows.length > 0;
}

export async function setSlug(db: Queryable, slug: string): Promise<void> {
  await db`update deployments.site set slug = ${slug}`;
  await notifySites(db);
}

export async function updateSite(db: Queryable, change: { spaFallback?: boolean; retention?: number }): Promise<void> {
  await db`update deployments.site set spa_fallback = coalesce(${change.spaFallback ?? null}::boolean, spa_fallback),
             retention = coalesce(${change.retention ?? null}::int, retention)`;
  await notifySites(db);
}

export async function insertDomain(db: Queryable, domain: string, now: Date): Promise<boolean> {
  const rows = await db`insert into deployments.domains (domain, created_at) values (${domain}, ${now})
                        on conflict do nothing returning 1`;
  if (rows.length > 0) await notifySites(db);
  return rows.length > 0;
}

export async function deleteDomain(db: Queryable, domain: string): Promise<boolean> {
  const rows = await db`delete from deployments.domains where domain = ${domain} returning 1`;
  if (rows.length > 0) await notifySites(db);
  return rows.length > 0;
}

/**
 * Deletes deployments past the retention: all but the `keep` newest READY ones (the live one is
 * always kept), failed or abandoned ones older than the oldest kept, and unfinished uploads
 * older than `staleBefore`. Answers the deleted ids and the legacy source zips they held.
 */
export async function pruneRuns(
  db: Queryable,
  keep: number,
  staleBefore: Date,
): Promise<{ id: string; sourceBlobId: string | null }[]> {
  const rows = await db`
    with kept as (
      select id, created_at from deployments.runs where status = 'READY' order by created_at desc, id desc limit ${keep}
    ), oldest_kept as (select min(created_at) as at from kept)
    delete from deployments.runs r
     where r.id is distinct from (select live_deployment_id from deployments.site)
       and r.id not in (select id from kept)
       and (r.status = 'READY'
            or (r.status in ('ERROR', 'CANCELED') and r.created_at < coalesce((select at from oldest_kept), '-infinity'))
            or (r.status in ('WAITING', 'UPLOADING') and r.updated_at < ${staleBefore}))
    returning r.id, r.metadata->>'sourceBlobId' as source_blob_id`;
  return rows.map((r) => ({ id: r.id as string, sourceBlobId: r.source_blob_id as string | null }));
}

/** Forgets blobs no file or asset refers to and no manifest used since `unusedSince`; answers their blob ids. */
export async function pruneBlobs(db: Queryable, unusedSince: Date): Promise<string[]> {
  const rows = await db`
    delete from deployments.blobs b
     where b.last_used_at < ${unusedSince}
       and not exists (select 1 from deployments.files f where f.sha = b.sha)
       and not exists (select 1 from deployments.assets a where a.sha = b.sha)
    returning b.blob_id`;
  return rows.map((r) => r.blob_id as string);
}

/** Marks builds not heard of since `before` as failed (their server stopped during the build). */
export async function failAbandonedBuilds(db: Queryable, before: Date, now: Date): Promise<void> {
  await db`update deployments.runs
              set status = 'ERROR', updated_at = ${now},
                  metadata = coalesce(metadata, '{}'::jsonb) || '{"error": "The server stopped during the build."}'::jsonb
            where status in ('QUEUED', 'BUILDING') and updated_at < ${before}`;
}
