// Upload strategies: a direct PUT to this server on local disk; on S3 a presigned browser POST
// straight to the bucket, noted until the client confirms it and its object row is written.
import { randomUUID } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../core/principal.js';
import { tooLarge } from '../../platform/blob-store/blob-store.js';
import { assertObjectKey, encodeKey, normaliseMimeType } from './keys.js';
import * as repo from './storage.repo.js';
import type { StorageService, StoredFile } from './storage.service.js';

const POST_TTL_MS = 60 * 60 * 1000;
/** How long after its policy lapsed an upload may still be confirmed; the sweep then removes it. */
const CONFIRM_GRACE_MS = 60 * 60 * 1000;

export interface StrategyRequest {
  filename: string;
  contentType?: string;
  size?: number;
}

export interface ConfirmRequest {
  size: number;
  contentType?: string;
  etag?: string;
}

/** Who asked for an upload: only they may confirm it. */
export const requesterOf = (p: Principal): string => {
  if (p.kind === 'user') return `user:${p.userId}`;
  if (p.kind === 'anon') return 'anon';
  return p.via === 'apiKey' ? 'api-key' : `admin:${p.subject}`;
};

const notUploaded = () =>
  new AppError('OBJECT_NOT_FOUND', 'Nothing was uploaded for this key.', {
    nextActions: 'POST the file to the uploadUrl with the fields from upload-strategy, then confirm.',
  });

const mismatch = (message: string) => new AppError('STORAGE_INVALID_PARAMETER', message);

export function createDirectUploads(deps: Pick<Deps, 'sql' | 'blobStore' | 'clock'>, storage: StorageService) {
  const { sql, blobStore, clock } = deps;
  const path = (bucket: string, key: string) => `/api/storage/buckets/${bucket}/objects/${encodeKey(key)}`;
  const confirmableAfter = () => new Date(clock.now().getTime() - CONFIRM_GRACE_MS);

  async function discard(blobId: string): Promise<void> {
    await blobStore.remove(blobId);
    await repo.forgetDirectUpload(sql, blobId);
  }

  return {
    /** How the client uploads `filename` to `bucket`; 403 first when row-level security forbids it. */
    async strategy(bucket: string, principal: Principal, req: StrategyRequest) {
      await storage.bucketOf(bucket);
      const key = req.filename;
      assertObjectKey(key);
      const maxBytes = await storage.maxBytes();
      if (req.size !== undefined && req.size > maxBytes) throw tooLarge(maxBytes);
      await storage.probeWrite(bucket, key, principal);
      const direct = blobStore.direct;
      if (!direct)
        return {
          method: 'direct' as const,
          uploadUrl: `${storage.baseUrl}${path(bucket, key)}`,
          key,
          confirmRequired: false,
        };
      const blobId = randomUUID();
      const now = clock.now();
      const expires = new Date(now.getTime() + POST_TTL_MS);
      // Noted before the client can write, so bytes never confirmed are found by the sweep.
      await repo.noteDirectUpload(sql, {
        blobId,
        bucket,
        key,
        requestedBy: requesterOf(principal),
        expiresAt: expires,
      });
      const contentType = req.contentType ? normaliseMimeType(req.contentType) : undefined;
      const post = await direct.presignPost(blobId, { maxBytes, contentType, now, expires });
      return {
        method: 'presigned' as const,
        uploadUrl: post.url,
        fields: post.fields,
        key,
        confirmRequired: true,
        confirmUrl: `${path(bucket, key)}/confirm-upload`,
        expiresAt: expires.toISOString(),
      };
    },

    /**
     * Records the object the caller posted to the backend: it must be there (HeadObject), within
     * the size limit (else it is removed: 413) and match the declared size and ETag.
     */
    async confirm(bucket: string, key: string, principal: Principal, req: ConfirmRequest): Promise<StoredFile> {
      assertObjectKey(key);
      await storage.bucketOf(bucket);
      const direct = blobStore.direct;
      if (!direct) throw notUploaded();
      // The newest upload noted for this caller and key whose bytes arrived.
      const noted = await repo.confirmableUploads(sql, bucket, key, requesterOf(principal), confirmableAfter());
      let found: { blobId: string; size: number; etag: string; contentType?: string } | undefined;
      for (const blobId of noted) {
        const stat = await direct.stat(blobId);
        if (stat) {
          found = { blobId, ...stat };
          break;
        }
      }
      if (!found) throw notUploaded();
      const maxBytes = await storage.maxBytes();
      if (found.size > maxBytes) {
        await discard(found.blobId);
        throw tooLarge(maxBytes);
      }
      if (req.size !== found.size) throw mismatch(`The uploaded object has ${found.size} bytes, not ${req.size}.`);
      if (req.etag !== undefined && req.etag.replace(/"/g, '') !== found.etag)
        throw mismatch('The ETag does not match the uploaded object.');
      // The posted blob stays writable while its policy lasts: the object gets a copy of it that
      // no policy names (noted as pending until its row is written), and the posted one goes.
      const posted = found.blobId;
      const sealed = randomUUID();
      const { size, etag, contentType } = found;
      const file = await storage.withPendingBlob(sealed, async () => {
        if (!(await direct.copy(posted, sealed, etag)))
          throw mismatch('The uploaded object changed while it was confirmed; confirm again.');
        return storage.adoptBlob(
          {
            bucket,
            key,
            blobId: sealed,
            size,
            etag,
            mimeType: normaliseMimeType(req.contentType ?? contentType),
            principal,
          },
          async (tx) => {
            await repo.claimBlob(tx, sealed);
            return repo.claimDirectUpload(tx, posted);
          },
        );
      });
      await blobStore.remove(posted);
      return file;
    },

    /** Removes uploads nobody confirmed in time, with any bytes they left in the backend. */
    async sweep(): Promise<void> {
      for (const blobId of await repo.lapsedDirectUploads(sql, confirmableAfter())) await discard(blobId);
    },
  };
}

export type DirectUploads = ReturnType<typeof createDirectUploads>;
