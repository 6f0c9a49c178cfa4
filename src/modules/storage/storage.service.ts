// Buckets and objects: metadata in storage.* (objects under row-level security in the caller's
// scope), bytes in the blob store. A write stages its bytes first, then writes the row and
// promotes the blob in one transaction; replaced and deleted blobs are removed after commit.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { withRequestScope } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../http/principal.js';
import { scopeOf } from '../../http/request-scope.js';
import type { ByteRange, StagedBlob } from './blob-store.js';
import { assertBucketName, assertObjectKey, encodeKey } from './keys.js';
import type { StorageConfig } from './storage-config.js';

export interface ObjectRow {
  bucket: string;
  key: string;
  blob_id: string;
  size: string | number;
  mime_type: string;
  etag: string;
  updated_at: Date;
}

export interface StoredFile {
  bucket: string;
  key: string;
  size: number;
  mimeType: string;
  uploadedAt: string;
  url: string;
}

export interface PutObject {
  bucket: string;
  key: string;
  body: Readable;
  mimeType: string;
  principal: Principal;
  via?: 'rest' | 's3';
  /** S3 object tags; a replaced object keeps none of its old ones. */
  tags?: ObjectTag[];
}

// A type alias (not an interface), so that it is JSON for the driver.
export type ObjectTag = { Key: string; Value: string };

interface RowInput {
  bucket: string;
  key: string;
  blobId: string;
  size: number;
  mimeType: string;
  etag: string;
  via?: 'rest' | 's3';
  tags?: ObjectTag[];
}

/** Who acts for the gateway's access keys and for valid signed URLs: row-level security is bypassed. */
export const SERVICE_PRINCIPAL: Principal = { kind: 'admin', subject: 'api-key', via: 'apiKey' };

const pgCode = (err: unknown) => (err as { code?: string }).code;

const notFound = () => new AppError('OBJECT_NOT_FOUND', 'Object not found.');
const bucketNotFound = (bucket: string) => new AppError('STORAGE_NOT_FOUND', `Bucket "${bucket}" not found.`);

export function createStorageService(deps: Pick<Deps, 'sql' | 'blobStore' | 'config'>, settings: Pick<StorageConfig, 'maxBytes'>) {
  const { sql, blobStore } = deps;
  const toFile = (row: ObjectRow): StoredFile => ({
    bucket: row.bucket,
    key: row.key,
    size: Number(row.size),
    mimeType: row.mime_type,
    uploadedAt: row.updated_at.toISOString(),
    url: `${deps.config.apiBaseUrl}/api/storage/buckets/${row.bucket}/objects/${encodeKey(row.key)}`,
  });

  async function bucketOf(name: string): Promise<{ name: string; public: boolean }> {
    assertBucketName(name);
    const [bucket] = await sql<{ name: string; public: boolean }[]>`select name, public from storage.buckets where name = ${name}`;
    if (!bucket) throw bucketNotFound(name);
    return bucket;
  }

  /** Removes the bytes of replaced and deleted objects (noted by a trigger), then their notes. */
  async function sweepOrphans(): Promise<void> {
    const orphans = await sql<{ blob_id: string }[]>`select blob_id from storage.orphan_blobs order by created_at limit 500`;
    for (const { blob_id } of orphans) await blobStore.remove(blob_id);
    if (orphans.length > 0) await sql`delete from storage.orphan_blobs where blob_id = any(${orphans.map((o) => o.blob_id)})`;
  }

  /**
   * Removes blobs whose write never reached its row (a crash mid-upload), an hour on, and
   * multipart uploads nobody completed or aborted in a week (their parts' blobs go as orphans).
   */
  async function sweepAbandoned(): Promise<void> {
    await sql`delete from storage.s3_multipart_uploads where created_at < now() - interval '7 days'`;
    await sweepOrphans();
    const abandoned = await sql<{ blob_id: string }[]>`
      select blob_id from storage.pending_blobs where created_at < now() - interval '1 hour' limit 500`;
    for (const { blob_id } of abandoned) await blobStore.remove(blob_id);
    if (abandoned.length > 0) await sql`delete from storage.pending_blobs where blob_id = any(${abandoned.map((o) => o.blob_id)})`;
  }

  /**
   * Stages `body` as a new blob, noted as pending first, so that bytes whose row is never
   * written are found again. `write` must claim the blob (storage.claim_blob) in the
   * transaction that references it; on failure the blob is removed.
   */
  async function withNewBlob<T>(body: Readable, write: (blob: StagedBlob) => Promise<T>): Promise<T> {
    const id = randomUUID();
    await sql`insert into storage.pending_blobs (blob_id) values (${id})`;
    let staged: StagedBlob | undefined;
    try {
      staged = await blobStore.stage(id, body, await settings.maxBytes());
      return await write(staged);
    } catch (err) {
      await blobStore.remove(id);
      await sql`delete from storage.pending_blobs where blob_id = ${id}`;
      throw err;
    }
  }

  /** Creates or replaces the row of (bucket, key); a replaced blob is noted as an orphan by a trigger. */
  async function upsertRow(tx: Deps['sql'], r: RowInput): Promise<ObjectRow> {
    const [written] = await tx<ObjectRow[]>`
      insert into storage.objects (bucket, key, blob_id, size, mime_type, etag, uploaded_via, tags)
      values (${r.bucket}, ${r.key}, ${r.blobId}, ${r.size}, ${r.mimeType}, ${r.etag}, ${r.via ?? 'rest'}, ${tx.json(r.tags ?? [])})
      on conflict (bucket, key) do update set
        blob_id = excluded.blob_id, size = excluded.size, mime_type = excluded.mime_type,
        etag = excluded.etag, uploaded_via = excluded.uploaded_via, tags = excluded.tags, updated_at = now()
      returning bucket, key, blob_id, size, mime_type, etag, updated_at`;
    return written!;
  }

  /** Runs a scoped statement; row-level security refusals become 403. */
  async function scoped<T>(principal: Principal, work: (tx: Deps['sql']) => Promise<T>): Promise<T> {
    try {
      return await withRequestScope(sql, scopeOf(principal), work);
    } catch (err) {
      if (pgCode(err) === '42501') {
        throw new AppError('STORAGE_PERMISSION_DENIED', 'Row-level security on storage.objects does not allow this.', { cause: err });
      }
      throw err;
    }
  }

  return {
    baseUrl: deps.config.apiBaseUrl,
    maxBytes: () => settings.maxBytes(),
    bucketOf,
    sweepOrphans,
    sweepAbandoned,
    withNewBlob,

    async listBuckets() {
      const rows = await sql<{ name: string; public: boolean; created_at: Date }[]>`
        select name, public, created_at from storage.buckets order by name`;
      return rows.map((b) => ({ name: b.name, public: b.public, createdAt: b.created_at.toISOString() }));
    },

    async createBucket(name: string, isPublic: boolean): Promise<void> {
      assertBucketName(name);
      const rows = await sql`insert into storage.buckets (name, public) values (${name}, ${isPublic}) on conflict do nothing returning name`;
      if (rows.length === 0) throw new AppError('STORAGE_ALREADY_EXISTS', `Bucket "${name}" already exists.`);
    },

    async updateBucket(name: string, isPublic: boolean): Promise<void> {
      assertBucketName(name);
      const rows = await sql`update storage.buckets set public = ${isPublic} where name = ${name} returning name`;
      if (rows.length === 0) throw bucketNotFound(name);
    },

    async deleteBucket(name: string): Promise<void> {
      assertBucketName(name);
      const rows = await sql`delete from storage.buckets where name = ${name} returning name`;
      if (rows.length === 0) throw bucketNotFound(name);
      await sweepOrphans();
    },

    /** Creates or replaces an object; the caller's row-level security decides. */
    async put(input: PutObject): Promise<StoredFile> {
      return toFile(await this.putRow(input));
    },

    async putRow(input: PutObject): Promise<ObjectRow> {
      assertObjectKey(input.key);
      await bucketOf(input.bucket);
      let row: ObjectRow;
      try {
        row = await withNewBlob(input.body, (staged) => scoped(input.principal, async (tx) => {
          const written = await upsertRow(tx, { ...input, blobId: staged.id, size: staged.size, etag: staged.md5 });
          await tx`select storage.claim_blob(${staged.id})`;
          await blobStore.promote(staged.id);
          return written;
        }));
      } catch (err) {
        if (pgCode(err) === '23503') throw bucketNotFound(input.bucket);
        throw err;
      }
      await sweepOrphans();
      return row;
    },

    /** 403 unless row-level security would let `principal` write this key (nothing is written). */
    async probeWrite(bucket: string, key: string, principal: Principal): Promise<void> {
      const rollback = new Error('probe only');
      try {
        await scoped(principal, async (tx) => {
          await upsertRow(tx, { bucket, key, blobId: randomUUID(), size: 0, mimeType: 'application/octet-stream', etag: '' });
          throw rollback;
        });
      } catch (err) {
        if (err !== rollback) throw err;
      }
    },

    /**
     * Writes the row of a blob the client put in the backend itself, in one transaction with
     * `claim` (which must answer false when the blob was claimed already: 404).
     */
    async adoptBlob(input: Omit<RowInput, 'via'> & { principal: Principal }, claim: (tx: Deps['sql']) => Promise<boolean>): Promise<StoredFile> {
      const row = await scoped(input.principal, async (tx) => {
        const written = await upsertRow(tx, input);
        if (!(await claim(tx))) throw notFound();
        return written;
      });
      await sweepOrphans();
      return toFile(row);
    },

    /** The object's row as the caller may see it; null principal = no credential (public buckets only). */
    async head(bucketName: string, key: string, principal: Principal | null): Promise<ObjectRow> {
      assertObjectKey(key);
      const bucket = await bucketOf(bucketName);
      if (!principal && !bucket.public) {
        throw new AppError('UNAUTHORIZED', 'This bucket is private: send a credential.');
      }
      const [row] = await scoped(principal ?? { kind: 'anon' }, (tx) => tx<ObjectRow[]>`
        select bucket, key, blob_id, size, mime_type, etag, updated_at
        from storage.objects where bucket = ${bucketName} and key = ${key}`);
      if (!row) throw notFound();
      return row;
    },

    /** The bytes of a row from head(); a concurrent replace is followed once. */
    async open(row: ObjectRow, principal: Principal | null, range?: ByteRange): Promise<{ row: ObjectRow; body: Readable }> {
      const body = await blobStore.read(row.blob_id, range);
      if (body) return { row, body };
      const again = await this.head(row.bucket, row.key, principal);
      const retried = again.blob_id !== row.blob_id ? await blobStore.read(again.blob_id, range) : null;
      if (!retried) throw notFound();
      return { row: again, body: retried };
    },

    async list(bucket: string, principal: Principal, q: { prefix?: string; search?: string; limit: number; offset: number }) {
      assertBucketName(bucket);
      const like = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
      const rows = await scoped(principal, (tx) => tx<(ObjectRow & { total: string })[]>`
        select bucket, key, blob_id, size, mime_type, etag, updated_at, count(*) over () as total
        from storage.objects
        where bucket = ${bucket}
          and key like ${`${like(q.prefix ?? '')}%`}
          and (${q.search ?? null}::text is null or strpos(key, ${q.search ?? null}::text) > 0)
        order by key limit ${q.limit} offset ${q.offset}`);
      return {
        data: rows.map(toFile),
        pagination: { offset: q.offset, limit: q.limit, total: rows.length > 0 ? Number(rows[0]!.total) : 0 },
      };
    },

    /** Deletes the keys the caller may delete; answers which ones were there. */
    async remove(bucket: string, keys: string[], principal: Principal): Promise<Set<string>> {
      assertBucketName(bucket);
      keys.forEach(assertObjectKey);
      const rows = await scoped(principal, (tx) => tx<{ key: string }[]>`
        delete from storage.objects where bucket = ${bucket} and key = any(${keys}) returning key`);
      await sweepOrphans();
      return new Set(rows.map((r) => r.key));
    },

    toFile,
  };
}

export type StorageService = ReturnType<typeof createStorageService>;
