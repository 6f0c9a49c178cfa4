// Files in and out of a deployment: a legacy source zip read entry by entry (names checked like
// manifest paths, sizes capped however the archive describes itself, so neither a crafted name
// nor a zip bomb gets past), uploaded files written into a scratch folder for a build, and a
// build's output folder read back (regular files only: a symlink a build made to a server file is
// never followed).
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { AppError } from '../../core/errors.js';
import type { SiteBlobs } from './site-blobs.js';
import { deploymentFilePathSchema } from './sites.schemas.js';

export interface Limits {
  maxFileBytes: number;
  maxTotalBytes: number;
  maxFiles: number;
}

export interface StoredFile {
  path: string;
  sha: string;
  size: number;
}

const invalid = (message: string, nextActions: string) =>
  new AppError('DEPLOYMENT_INVALID_FILE', message, { nextActions });

const tooMany = (limits: Limits) =>
  invalid(
    `A deployment may have at most ${limits.maxFiles} files and ${limits.maxTotalBytes} bytes in all.`,
    'Leave out what the site does not serve (node_modules, caches, source maps), or raise SITES_MAX_FILES / SITES_MAX_TOTAL_BYTES.',
  );

/** Stores every file of the zip at `zipFile`; refuses bad names, links, and sizes past the limits. */
export async function storeZipEntries(zipFile: string, blobs: SiteBlobs, limits: Limits): Promise<StoredFile[]> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(
        zipFile,
        { lazyEntries: true, autoClose: true, strictFileNames: true, validateEntrySizes: true },
        (err, z) => (err ? reject(err) : resolve(z as yauzl.ZipFile)),
      ),
    );
  } catch (err) {
    throw invalid(
      `The source is not a readable zip archive: ${(err as Error).message}`,
      'Upload a zip file made with zip -r.',
    );
  }
  const stored: StoredFile[] = [];
  let total = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (err: unknown) => {
        zip.close();
        reject(err);
      };
      zip.on('error', (err: Error) =>
        fail(
          err instanceof AppError
            ? err
            : invalid(`The zip archive is damaged: ${err.message}`, 'Make the archive again.'),
        ),
      );
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        const name = entry.fileName;
        if (name.endsWith('/')) return zip.readEntry();
        // Unix mode in the upper half of the external attributes: links are refused, not followed.
        const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
        if (mode === 0o120000)
          return fail(invalid(`The archive holds a symbolic link (${name}).`, 'Archive the files themselves.'));
        const checked = deploymentFilePathSchema.safeParse(name);
        if (!checked.success) {
          return fail(
            invalid(
              `The archive holds a file with a bad name (${JSON.stringify(name)}).`,
              'Use relative names with forward slashes, without ".." segments.',
            ),
          );
        }
        if (stored.length + 1 > limits.maxFiles || total + entry.uncompressedSize > limits.maxTotalBytes)
          return fail(tooMany(limits));
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream)
            return fail(invalid(`The zip archive is damaged: ${err?.message}`, 'Make the archive again.'));
          blobs.store(stream, Math.min(limits.maxFileBytes, limits.maxTotalBytes - total)).then((file) => {
            total += file.size;
            stored.push({ path: name, ...file });
            zip.readEntry();
          }, fail);
        });
      });
      zip.readEntry();
    });
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw invalid(`The zip archive could not be read: ${(err as Error).message}`, 'Make the archive again.');
  }
  return stored;
}

/** Writes `files` (paths already checked) under `root`; each path must stay inside it. */
export async function writeFiles(
  root: string,
  files: { path: string; blobId: string }[],
  read: (blobId: string) => Promise<Readable | null>,
): Promise<void> {
  for (const file of files) {
    const target = path.join(root, ...file.path.split('/'));
    if (!target.startsWith(root + path.sep)) throw new Error(`path escapes the build folder: ${file.path}`);
    await mkdir(path.dirname(target), { recursive: true });
    const body = await read(file.blobId);
    if (!body) throw new Error(`the bytes of ${file.path} are missing from the blob store`);
    await pipeline(body, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
  }
}

/** A path inside `root` named by a relative setting (rootDirectory, outputDirectory), or a 400. */
export function insideFolder(root: string, relative: string | null | undefined, what: string): string {
  if (relative === undefined || relative === null || relative === '' || relative === '.' || relative === './')
    return root;
  const cleaned = relative.replace(/^\.\//, '').replace(/\/+$/, '');
  if (!deploymentFilePathSchema.safeParse(cleaned).success) {
    throw new AppError(
      'VALIDATION_ERROR',
      `${what} must be a relative folder inside the upload (${JSON.stringify(relative)}).`,
      {
        nextActions: `Give ${what} as a path such as "dist" or "apps/web".`,
      },
    );
  }
  return path.join(root, ...cleaned.split('/'));
}

/** Stores the regular files under `folder` (symlinks and other kinds skipped); answers their paths. */
export async function storeFolder(
  folder: string,
  blobs: SiteBlobs,
  limits: Limits,
  note: (line: string) => void,
): Promise<StoredFile[]> {
  const stored: StoredFile[] = [];
  let total = 0;
  const walk = async (dir: string, prefix: string) => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      const full = path.join(dir, entry.name);
      const info = await lstat(full);
      if (info.isSymbolicLink()) {
        note(`skipped ${rel}: a symbolic link is never published`);
        continue;
      }
      if (info.isDirectory()) {
        await walk(full, rel);
        continue;
      }
      if (!info.isFile()) continue;
      if (!deploymentFilePathSchema.safeParse(rel).success) {
        note(`skipped ${JSON.stringify(rel)}: not a publishable file name`);
        continue;
      }
      if (stored.length + 1 > limits.maxFiles || total + info.size > limits.maxTotalBytes) throw tooMany(limits);
      const file = await blobs.store(createReadStream(full), limits.maxFileBytes);
      total += file.size;
      stored.push({ path: rel, ...file });
    }
  };
  await walk(folder, '');
  return stored;
}
