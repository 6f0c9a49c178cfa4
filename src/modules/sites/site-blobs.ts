// The bytes of site files in the blob store, addressed by SHA-1: an upload is staged, hashed on
// the way, checked against what the manifest promised, and kept once per SHA-1 however many
// deployments use it. Compressible files get Brotli and gzip variants when they are published.
import { createHash, randomUUID } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { AppError } from '../../core/errors.js';
import type { Sql } from '../../core/db.js';
import type { Clock } from '../../core/clock.js';
import type { BlobStore } from '../../platform/blob-store/blob-store.js';
import * as repo from './sites.repo.js';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Precompressed variants are made for files of these types between these sizes. */
const COMPRESSIBLE = /^(text\/|application\/(javascript|json|xml|manifest\+json|wasm|xhtml\+xml)|image\/svg\+xml)/;
const MIN_COMPRESS_BYTES = 256;
const MAX_COMPRESS_BYTES = 16 * 1024 * 1024;

export interface SiteBlobs {
  /**
   * Stores `body`, which must hash to `expected.sha` and be `expected.size` bytes when given
   * (400 otherwise, nothing kept); answers what it hashed to.
   */
  store(
    body: Readable,
    maxBytes: number,
    expected?: { sha: string; size: number },
  ): Promise<{ sha: string; size: number }>;
  /** Adds Brotli and gzip variants of a stored file when that pays (idempotent). */
  precompress(sha: string, contentType: string): Promise<void>;
  read(blobId: string, range?: { start: number; end: number }): Promise<Readable | null>;
  remove(blobIds: string[]): Promise<void>;
}

function sha1Meter(maxBytes: number): Transform & { sha(): string; size(): number } {
  const hash = createHash('sha1');
  let size = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) {
        return done(
          new AppError('PAYLOAD_TOO_LARGE', `A site file may have at most ${maxBytes} bytes.`, {
            nextActions: 'Leave large media out of the site (serve it from storage), or raise SITES_MAX_FILE_BYTES.',
          }),
        );
      }
      hash.update(chunk);
      done(null, chunk);
    },
  });
  let digest: string | undefined;
  return Object.assign(t, { sha: () => (digest ??= hash.digest('hex')), size: () => size });
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function createSiteBlobs(deps: { sql: Sql; blobStore: BlobStore; clock: Clock }): SiteBlobs {
  const { blobStore } = deps;

  /** Keeps a staged blob under `sha`/`encoding`, or drops it when another copy got there first. */
  const keep = async (blob: repo.BlobRow) => {
    await blobStore.promote(blob.blobId);
    const inserted = await repo.insertBlob(deps.sql, blob, deps.clock.now()).catch(async (err) => {
      await blobStore.remove(blob.blobId).catch(() => {});
      throw err;
    });
    if (!inserted) await blobStore.remove(blob.blobId);
  };

  const storeBuffer = async (bytes: Buffer, sha: string, encoding: repo.BlobRow['encoding']) => {
    const blobId = randomUUID();
    const staged = await blobStore.stage(blobId, Readable.from([bytes]), bytes.length);
    await keep({ sha, encoding, blobId, size: staged.size });
  };

  return {
    async store(body, maxBytes, expected) {
      const meter = sha1Meter(maxBytes);
      body.on('error', (err) => meter.destroy(err));
      const blobId = randomUUID();
      await blobStore.stage(blobId, body.pipe(meter), maxBytes);
      const got = { sha: meter.sha(), size: meter.size() };
      if (expected && (got.sha !== expected.sha || got.size !== expected.size)) {
        await blobStore.remove(blobId);
        throw new AppError(
          'DEPLOYMENT_INVALID_FILE',
          `The bytes sent (SHA-1 ${got.sha}, ${got.size} bytes) are not the file of the manifest (SHA-1 ${expected.sha}, ${expected.size} bytes).`,
          { nextActions: 'Send the file the manifest named, unchanged, as application/octet-stream.' },
        );
      }
      await keep({ sha: got.sha, encoding: 'identity', blobId, size: got.size });
      return got;
    },

    async precompress(sha, contentType) {
      if (!COMPRESSIBLE.test(contentType)) return;
      const blobs = await repo.blobsOf(deps.sql, sha);
      const identity = blobs.find((b) => b.encoding === 'identity');
      if (!identity || identity.size < MIN_COMPRESS_BYTES || identity.size > MAX_COMPRESS_BYTES) return;
      const have = new Set(blobs.map((b) => b.encoding));
      if (have.has('br') && have.has('gzip')) return;
      const stream = await blobStore.read(identity.blobId);
      if (!stream) return;
      const bytes = await readAll(stream);
      // A variant is kept only when it saves at least a tenth: serving it must be worth the lookup.
      const worthIt = (packed: Buffer) => packed.length <= bytes.length * 0.9;
      if (!have.has('br')) {
        const packed = await brotli(bytes, {
          params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length },
        });
        if (worthIt(packed)) await storeBuffer(packed, sha, 'br');
      }
      if (!have.has('gzip')) {
        const packed = await gzipAsync(bytes, { level: 9 });
        if (worthIt(packed)) await storeBuffer(packed, sha, 'gzip');
      }
    },

    read: (blobId, range) => blobStore.read(blobId, range),

    async remove(blobIds) {
      for (const id of blobIds) await blobStore.remove(id).catch(() => {});
    },
  };
}
