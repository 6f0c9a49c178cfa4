// tus's checksum extension, which @tus/server does not implement: a request carrying
// Upload-Checksum has its body staged to a temporary file (hashed on the way, at most the bytes
// the upload still lacks), and only a body whose digest matches reaches the tus store; a
// mismatch is 460 and the upload's offset does not move.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../../core/errors.js';
import { tooLarge } from '../../../platform/blob-store/blob-store.js';

/** The algorithms advertised in Tus-Checksum-Algorithm (sha1 is the one tus requires). */
export const CHECKSUM_ALGORITHMS = ['sha1', 'sha256', 'sha512', 'md5'] as const;

export interface UploadChecksum {
  algorithm: (typeof CHECKSUM_ALGORITHMS)[number];
  digest: Buffer;
}

const invalid = (message: string) =>
  new AppError('STORAGE_INVALID_PARAMETER', message, {
    nextActions: `Send Upload-Checksum as "<algorithm> <base64 digest>" with one of: ${CHECKSUM_ALGORITHMS.join(', ')}.`,
  });

/** Parses `Upload-Checksum: <algorithm> <base64>`; 400 for an unknown algorithm or a bad digest. */
export function parseUploadChecksum(header: string): UploadChecksum {
  const match = /^([a-z0-9-]+) ([A-Za-z0-9+/]+={0,2})$/.exec(header.trim());
  if (!match) throw invalid('Upload-Checksum must be "<algorithm> <base64 digest>".');
  const algorithm = match[1] as UploadChecksum['algorithm'];
  if (!CHECKSUM_ALGORITHMS.includes(algorithm)) throw invalid(`Unsupported checksum algorithm "${match[1]}".`);
  const digest = Buffer.from(match[2]!, 'base64');
  if (digest.length !== createHash(algorithm).digest().length) throw invalid('The checksum has the wrong length.');
  return { algorithm, digest };
}

export interface StagedBody {
  size: number;
  /** The staged bytes, read once; the file goes when the stream closes (or dispose() is called). */
  open(): Readable;
  dispose(): Promise<void>;
}

/**
 * Streams `body` to a file in `dir` while hashing it; 413 past `maxBytes`, 460 when the digest
 * differs. Nothing is left behind on failure.
 */
export async function stageVerified(
  body: Readable,
  dir: string,
  checksum: UploadChecksum,
  maxBytes: number,
): Promise<StagedBody> {
  const file = path.join(dir, `${randomUUID()}.chunk`);
  const hash = createHash(checksum.algorithm);
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) return done(tooLarge(maxBytes));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const dispose = () => rm(file, { force: true });
  try {
    await pipeline(body, meter, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
    if (!hash.digest().equals(checksum.digest)) {
      throw new AppError('STORAGE_CHECKSUM_MISMATCH', undefined, {
        nextActions: 'Send this chunk again from the offset a HEAD request reports.',
      });
    }
  } catch (err) {
    await dispose();
    throw err;
  }
  return {
    size,
    open: () => createReadStream(file).once('close', () => void dispose()),
    dispose,
  };
}
