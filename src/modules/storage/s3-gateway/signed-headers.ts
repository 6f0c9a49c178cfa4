// Which headers a SigV4 signature must cover (as S3 enforces it), and the headers a verified request
// acts with: its own plus the x-amz-* parameters a presigner hoisted into the signed URL.
import type { IncomingHttpHeaders } from 'node:http';
import { S3Error } from './s3-error.js';

/** Request headers by lower-case name, as Node parses them. */
export type Headers = IncomingHttpHeaders;

/** SigV4's own query parameters: never hoisted headers. */
const AUTH_PARAMS = new Set([
  'x-amz-algorithm',
  'x-amz-credential',
  'x-amz-date',
  'x-amz-expires',
  'x-amz-signedheaders',
  'x-amz-signature',
  'x-amz-security-token',
  'x-amz-content-sha256',
]);

/**
 * Refuses a request that carries an x-amz-* header, or Content-MD5, its signature leaves out:
 * S3's 403 AccessDenied, "There were headers present in the request which were not signed". The
 * one exception is S3's: a presigned URL need not sign x-amz-content-sha256, whose value then
 * stands in the signature as the payload hash (see sigv4.ts), so it cannot change what was signed.
 */
export function assertHeadersSigned(headers: Headers, signedHeaders: string[], presigned: boolean): void {
  const signed = new Set(signedHeaders);
  const unsigned = Object.keys(headers)
    .filter((name) => (name.startsWith('x-amz-') || name === 'content-md5') && !signed.has(name))
    .filter((name) => !(presigned && name === 'x-amz-content-sha256'))
    .sort();
  if (unsigned.length > 0) {
    throw new S3Error('AccessDenied', 'There were headers present in the request which were not signed', {
      HeadersNotSigned: unsigned.join(', '),
    });
  }
}

/**
 * The headers the operation acts on. A presigned URL's x-amz-* parameters (x-amz-tagging,
 * x-amz-copy-source, x-amz-checksum-crc32 …, which the SDK presigner hoists there) are part of its
 * signature and count as those headers; one given twice with different values is refused.
 */
export function actingHeaders(headers: Headers, query: [string, string][], presigned: boolean): Headers {
  if (!presigned) return headers;
  const merged: Headers = { ...headers };
  const hoisted = new Set<string>();
  for (const [param, value] of query) {
    const name = param.toLowerCase();
    if (!name.startsWith('x-amz-') || AUTH_PARAMS.has(name)) continue;
    if (hoisted.has(name) || (merged[name] !== undefined && merged[name] !== value)) {
      throw new S3Error(
        'InvalidArgument',
        `${name} is given more than once (in the URL or as a header) with different values.`,
      );
    }
    hoisted.add(name);
    merged[name] = value;
  }
  return merged;
}
