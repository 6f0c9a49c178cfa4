// Multipart uploads of the S3 gateway: an upload in progress, its parts (each staged as a blob of
// its own and claimed in the transaction that records it), listing, and removal.
import type { Readable } from 'node:stream';
import type { StagedBlob } from '../../platform/blob-store/blob-store.js';
import type { Deps } from '../../deps.js';
import * as repo from './multipart.repo.js';
import { claimBlob } from './storage.repo.js';
import type { StorageService } from './storage.service.js';

export type { MultipartUploadRow, PartRow, UploadInProgress } from './multipart.repo.js';

export function createMultipartService(deps: Pick<Deps, 'sql' | 'blobStore'>, storage: StorageService) {
  const { sql } = deps;
  return {
    find: (uploadId: string, bucket: string, key: string) => repo.findMultipartUpload(sql, uploadId, bucket, key),

    create: (upload: repo.NewMultipartUpload) => repo.insertMultipartUpload(sql, upload),

    parts: (uploadId: string) => repo.listParts(sql, uploadId),

    inProgress: (bucket: string, prefix: string, keyMarker: string, idMarker: string | null) =>
      repo.listUploadsInProgress(sql, bucket, prefix, keyMarker, idMarker),

    /** Stages `body` as part `partNumber` of the upload, replacing an earlier part of that number. */
    async storePart(uploadId: string, partNumber: number, body: Readable): Promise<StagedBlob> {
      const staged = await storage.withNewBlob(body, (blob) =>
        sql.begin(async (tx) => {
          await deps.blobStore.promote(blob.id);
          await repo.upsertPart(tx, { uploadId, partNumber, blobId: blob.id, size: blob.size, etag: blob.md5 });
          await claimBlob(tx, blob.id);
          return blob;
        }),
      );
      await storage.sweepOrphans();
      return staged;
    },

    /** Removes the upload (completed or aborted) and the bytes of its parts. */
    async remove(uploadId: string): Promise<void> {
      await repo.deleteMultipartUpload(sql, uploadId);
      await storage.sweepOrphans();
    },
  };
}

export type MultipartService = ReturnType<typeof createMultipartService>;
