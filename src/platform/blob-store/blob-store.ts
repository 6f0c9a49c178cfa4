// The bytes of objects, named by blob id: staged while a body streams in (size limit and MD5
// counted on the way), promoted once the metadata row is written, removed when orphaned.
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { AppError } from '../../core/errors.js';

export interface StagedBlob {
  id: string;
  size: number;
  /** Hex MD5 of the bytes: the object's ETag. */
  md5: string;
}

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

export interface BlobStore {
  readonly kind: 'local' | 's3';
  /** Streams `body` to a staging place as blob `id`; rejects with 413 past `maxBytes` and leaves nothing. */
  stage(id: string, body: Readable, maxBytes: number): Promise<StagedBlob>;
  /** Makes a staged blob readable under its id. */
  promote(id: string): Promise<void>;
  /** Forgets a staged or promoted blob; missing blobs are fine. */
  remove(id: string): Promise<void>;
  /** The blob's bytes, or null when it does not exist. */
  read(id: string, range?: ByteRange): Promise<Readable | null>;
  /** Where blob `id` lives, for an operator: a file path, or an s3:// URL. */
  locate(id: string): string;
  /**
   * Local disk only: moves a complete file (on the same file system, e.g. a resumable upload's)
   * into place as blob `id`, atomically; it must be noted as pending first, like a staged blob.
   */
  adoptFile?(id: string, file: string): Promise<void>;
  /** Present when clients can write blobs to the backend themselves (S3: a presigned POST). */
  readonly direct?: DirectWrites;
}

/** Blobs a client writes straight to the backend, bypassing this server. */
export interface DirectWrites {
  /** The URL and form fields of a browser POST of blob `id`, at most `maxBytes`, valid until `expires`. */
  presignPost(
    id: string,
    options: { maxBytes: number; contentType?: string; now: Date; expires: Date },
  ): Promise<{ url: string; fields: Record<string, string> }>;
  /** What the backend holds as blob `id`, or null when nothing was written. */
  stat(id: string): Promise<{ size: number; etag: string; contentType?: string } | null>;
  /**
   * Copies blob `from` to `to` inside the backend if it still has ETag `etag`; false when it
   * changed. The copy is out of reach of `from`'s still-valid POST policy.
   */
  copy(from: string, to: string, etag: string): Promise<boolean>;
}

export const tooLarge = (maxBytes: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `File too large. Maximum upload size is ${maxBytes} bytes.`, {
    nextActions: 'Upload a smaller file, or raise STORAGE_MAX_FILE_SIZE_BYTES.',
  });

/** A pass-through that counts and hashes bytes and fails once more than `maxBytes` went by. */
export function meter(maxBytes: number): Transform & { size(): number; md5(): string } {
  const hash = createHash('md5');
  let size = 0;
  let digest: string | undefined;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) return done(tooLarge(maxBytes));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return Object.assign(t, {
    size: () => size,
    md5: () => (digest ??= hash.digest('hex')),
  });
}
