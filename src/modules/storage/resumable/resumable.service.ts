// Resumable uploads (tus 1.0) through @tus/server on either storage backend. An upload is
// authorized when it is created (bucket, key, type and size limits, row-level security, the
// quota, which counts its declared length until it ends) and bound to its creator: anyone else
// is told there is no such upload. When its last byte arrives the object row is written in the
// completing caller's scope (row-level security decides again) in one transaction with the
// claim of the upload's row, so the object appears once, whole, with its size and MD5. Uploads
// left incomplete expire and are swept (on start, every few minutes, and when touched).
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Server } from '@tus/server';
import type { Upload } from '@tus/utils';
import { withTx } from '../../../core/db.js';
import { AppError } from '../../../core/errors.js';
import type { Principal } from '../../../core/principal.js';
import type { Deps } from '../../../deps.js';
import { tooLarge } from '../../../platform/blob-store/blob-store.js';
import { requesterOf } from '../direct-uploads.service.js';
import { assertObjectKey, normaliseMimeType } from '../keys.js';
import { createStorageConfig } from '../storage-config.service.js';
import * as storageRepo from '../storage.repo.js';
import { createStorageService } from '../storage.service.js';
import { createPgLocker } from './pg-locker.js';
import * as repo from './resumable.repo.js';
import type { ResumableRow } from './resumable.repo.js';
import { createResumableStore } from './tus-stores.js';

/** One URL that serves tus (Plinth's own, Supabase's), with its way of reading the upload's options. */
export interface ResumableSurface {
  /** Where the endpoint is, e.g. /api/storage/uploads/resumable; an upload's URL is <path>/<id>. */
  path: string;
  /** Whether the upload replaces an object already at its key (else 409). */
  upsert(headers: Headers, metadata: Record<string, string | null>): boolean;
  /** The Cache-Control the object is served with, from the metadata's cacheControl. */
  cacheControl(value: string | undefined): string | null;
}

/** What one request carries through the tus server's hooks. */
interface Call {
  principal: Principal;
  surface: ResumableSurface;
  row?: ResumableRow;
  error?: unknown;
}

/** Plinth's surface: upsert unless the metadata says upsert=false; cacheControl as seconds or max-age=N. */
export const PLINTH_SURFACE: ResumableSurface = {
  path: '/api/storage/uploads/resumable',
  upsert: (_headers, metadata) => metadata.upsert !== 'false',
  cacheControl: (value) => {
    const seconds = /^(?:max-age=)?(\d{1,10})$/.exec(value?.trim() ?? '')?.[1];
    return seconds === undefined ? null : `max-age=${seconds}`;
  },
};

const EMPTY_MD5 = 'd41d8cd98f00b204e9800998ecf8427e';
const SWEEP_EVERY_MS = 5 * 60 * 1000;

/** Said for an upload that does not exist, is someone else's, or ended: nothing tells them apart. */
export const noSuchUpload = () =>
  new AppError('NOT_FOUND', 'No such upload.', {
    nextActions: 'Create the upload again with POST to the resumable endpoint.',
  });

const missingMetadata = () =>
  new AppError('STORAGE_INVALID_PARAMETER', 'Upload-Metadata must name the bucketName and the objectName.', {
    nextActions: 'Send Upload-Metadata with bucketName, objectName and optionally contentType and cacheControl.',
  });

export async function createResumableUploads(deps: Deps, options: { onError(err: unknown): void }) {
  const { sql, clock, config, blobStore } = deps;
  const storage = createStorageService(deps, createStorageConfig(deps));
  const store = await createResumableStore(config.storage, blobStore);
  /** Where bodies with Upload-Checksum are staged while they are verified. */
  const chunkDir = path.join(config.dataDir, 'tmp', 'resumable-chunks');
  await mkdir(chunkDir, { recursive: true, mode: 0o700 });
  const locker = createPgLocker(deps.directSql, { acquireTimeoutMs: 10_000, onError: options.onError });
  const calls = new WeakMap<Request, Call>();
  const expiryMs = config.storage.resumableExpirySeconds * 1000;

  const callOf = (req: Request): Call => {
    const call = calls.get(req);
    if (!call) throw new Error('a tus request without its call');
    return call;
  };

  /** The caller's own upload, not expired; 404 for anyone else's, 410 (and removed) once expired. */
  async function ownUpload(uploadId: string | undefined, principal: Principal): Promise<ResumableRow> {
    const row = uploadId ? await repo.findResumable(sql, uploadId) : undefined;
    if (!row || row.created_by !== requesterOf(principal)) throw noSuchUpload();
    if (row.expires_at <= clock.now()) {
      await removeExpired(row.id);
      throw new AppError('STORAGE_UPLOAD_EXPIRED', undefined, {
        nextActions: `Incomplete uploads expire after ${config.storage.resumableExpirySeconds} s: upload the file again.`,
      });
    }
    return row;
  }

  /** Removes an upload's row and every byte it left, unless a request holds it right now. */
  async function removeExpired(uploadId: string): Promise<boolean> {
    const release = await locker.tryAcquire(store.storeId(uploadId));
    if (!release) return false;
    try {
      if (!(await repo.deleteResumable(sql, uploadId))) return false;
      await store.discard(uploadId);
      await blobStore.remove(uploadId);
      return true;
    } finally {
      await release();
    }
  }

  /** Checks a new upload against the bucket, the key, the caller's policies and the quota; notes it. */
  async function create(req: Request, upload: Upload): Promise<{ metadata?: Upload['metadata'] }> {
    const { principal, surface } = callOf(req);
    const metadata = upload.metadata ?? {};
    const bucketName = metadata.bucketName ?? metadata.bucket;
    const key = metadata.objectName ?? metadata.key;
    if (!bucketName || !key) throw missingMetadata();
    const size = upload.size ?? 0;
    const mimeType = normaliseMimeType(metadata.contentType ?? metadata.filetype ?? undefined);
    const upsert = surface.upsert(req.headers, metadata);
    const bucket = await storage.bucketOf(bucketName);
    assertObjectKey(key);
    storage.assertAllowedType(bucket, mimeType);
    const global = await storage.maxBytes();
    const limit = bucket.file_size_limit === null ? global : Math.min(global, Number(bucket.file_size_limit));
    if (size > limit) throw tooLarge(limit);
    await storage.probeWrite(bucketName, key, principal);
    if (!upsert && (await storageRepo.findObject(sql, bucketName, key)))
      throw new AppError('STORAGE_ALREADY_EXISTS', 'The resource already exists.', {
        nextActions: 'Send x-upsert: true (or the metadata upsert=true) to replace it, or choose another name.',
      });
    const uploadId = store.uploadIdOf(upload.id)!;
    const now = clock.now();
    await withTx(sql, async (tx) => {
      await storage.assertQuota(tx, size);
      await repo.insertResumable(tx, {
        id: uploadId,
        bucket: bucketName,
        key,
        uploadLength: size,
        mimeType,
        cacheControl: surface.cacheControl(metadata.cacheControl ?? undefined),
        upsert,
        createdBy: requesterOf(principal),
        createdAt: now,
        expiresAt: new Date(now.getTime() + expiryMs),
      });
    });
    return { metadata: upload.metadata };
  }

  /** Writes the object row of a complete upload (or removes everything when that is refused). */
  async function complete(req: Request, upload: Upload): Promise<Record<string, never>> {
    const call = callOf(req);
    const uploadId = store.uploadIdOf(upload.id)!;
    const row = call.row ?? (await ownUpload(uploadId, call.principal));
    const size = Number(row.upload_length);
    try {
      // The bucket's limits may have changed since the upload began.
      storage.assertAllowedType(await storage.bucketOf(row.bucket), row.mime_type);
      const etag = size === 0 ? EMPTY_MD5 : await store.md5(uploadId, size);
      await storage.withPendingBlob(uploadId, async () => {
        await store.settle(uploadId, size);
        return storage.adoptBlob(
          {
            bucket: row.bucket,
            key: row.key,
            blobId: uploadId,
            size,
            etag,
            mimeType: row.mime_type,
            cacheControl: row.cache_control,
            principal: call.principal,
            upsert: row.upsert,
          },
          async (tx) => {
            await storageRepo.claimBlob(tx, uploadId);
            return repo.claimResumable(tx, uploadId);
          },
        );
      });
    } catch (err) {
      // Refused at completion: the upload cannot complete any more, so nothing of it stays.
      await repo.deleteResumable(sql, uploadId).catch(options.onError);
      await store.discard(uploadId).catch(options.onError);
      throw err;
    }
    await store.forgetInfo(uploadId).catch(options.onError);
    return {};
  }

  function serverFor(surface: ResumableSurface): Server {
    return new Server({
      path: surface.path,
      datastore: store.datastore,
      locker,
      lockDrainTimeout: 3000,
      disableTerminationForFinishedUploads: true,
      // CORS is the app's (http/cors.ts): the tus server adds no Allow-Origin of its own.
      allowedOrigins: () => false,
      maxSize: () => storage.maxBytes(),
      namingFunction: () => store.storeId(randomUUID()),
      generateUrl: (_req, { path: base, id }) => `${base}/${store.uploadIdOf(id)}`,
      getFileIdFromRequest: (_req, last) => {
        const uploadId = last === undefined ? undefined : store.uploadIdOf(store.storeId(last));
        return uploadId && store.storeId(uploadId);
      },
      onIncomingRequest: async (req, storeId) => {
        if (req.method === 'POST') return;
        const call = callOf(req);
        call.row = await ownUpload(store.uploadIdOf(storeId), call.principal);
      },
      onUploadCreate: create,
      onUploadFinish: complete,
      onResponseError: (req, err) => {
        const call = calls.get(req);
        // Plinth's own errors (and unexpected ones) are rendered by the app's error handler.
        if (call && (err instanceof AppError || !('status_code' in err))) call.error = err;
        return undefined;
      },
    });
  }

  let timer: NodeJS.Timeout | undefined;

  /** Removes every expired upload nobody is writing; how many went. */
  async function sweepExpired(): Promise<number> {
    let removed = 0;
    for (const id of await repo.expiredResumables(sql, clock.now())) if (await removeExpired(id)) removed++;
    return removed;
  }

  return {
    chunkDir,
    serverFor,

    /** Runs one tus request; `error` is what the app renders instead of the tus answer. */
    async handle(server: Server, request: Request, surface: ResumableSurface, principal: Principal) {
      const call: Call = { principal, surface };
      calls.set(request, call);
      const response = await server.handleWeb(request);
      // Terminated: the row stops counting in the quota, and what the tus store leaves behind
      // (S3's incomplete part) goes too.
      if (request.method === 'DELETE' && response.status === 204 && call.row) {
        await repo.deleteResumable(sql, call.row.id);
        await store.discard(call.row.id);
      }
      return { response, error: call.error };
    },

    /** The caller's upload, before a checksummed body is staged (404/410 as for any request). */
    ownUpload,

    /** When the caller's incomplete upload expires (for Upload-Expires); undefined once complete. */
    async expiresAt(uploadId: string): Promise<Date | undefined> {
      return (await repo.findResumable(sql, uploadId))?.expires_at;
    },

    uploadIdOfUrl: (last: string) => store.uploadIdOf(store.storeId(last)),

    /** The largest object accepted right now (a creation's staged body is held to it). */
    maxBytes: () => storage.maxBytes(),

    sweepExpired,

    async start(): Promise<void> {
      await locker.start();
      await sweepExpired().catch(options.onError);
      timer = setInterval(() => void sweepExpired().catch(options.onError), Math.min(SWEEP_EVERY_MS, expiryMs));
      timer.unref();
    },

    async close(): Promise<void> {
      clearInterval(timer);
      await locker.close();
    },
  };
}

export type ResumableUploads = Awaited<ReturnType<typeof createResumableUploads>>;
