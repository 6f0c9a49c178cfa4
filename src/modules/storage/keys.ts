// What a bucket name and an object key may be, how a key appears in a URL, and the keys given to
// uploads that name none.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { AppError } from '../../core/errors.js';

export const BUCKET_NAME = /^[a-zA-Z0-9_-]{1,63}$/;
const MAX_KEY_BYTES = 1024;

const invalid = (message: string) =>
  new AppError('STORAGE_INVALID_PARAMETER', message, {
    nextActions: 'Use a key of path segments separated by "/", without "..", "." or empty segments.',
  });

export function assertBucketName(name: string): void {
  if (!BUCKET_NAME.test(name)) {
    throw new AppError(
      'STORAGE_INVALID_PARAMETER',
      'Invalid bucket name. Use only letters, numbers, hyphens, and underscores.',
    );
  }
}

/** Rejects keys that could escape a directory, confuse a path or a header: 400. */
export function assertObjectKey(key: string): void {
  if (key.length === 0) throw invalid('The object key is empty.');
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES)
    throw invalid(`The object key is longer than ${MAX_KEY_BYTES} bytes.`);
  if (/\p{Cs}/u.test(key)) throw invalid('The object key is not valid Unicode.');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(key)) throw invalid('The object key contains a control character or a backslash.');
  if (key.startsWith('/')) throw invalid('The object key must not start with "/".');
  for (const segment of key.split('/').slice(0, key.endsWith('/') ? -1 : undefined)) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw invalid('The object key must not contain "..", "." or empty path segments.');
    }
  }
}

/** The key as a URL path: each segment percent-encoded, the slashes kept. */
export const encodeKey = (key: string): string => key.split('/').map(encodeURIComponent).join('/');

/** Content types a browser would run or render as a document: always downloaded, never shown. */
export const isActiveContent = (mimeType: string): boolean =>
  /^(text\/html|application\/xhtml|image\/svg|text\/xml|application\/xml|[a-z]+\/[\w.+-]*(javascript|ecmascript)|text\/jscript|application\/x-shockwave|text\/xsl)/i.test(
    mimeType,
  ) || /\+xml\b/i.test(mimeType);

const MIME = /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}$/i;

/** The declared content type without parameters, or application/octet-stream. */
export function normaliseMimeType(declared: string | undefined): string {
  const base = declared?.split(';')[0]?.trim().toLowerCase();
  return base && MIME.test(base) ? base : 'application/octet-stream';
}

/** `<sanitised basename ≤32>-<epoch ms>-<6 base36><ext>`, as the reference platform names them. */
export function generatedKey(filename: string | undefined, now: Date): string {
  const ext = path
    .extname(filename ?? '')
    .replace(/[^a-zA-Z0-9.]/g, '')
    .slice(0, 16);
  const base =
    path
      .basename(filename ?? 'file', ext)
      .replace(/[^a-zA-Z0-9_-]/g, '_')
      .slice(0, 32) || 'file';
  const suffix = BigInt(`0x${randomBytes(8).toString('hex')}`)
    .toString(36)
    .slice(0, 6)
    .padStart(6, '0');
  return `${base}-${now.getTime()}-${suffix}${ext}`;
}
