// Moving, copying and listing objects folder by folder, each in the caller's row-level security:
// a move needs the caller to see the source and to be allowed the new name (UPDATE's USING and
// WITH CHECK); a copy reads as the caller and writes as the caller.
import { AppError } from '../../core/errors.js';
import { withPgOverrides } from '../../core/pg-errors.js';
import type { Principal } from '../../core/principal.js';
import { assertBucketName, assertObjectKey } from './keys.js';
import { type FolderQuery, listFolder } from './folders.repo.js';
import * as repo from './storage.repo.js';
import type { ObjectRow, StorageService } from './storage.service.js';

export type { FolderEntry, FolderQuery, FolderSortColumn } from './folders.repo.js';

export interface ObjectAt {
  bucket: string;
  key: string;
}

const notFound = () => new AppError('OBJECT_NOT_FOUND', 'Object not found.');
const exists = () => new AppError('STORAGE_ALREADY_EXISTS', 'The resource already exists.');

export function createObjectOps(storage: StorageService) {
  return {
    /** Renames an object; 404 when the caller does not see the source, 409 when the target is taken. */
    async move(from: ObjectAt, to: ObjectAt, principal: Principal): Promise<ObjectRow> {
      assertObjectKey(from.key);
      assertObjectKey(to.key);
      await storage.bucketOf(from.bucket);
      if (to.bucket !== from.bucket) await storage.bucketOf(to.bucket);
      const moved = await withPgOverrides({ '23505': exists }, () =>
        storage.scoped(principal, (tx) => repo.moveObject(tx, from, to)),
      );
      if (!moved) throw notFound();
      return moved;
    },

    /** Copies an object's bytes to a new key (replacing what is there only when `upsert`). */
    async copy(from: ObjectAt, to: ObjectAt, principal: Principal, upsert: boolean): Promise<ObjectRow> {
      const source = await storage.head(from.bucket, from.key, principal);
      const { row, body } = await storage.open(source, principal);
      return storage.putRow({
        bucket: to.bucket,
        key: to.key,
        body,
        mimeType: row.mime_type,
        cacheControl: row.cache_control,
        principal,
        upsert,
      });
    },

    /** One level of `bucket` under `q.folder`: folders first-class (id null), then files. */
    async listFolder(bucket: string, q: FolderQuery, principal: Principal) {
      assertBucketName(bucket);
      await storage.bucketOf(bucket);
      return storage.scoped(principal, (tx) => listFolder(tx, bucket, q));
    },
  };
}

export type ObjectOps = ReturnType<typeof createObjectOps>;
