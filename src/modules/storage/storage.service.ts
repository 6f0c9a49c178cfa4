// Buckets and objects: metadata in storage.* (objects under row-level security in the caller's
// scope), bytes in the blob store. A write stages its bytes first, then writes the row and
// promotes the blob in one transaction; replaced and deleted blobs are removed after commit.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { type Queryable, withRequestScope, withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import { type PgOverrides, withPgOverrides } from '../../core/pg-errors.js';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../core/principal.js';
import { scopeOf } from '../../core/principal.js';
import type { ByteRange, StagedBlob } from '../../platform/blob-store/blob-store.js';
import { assertBucketName, assertObjectKey, encodeKey, generatedKey } from './keys.js';
import type { StorageConfig } from './storage-config.service.js';
import * as repo from './storage.repo.js';
import type { BucketRow, ObjectRow, ObjectTag, RowInput } from './storage.repo.js';

export type { ListedKey } from './storage.repo.js';
export type { ObjectRow, ObjectTag };

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
  /** false: a row at this key already is a 409 (default: create or replace). */
  upsert?: boolean;
  cacheControl?: string | null;
  /** The uploader the row names, when it is not the caller (a signed upload URL's creator). */
  owner?: string | null;
}

/** Who acts for the gateway's access keys and for valid signed URLs: row-level security is bypassed. */
export const SERVICE_PRINCIPAL: Principal = { kind: 'admin', subject: 'api-key', via: 'apiKey' };

const notFound = () => new AppError('OBJECT_NOT_FOUND', 'Object not found.');
const bucketNotFound = (bucket: string) =>
  new AppError('STORAGE_NOT_FOUND', `Bucket "${bucket}" not found.`, {
    nextActions: `List the buckets with GET /api/storage/buckets; an admin makes this one with POST /api/storage/buckets {"bucketName": "${bucket}"} (CLI: plinth storage mb ss://${bucket}).`,
  });

/** Storage's declared meaning of SQLSTATEs in a caller's scope (see core/pg-errors.ts). */
const SCOPED_OVERRIDES: PgOverrides = {
  '42501': (_pg, cause) =>
    new AppError('STORAGE_PERMISSION_DENIED', 'Row-level security on storage.objects does not allow this.', { cause }),
};

/** Every bucket with whether it is public and how many objects it holds (the metadata overview). */
export const bucketSummaries = (db: Queryable) => repo.listBucketSummaries(db);

export function createStorageService(
  deps: Pick<Deps, 'sql' | 'blobStore' | 'config' | 'clock'>,
  settings: Pick<StorageConfig, 'maxBytes'>,
) {
  const { sql, blobStore } = deps;
  const toFile = (row: ObjectRow): StoredFile => ({
    bucket: row.bucket,
    key: row.key,
    size: Number(row.size),
    mimeType: row.mime_type,
    uploadedAt: row.updated_at.toISOString(),
    url: `${deps.config.apiBaseUrl}/api/storage/buckets/${row.bucket}/objects/${encodeKey(row.key)}`,
  });

  async function bucketOf(name: string): Promise<BucketRow> {
    assertBucketName(name);
    const bucket = await repo.findBucket(sql, name);
    if (!bucket) throw bucketNotFound(name);
    return bucket;
  }

  /** Removes the bytes of replaced and deleted objects (noted by a trigger), then their notes. */
  async function sweepOrphans(): Promise<void> {
    const orphans = await repo.orphanBlobs(sql);
    for (const id of orphans) await blobStore.remove(id);
    if (orphans.length > 0) await repo.forgetOrphanBlobs(sql, orphans);
  }

  /**
   * Removes blobs whose write never reached its row (a crash mid-upload), an hour on, and
   * multipart uploads nobody completed or aborted in a week (their parts' blobs go as orphans).
   */
  async function sweepAbandoned(): Promise<void> {
    await repo.deleteStaleMultipartUploads(sql);
    await sweepOrphans();
    const abandoned = await repo.abandonedBlobs(sql);
    for (const id of abandoned) await blobStore.remove(id);
    if (abandoned.length > 0) await repo.forgetPendingBlobs(sql, abandoned);
  }

  /**
   * Notes `id` as pending, then runs `write`, which must claim the blob (storage.claim_blob) in
   * the transaction that references it; on failure the blob and its note are removed.
   */
  async function withPendingBlob<T>(id: string, write: () => Promise<T>): Promise<T> {
    await repo.notePendingBlob(sql, id);
    try {
      return await write();
    } catch (err) {
      await blobStore.remove(id);
      await repo.forgetPendingBlobs(sql, [id]);
      throw err;
    }
  }

  /** Stages `body` as a new pending blob (see withPendingBlob) and hands it to `write`. */
  async function withNewBlob<T>(
    body: Readable,
    write: (blob: StagedBlob) => Promise<T>,
    bucketLimit?: number | null,
  ): Promise<T> {
    const id = randomUUID();
    const global = await settings.maxBytes();
    const limit = bucketLimit ? Math.min(global, bucketLimit) : global;
    return withPendingBlob(id, async () => write(await blobStore.stage(id, body, limit)));
  }

  /** The bucket's allowed types ('image/*' or exact), when it names any. */
  function assertAllowedType(bucket: BucketRow, mimeType: string): void {
    const allowed = bucket.allowed_mime_types;
    if (!allowed || allowed.length === 0) return;
    const base = mimeType.split(';')[0]!.trim().toLowerCase();
    const ok = allowed.some((a) => {
      const rule = a.toLowerCase();
      return rule.endsWith('/*') ? base.startsWith(rule.slice(0, -1)) : base === rule;
    });
    if (!ok) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', `mime type ${base} is not supported by bucket "${bucket.name}".`);
    }
  }

  /**
   * 413 when the objects and uploads in progress (STORAGE_QUOTA_BYTES) exceed the quota with
   * `adding` more bytes; in the transaction that writes, which it serialises with every other.
   */
  async function assertQuota(tx: Queryable, adding: number): Promise<void> {
    const quota = deps.config.storage.quotaBytes;
    if (!quota) return;
    await repo.lockQuota(tx);
    if ((await repo.usedBytes(tx, deps.clock.now())) + adding > quota) {
      throw new AppError('STORAGE_INSUFFICIENT_QUOTA', `The storage quota (${quota} bytes) is full.`, {
        nextActions: 'Delete objects or abandoned uploads, or raise STORAGE_QUOTA_BYTES.',
      });
    }
  }

  /** Runs a scoped statement; row-level security refusals are storage's own 403. */
  const scoped = <T>(principal: Principal, work: (tx: Queryable) => Promise<T>): Promise<T> =>
    withPgOverrides(SCOPED_OVERRIDES, () =>
      withRequestScope(sql, scopeOf(principal, deps.config.statementTimeouts), work),
    );

  /** Creates or replaces an object; the caller's row-level security decides. */
  async function putRow(input: PutObject): Promise<ObjectRow> {
    assertObjectKey(input.key);
    const bucket = await bucketOf(input.bucket);
    assertAllowedType(bucket, input.mimeType);
    const write = input.upsert === false ? repo.insertObject : repo.upsertObject;
    // An object row naming a bucket that is not there (deleted meanwhile): that bucket's 404.
    const overrides: PgOverrides = {
      '23503': () => bucketNotFound(input.bucket),
      '23505': () => new AppError('STORAGE_ALREADY_EXISTS', 'The resource already exists.'),
    };
    const row = await withPgOverrides(overrides, () =>
      withNewBlob(
        input.body,
        (staged) =>
          scoped(input.principal, async (tx) => {
            const written = await write(tx, {
              ...input,
              blobId: staged.id,
              size: staged.size,
              etag: staged.md5,
            });
            await repo.claimBlob(tx, staged.id);
            await assertQuota(tx, 0);
            await blobStore.promote(staged.id);
            return written;
          }),
        bucket.file_size_limit === null ? null : Number(bucket.file_size_limit),
      ),
    );
    await sweepOrphans();
    return row;
  }

  /** The object's row as the caller may see it; null principal = no credential (public buckets only). */
  async function head(bucketName: string, key: string, principal: Principal | null): Promise<ObjectRow> {
    assertObjectKey(key);
    const bucket = await bucketOf(bucketName);
    if (!principal && !bucket.public) {
      throw new AppError('UNAUTHORIZED', 'This bucket is private: send a credential.');
    }
    const row = await scoped(principal ?? { kind: 'anon' }, (tx) => repo.findObject(tx, bucketName, key));
    if (!row) throw notFound();
    return row;
  }

  /** Deletes the keys the caller may delete; answers which ones were there. */
  async function remove(bucket: string, keys: string[], principal: Principal): Promise<Set<string>> {
    assertBucketName(bucket);
    keys.forEach(assertObjectKey);
    const deleted = await scoped(principal, (tx) => repo.deleteObjects(tx, bucket, keys));
    await sweepOrphans();
    return new Set(deleted);
  }

  return {
    baseUrl: deps.config.apiBaseUrl,
    maxBytes: () => settings.maxBytes(),
    bucketOf,
    sweepOrphans,
    sweepAbandoned,
    withNewBlob,
    withPendingBlob,
    scoped,
    assertAllowedType,
    assertQuota,
    putRow,
    head,
    remove,
    toFile,

    async listBuckets() {
      const rows = await repo.listBuckets(sql);
      return rows.map((b) => ({ name: b.name, public: b.public, createdAt: b.created_at.toISOString() }));
    },

    /** Every bucket with all its settings (Supabase's bucket shape is made from these). */
    bucketRows: () => repo.listBuckets(sql),

    async createBucket(name: string, isPublic: boolean, limits?: repo.BucketLimits): Promise<void> {
      assertBucketName(name);
      await withTx(sql, async (tx) => {
        if (!(await repo.insertBucket(tx, name, isPublic)))
          throw new AppError('STORAGE_ALREADY_EXISTS', `Bucket "${name}" already exists.`);
        if (limits) await repo.setBucketLimits(tx, name, limits);
      });
    },

    async updateBucket(name: string, isPublic: boolean, limits?: repo.BucketLimits): Promise<void> {
      assertBucketName(name);
      if (!(await repo.updateBucketSettings(sql, name, isPublic, limits))) throw bucketNotFound(name);
    },

    /** Deletes every object of the bucket, whoever uploaded it (an admin's action). */
    async emptyBucket(name: string): Promise<void> {
      await bucketOf(name);
      await repo.deleteAllObjects(sql, name);
      await sweepOrphans();
    },

    async deleteBucket(name: string): Promise<void> {
      assertBucketName(name);
      if (!(await repo.deleteBucket(sql, name))) throw bucketNotFound(name);
      await sweepOrphans();
    },

    /** Whether the bucket holds any object (whoever may see it). */
    hasObjects: (bucket: string) => repo.bucketHasObjects(sql, bucket),

    /** The bucket's S3 CORS configuration (JSON text), null when none is set. */
    cors: (bucket: string) => repo.findBucketCors(sql, bucket),

    /** Sets (null: removes) the bucket's S3 CORS configuration. */
    setCors: (bucket: string, cors: string | null) => repo.setBucketCors(sql, bucket, cors),

    /** Up to 1000 keys starting with `prefix` after `cursor`, in byte order (no row-level security). */
    keysAfter: (bucket: string, prefix: string, cursor: string) => repo.listKeysAfter(sql, bucket, prefix, cursor),

    /** The object's tags; none when there is no such object. */
    tagsOf: (bucket: string, key: string) => repo.findObjectTags(sql, bucket, key),

    setTags: (bucket: string, key: string, tags: ObjectTag[]) => repo.setObjectTags(sql, bucket, key, tags),

    /** Creates or replaces an object (under a generated key when none is given). */
    async put(input: Omit<PutObject, 'key'> & { key?: string; filename?: string; now: Date }): Promise<StoredFile> {
      const { filename, now, ...object } = input;
      return toFile(await putRow({ ...object, key: input.key ?? generatedKey(filename, now) }));
    },

    /** 403 unless row-level security would let `principal` write this key (nothing is written). */
    async probeWrite(bucket: string, key: string, principal: Principal): Promise<void> {
      const rollback = new Error('probe only');
      try {
        await scoped(principal, async (tx) => {
          await repo.upsertObject(tx, {
            bucket,
            key,
            blobId: randomUUID(),
            size: 0,
            mimeType: 'application/octet-stream',
            etag: '',
          });
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
    async adoptBlob(
      input: Omit<RowInput, 'via'> & { principal: Principal; upsert?: boolean },
      claim: (tx: Queryable) => Promise<boolean>,
    ): Promise<StoredFile> {
      const write = input.upsert === false ? repo.insertObject : repo.upsertObject;
      const overrides: PgOverrides = {
        '23503': () => bucketNotFound(input.bucket),
        '23505': () => new AppError('STORAGE_ALREADY_EXISTS', 'The resource already exists.'),
      };
      const row = await withPgOverrides(overrides, () =>
        scoped(input.principal, async (tx) => {
          const written = await write(tx, input);
          if (!(await claim(tx))) throw notFound();
          await assertQuota(tx, 0);
          return written;
        }),
      );
      await sweepOrphans();
      return toFile(row);
    },

    /** The bytes of a row from head(); a concurrent replace is followed once. */
    async open(
      row: ObjectRow,
      principal: Principal | null,
      range?: ByteRange,
    ): Promise<{ row: ObjectRow; body: Readable }> {
      const body = await blobStore.read(row.blob_id, range);
      if (body) return { row, body };
      const again = await head(row.bucket, row.key, principal);
      const retried = again.blob_id !== row.blob_id ? await blobStore.read(again.blob_id, range) : null;
      if (!retried) throw notFound();
      return { row: again, body: retried };
    },

    async list(bucket: string, principal: Principal, q: repo.ObjectPage) {
      assertBucketName(bucket);
      const rows = await scoped(principal, (tx) => repo.listObjects(tx, bucket, q));
      return {
        data: rows.map(toFile),
        pagination: { offset: q.offset, limit: q.limit, total: rows.length > 0 ? Number(rows[0]!.total) : 0 },
      };
    },

    /** Deletes one object: 404 when the bucket, or the object as the caller sees it, is not there. */
    async removeOne(bucket: string, key: string, principal: Principal): Promise<void> {
      await bucketOf(bucket);
      if (!(await remove(bucket, [key], principal)).has(key)) throw notFound();
    },

    /** Deletes several objects; says of each key whether it was deleted. */
    async removeMany(bucket: string, keys: string[], principal: Principal) {
      const unique = [...new Set(keys)];
      const deleted = await remove(bucket, unique, principal);
      return unique.map((key) => ({ key, status: deleted.has(key) ? ('deleted' as const) : ('notFound' as const) }));
    },
  };
}

export type StorageService = ReturnType<typeof createStorageService>;
