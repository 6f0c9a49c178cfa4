// Checks an archive as its gzip bytes stream by (an upload on its way to the blob store): the
// first line, the header (handed to `accept`, which may refuse it), every record and block in
// order, the `{"end":true}` trailer with nothing after it, and its signature (handed to
// `acceptSignature`, which may refuse it). Nothing is kept but the header and the verdict.
import { Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { archiveMacCheck, type MacVerdict } from './archive-mac.js';
import { archiveReader, ArchiveFormatError, type ArchiveHeader } from './archive.js';

/** Blob ids name files in the blob store: no path separators, no leading dot. */
const BLOB_ID = /^[\w-][\w.-]{0,199}$/;

/** Reads a whole (gunzipped) archive, refusing what a restore would refuse. */
export async function verifyArchive(
  input: Readable,
  accept: (header: ArchiveHeader) => void | Promise<void>,
): Promise<ArchiveHeader> {
  const reader = archiveReader(input);
  await reader.start();
  const first = await reader.next();
  if (!first || typeof first !== 'object' || !('header' in first))
    throw new ArchiveFormatError('the archive has no header.');
  const header = first.header;
  if (
    !Array.isArray(header?.platformMigrations) ||
    !Array.isArray(header.userSchemas) ||
    Number.isNaN(Date.parse(header.createdAt))
  )
    throw new ArchiveFormatError('its header is not valid.');
  await accept(header);
  for (;;) {
    const record = await reader.next();
    if (!record || typeof record !== 'object') throw new ArchiveFormatError('the archive holds an unknown record.');
    if ('end' in record) break;
    if ('phase' in record || 'sql' in record) continue;
    if ('copy' in record) {
      for await (const _ of reader.rows());
      continue;
    }
    if ('blob' in record) {
      if (typeof record.blob !== 'string' || !BLOB_ID.test(record.blob) || !Number.isSafeInteger(record.size))
        throw new ArchiveFormatError('the archive names a stored file wrongly.');
      for await (const _ of reader.bytes(Math.max(0, record.size)));
      continue;
    }
    throw new ArchiveFormatError('the archive holds an unknown record.');
  }
  await reader.finish();
  return header;
}

/**
 * A pass-through for the archive's gzip bytes that verifies them on the way (gunzipped on the
 * side); it fails with the reason as soon as the archive is found wrong, and ends only once the
 * whole archive checked out. `header` settles with the verdict.
 */
export function archiveCheck(options: {
  keys: Buffer[];
  accept: (header: ArchiveHeader) => void | Promise<void>;
  acceptSignature: (verdict: MacVerdict) => void;
}): {
  tap: Transform;
  header: Promise<ArchiveHeader & { signed: boolean }>;
} {
  const gunzip = createGunzip();
  const mac = archiveMacCheck(options.keys, { require: false });
  // The reader surfaces gzip's errors (a damaged or truncated file) as ArchiveFormatError.
  gunzip.on('error', (err) => mac.tap.destroy(err));
  mac.tap.on('error', () => {});
  gunzip.pipe(mac.tap);
  // The reader meets the end record only after the mac check has its verdict (it holds the tail back).
  const header = verifyArchive(mac.tap, options.accept).then(async (h) => {
    const verdict = await mac.verdict;
    options.acceptSignature(verdict);
    return { ...h, signed: verdict === 'valid' };
  });
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (!gunzip.writable || gunzip.write(chunk)) return done(null, chunk);
      const go = () => {
        gunzip.off('drain', go).off('close', go);
        done(null, chunk);
      };
      gunzip.on('drain', go).on('close', go);
    },
    flush(done) {
      gunzip.end();
      header.then(
        () => done(),
        () => {},
      ); // a refusal destroys the tap (below)
    },
  });
  header.catch((err: Error) => {
    tap.destroy(err);
    gunzip.destroy();
    mac.tap.destroy();
  });
  return { tap, header };
}
