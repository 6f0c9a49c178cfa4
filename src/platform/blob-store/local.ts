// Blobs as files under one directory: staged in tmp/ (same file system), renamed into blobs/
// when promoted, so a reader never sees a partial file.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { meter, type BlobStore } from './blob-store.js';

const STALE_STAGING_MS = 60 * 60 * 1000;

export async function createLocalBlobStore(dir: string): Promise<BlobStore> {
  const tmpDir = path.join(dir, 'tmp');
  const blobDir = path.join(dir, 'blobs');
  await mkdir(tmpDir, { recursive: true, mode: 0o700 });
  await mkdir(blobDir, { recursive: true, mode: 0o700 });
  // Staged files of uploads a crash interrupted have no row and never will. Another server on
  // the same disk may be staging right now, so only files untouched for an hour go.
  for (const name of await readdir(tmpDir)) {
    const file = path.join(tmpDir, name);
    const info = await stat(file).catch(() => null);
    if (info && Date.now() - info.mtimeMs > STALE_STAGING_MS) await rm(file, { force: true });
  }

  const tmpPath = (id: string) => path.join(tmpDir, id);
  const blobPath = (id: string) => path.join(blobDir, id.slice(0, 2), id);

  return {
    kind: 'local',
    locate: blobPath,
    async stage(id, body, maxBytes) {
      const counter = meter(maxBytes);
      try {
        await pipeline(body, counter, createWriteStream(tmpPath(id), { flags: 'wx', mode: 0o600 }));
      } catch (err) {
        await rm(tmpPath(id), { force: true });
        throw err;
      }
      return { id, size: counter.size(), md5: counter.md5() };
    },
    async promote(id) {
      await mkdir(path.dirname(blobPath(id)), { recursive: true, mode: 0o700 });
      await rename(tmpPath(id), blobPath(id));
    },
    async adoptFile(id, file) {
      await mkdir(path.dirname(blobPath(id)), { recursive: true, mode: 0o700 });
      await rename(file, blobPath(id));
    },
    async remove(id) {
      await rm(tmpPath(id), { force: true });
      await rm(blobPath(id), { force: true });
    },
    async read(id, range): Promise<Readable | null> {
      const file = blobPath(id);
      try {
        await stat(file);
      } catch {
        return null;
      }
      const stream = createReadStream(file, range ? { start: range.start, end: range.end } : {});
      // The file may be unlinked between stat and open: surface that as "missing".
      return await new Promise<Readable | null>((resolve) => {
        stream.once('open', () => resolve(stream));
        stream.once('error', () => resolve(null));
      });
    },
  };
}
