// Where a resumable upload's bytes go while it is incomplete, per storage backend, through the
// maintained tus stores: on local disk @tus/file-store under <STORAGE_DIR>/resumable (renamed
// into the blob store when complete: same file system, atomic); on S3 @tus/s3-store, whose
// multipart upload targets the blob's own key, so completing it puts the blob in place. Both keep
// a running MD5 of bytes written in order on this server, so completion needs no second read.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { FileStore } from '@tus/file-store';
import type { DataStore } from '@tus/utils';
import type { Config } from '../../../config.js';
import type { BlobStore } from '../../../platform/blob-store/blob-store.js';

/** The extensions served: creation-defer-length is left out (length, limits and quota are checked up front). */
const EXTENSIONS = ['creation', 'creation-with-upload', 'termination', 'expiration', 'checksum'];

/** How many uploads' running digests one server keeps (an evicted one is read back at completion). */
const MAX_RUNNING_HASHES = 1000;

export interface ResumableStore {
  datastore: DataStore;
  /** The tus store's id of upload `uploadId` (the URL's id). */
  storeId(uploadId: string): string;
  /** The upload id of a tus store id; undefined for anything else. */
  uploadIdOf(storeId: string): string | undefined;
  /** MD5 (hex) of the complete upload: the running digest, or the bytes read back. */
  md5(uploadId: string, size: number): Promise<string>;
  /** Puts the complete bytes (`size` of them) in place as blob `uploadId` (noted as pending by the caller). */
  settle(uploadId: string, size: number): Promise<void>;
  /** Forgets the tus bookkeeping of a settled upload, never its bytes. */
  forgetInfo(uploadId: string): Promise<void>;
  /** Removes whatever an unsettled upload left (bytes, parts, bookkeeping); missing is fine. */
  discard(uploadId: string): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** MD5 of bytes written in order, per upload, advanced only when the store took exactly them. */
class RunningHashes {
  private readonly entries = new Map<string, { offset: number; hash: Hash }>();

  async write(id: string, offset: number, src: Readable, write: (s: Readable) => Promise<number>): Promise<number> {
    const entry = this.entries.get(id);
    const base = entry?.offset === offset ? entry.hash : offset === 0 ? createHash('md5') : undefined;
    this.entries.delete(id);
    if (!base) return write(src);
    const hash = base.copy();
    let seen = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        seen += chunk.length;
        done(null, chunk);
      },
    });
    src.once('error', (err) => tap.destroy(err));
    src.pipe(tap);
    const next = await write(tap);
    if (next === offset + seen) {
      if (this.entries.size >= MAX_RUNNING_HASHES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(id, { offset: next, hash });
    }
    return next;
  }

  /** The digest when every byte up to `size` went through this server in order. */
  take(id: string, size: number): string | undefined {
    const entry = this.entries.get(id);
    this.entries.delete(id);
    return entry?.offset === size ? entry.hash.digest('hex') : undefined;
  }

  forget(id: string): void {
    this.entries.delete(id);
  }
}

async function md5Of(body: Readable): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of body) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function createResumableStore(config: Config['storage'], blobStore: BlobStore): Promise<ResumableStore> {
  const hashes = new RunningHashes();
  if (config.backend === 's3' && config.s3) return createS3ResumableStore(config, hashes);
  const directory = path.join(config.dir, 'resumable');
  const adoptFile = blobStore.adoptFile?.bind(blobStore);
  if (!adoptFile) throw new Error('the local blob store cannot adopt files');

  class PlinthFileStore extends FileStore {
    override write(readable: Readable, id: string, offset: number): Promise<number> {
      return hashes.write(id, offset, readable, (s) => super.write(s, id, offset));
    }
  }
  const store = new PlinthFileStore({ directory });
  store.extensions = EXTENSIONS;
  const file = (uploadId: string) => path.join(directory, uploadId);
  return {
    datastore: store,
    storeId: (uploadId) => uploadId,
    uploadIdOf: (storeId) => (UUID.test(storeId) ? storeId : undefined),
    async md5(uploadId, size) {
      return hashes.take(uploadId, size) ?? md5Of(createReadStream(file(uploadId)));
    },
    settle: (uploadId) => adoptFile(uploadId, file(uploadId)),
    forgetInfo: (uploadId) => store.configstore.delete(uploadId),
    async discard(uploadId) {
      hashes.forget(uploadId);
      await rm(file(uploadId), { force: true });
      await store.configstore.delete(uploadId).catch(() => {});
    },
  };
}

async function createS3ResumableStore(config: Config['storage'], hashes: RunningHashes): Promise<ResumableStore> {
  const s3 = config.s3!;
  const [{ S3Store }, { s3BlobKey }] = await Promise.all([
    import('@tus/s3-store'),
    import('../../../platform/blob-store/s3.js'),
  ]);
  const keyOf = (uploadId: string) => s3BlobKey(s3.prefix, uploadId);

  class PlinthS3Store extends S3Store {
    override write(readable: Readable, id: string, offset: number): Promise<number> {
      return hashes.write(id, offset, readable, (s) => super.write(s, id, offset));
    }

    /** The complete object's bytes. */
    async body(id: string): Promise<Readable> {
      return (await this.client.getObject({ Bucket: this.bucket, Key: id })).Body as Readable;
    }

    async putEmpty(id: string): Promise<void> {
      await this.discard(id);
      await this.client.putObject({ Bucket: this.bucket, Key: id, Body: '' });
    }

    async forgetInfo(id: string): Promise<void> {
      await this.client.deleteObject({ Bucket: this.bucket, Key: this.infoKey(id) });
      await this.clearCache(id);
    }

    /** Aborts the multipart upload (if still open) and deletes its object, info and incomplete part. */
    async discard(id: string): Promise<void> {
      const uploadId = await this.getMetadata(id).then(
        (m) => m['upload-id'],
        () => undefined,
      );
      if (uploadId)
        await this.client.abortMultipartUpload({ Bucket: this.bucket, Key: id, UploadId: uploadId }).catch(() => {});
      await this.client.deleteObjects({
        Bucket: this.bucket,
        Delete: { Objects: [{ Key: id }, { Key: this.infoKey(id) }, { Key: this.partKey(id, true) }] },
      });
      await this.clearCache(id);
    }
  }

  const store = new PlinthS3Store({
    partSize: 8 * 1024 * 1024,
    // Parts are staged on disk and sent a few at a time: memory stays flat on large uploads.
    maxConcurrentPartUploads: 4,
    s3ClientConfig: {
      // Parts are files of known length: plain signed bodies, which every S3-compatible server
      // takes (the SDK's default streams them aws-chunked with a trailing checksum).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      bucket: s3.bucket,
      region: config.region,
      endpoint: s3.endpoint,
      forcePathStyle: s3.forcePathStyle,
      credentials:
        s3.accessKeyId && s3.secretAccessKey
          ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }
          : undefined,
    },
  });
  store.extensions = EXTENSIONS;
  const prefix = keyOf('');
  return {
    datastore: store,
    storeId: keyOf,
    uploadIdOf(storeId) {
      const id = storeId.startsWith(prefix) ? storeId.slice(prefix.length) : '';
      return UUID.test(id) ? id : undefined;
    },
    async md5(uploadId, size) {
      return hashes.take(keyOf(uploadId), size) ?? md5Of(await store.body(keyOf(uploadId)));
    },
    async settle(uploadId, size) {
      // Completing the multipart upload wrote the object at the blob's key already; an empty
      // upload never wrote a part, so its (empty) object is put instead.
      if (size === 0) await store.putEmpty(keyOf(uploadId));
    },
    forgetInfo: (uploadId) => store.forgetInfo(keyOf(uploadId)),
    async discard(uploadId) {
      hashes.forget(keyOf(uploadId));
      await store.discard(keyOf(uploadId));
    },
  };
}
