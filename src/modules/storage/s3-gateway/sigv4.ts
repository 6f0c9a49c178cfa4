// AWS Signature Version 4 for the gateway: the Authorization header and presigned query forms, checked
// against the key's secret, region and a 15-minute skew; every x-amz-* header present must be signed.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { S3Error } from './s3-error.js';
import { assertHeadersSigned } from './signed-headers.js';
import { signingKeyOf } from '../../../core/sigv4-signing-key.js';

export const MAX_SKEW_MS = 15 * 60 * 1000;
const ALGORITHM = 'AWS4-HMAC-SHA256';
export const EMPTY_SHA256 = createHash('sha256').digest('hex');

export interface SignedRequest {
  method: string;
  /** The path and query exactly as the client sent them. */
  rawUrl: string;
  headers: Record<string, string | string[] | undefined>;
}

/** What a verified request proved, and what its body still has to prove. */
export interface Verified {
  accessKeyId: string;
  /** The x-amz-content-sha256 value: a hex hash, UNSIGNED-PAYLOAD or a STREAMING-… mode. */
  payloadHash: string;
  signingKey: Buffer;
  signature: string;
  amzDate: string;
  scope: string;
  /** Whether the signature came in the query (a presigned URL) rather than the Authorization header. */
  presigned: boolean;
  /** The query parameters, decoded exactly as the signature was computed over them (X-Amz-Signature left out). */
  query: [string, string][];
}

interface Parsed {
  accessKeyId: string;
  date: string;
  region: string;
  signedHeaders: string[];
  signature: string;
  amzDate: string;
  payloadHash: string;
  presigned?: { expiresSeconds: number };
  query: [string, string][];
}

/** RFC 3986 encoding, as SigV4 wants it. */
export const uriEncode = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');

/** A request header by its lower-case name; names like `constructor` are headers too, never Object's. */
const header = (headers: SignedRequest['headers'], name: string): string | undefined => {
  const v = Object.hasOwn(headers, name) ? headers[name] : undefined;
  return Array.isArray(v) ? v.join(',') : typeof v === 'string' ? v : undefined;
};

/** decodeURIComponent, with malformed percent-encoding as a 400. */
export function decodeComponent(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new S3Error('InvalidArgument', 'The request URL is not valid percent-encoding.');
  }
}

function splitQuery(rawQuery: string): [string, string][] {
  if (!rawQuery) return [];
  return rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf('=');
      const decode = decodeComponent;
      return i < 0 ? [decode(pair), ''] : [decode(pair.slice(0, i)), decode(pair.slice(i + 1))];
    });
}

const malformed = (message: string) => new S3Error('AuthorizationHeaderMalformed', message);

function parseCredential(credential: string) {
  const [accessKeyId, date, region, service, terminator] = credential.split('/');
  if (!accessKeyId || !date || !region || service !== 's3' || terminator !== 'aws4_request') {
    throw malformed('The Credential must be <access key>/<date>/<region>/s3/aws4_request.');
  }
  return { accessKeyId, date, region };
}

function parse(req: SignedRequest): Parsed {
  const q = req.rawUrl.indexOf('?');
  const query = splitQuery(q < 0 ? '' : req.rawUrl.slice(q + 1));
  const auth = header(req.headers, 'authorization');
  if (auth) {
    const match =
      /^AWS4-HMAC-SHA256\s+Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
        auth.trim(),
      );
    if (!match) throw malformed('The Authorization header is not a valid AWS4-HMAC-SHA256 authorization.');
    const amzDate = header(req.headers, 'x-amz-date');
    const payloadHash = header(req.headers, 'x-amz-content-sha256');
    if (!amzDate) throw new S3Error('AccessDenied', 'The x-amz-date header is required.');
    if (!payloadHash) throw new S3Error('InvalidRequest', 'The x-amz-content-sha256 header is required.');
    return {
      ...parseCredential(match[1]!),
      signedHeaders: match[2]!.split(';'),
      signature: match[3]!,
      amzDate,
      payloadHash,
      query,
    };
  }
  const params = new Map(query);
  if (params.get('X-Amz-Algorithm') === ALGORITHM) {
    const credential = params.get('X-Amz-Credential');
    const amzDate = params.get('X-Amz-Date');
    const signedHeaders = params.get('X-Amz-SignedHeaders');
    const signature = params.get('X-Amz-Signature');
    const expires = Number(params.get('X-Amz-Expires'));
    if (
      !credential ||
      !amzDate ||
      !signedHeaders ||
      !signature ||
      !Number.isInteger(expires) ||
      expires < 1 ||
      expires > 604800
    ) {
      throw new S3Error(
        'AuthorizationQueryParametersError',
        'The presigned URL is missing or has invalid X-Amz-* parameters.',
      );
    }
    return {
      ...parseCredential(credential),
      signedHeaders: signedHeaders.split(';'),
      signature,
      amzDate,
      payloadHash: presignedPayloadHash(signedContentSha256(query), header(req.headers, 'x-amz-content-sha256')),
      presigned: { expiresSeconds: expires },
      query: query.filter(([k]) => k !== 'X-Amz-Signature'),
    };
  }
  throw new S3Error('AccessDenied', 'Requests to the S3 gateway must be signed with AWS Signature Version 4.');
}

/** X-Amz-Content-Sha256 in a presigned URL, in any letter case: signed, so never left unused. */
function signedContentSha256(query: [string, string][]): string | undefined {
  const values = new Set(query.filter(([k]) => k.toLowerCase() === 'x-amz-content-sha256').map(([, v]) => v));
  if (values.size > 1)
    throw new S3Error('AuthorizationQueryParametersError', 'X-Amz-Content-Sha256 is given more than once.');
  return [...values][0];
}

/**
 * A presigned URL's payload hash: its X-Amz-Content-Sha256 parameter; else, as S3 does, an
 * x-amz-content-sha256 header (unsigned, its value is signed this way); else UNSIGNED-PAYLOAD.
 * A header that contradicts the signed parameter would change the body's checks: refused.
 */
function presignedPayloadHash(fromQuery: string | undefined, fromHeader: string | undefined): string {
  if (fromQuery !== undefined && fromHeader !== undefined && fromHeader.trim() !== fromQuery) {
    throw new S3Error(
      'SignatureDoesNotMatch',
      'The x-amz-content-sha256 header does not match the X-Amz-Content-Sha256 the URL was signed with.',
    );
  }
  return fromQuery ?? fromHeader?.trim() ?? 'UNSIGNED-PAYLOAD';
}

function canonicalRequest(req: SignedRequest, p: Parsed): string {
  const q = req.rawUrl.indexOf('?');
  const rawPath = q < 0 ? req.rawUrl : req.rawUrl.slice(0, q);
  const path = rawPath
    .split('/')
    .map((seg) => uriEncode(decodeComponent(seg)))
    .join('/');
  const query = p.query
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const headers = p.signedHeaders
    .map((name) => {
      const value = header(req.headers, name);
      if (value === undefined) throw new S3Error('AccessDenied', `The signed header ${name} is missing.`);
      return `${name}:${value.trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  return [req.method, path, query, headers, p.signedHeaders.join(';'), p.payloadHash].join('\n');
}

/** Parses an ISO basic date-time (20261121T181500Z). */
function amzTime(amzDate: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!m) throw new S3Error('AccessDenied', 'X-Amz-Date must be in the form YYYYMMDDTHHMMSSZ.');
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
}

export async function verifySignature(
  req: SignedRequest,
  options: { region: string; now: Date; secretOf(accessKeyId: string): Promise<string | null> },
): Promise<Verified> {
  const p = parse(req);
  if (p.region !== options.region) {
    throw malformed(
      `The authorization header is malformed; the region '${p.region}' is wrong; expecting '${options.region}'.`,
    );
  }
  const signedAt = amzTime(p.amzDate);
  if (p.amzDate.slice(0, 8) !== p.date) throw malformed('The credential date does not match X-Amz-Date.');
  const now = options.now.getTime();
  if (p.presigned) {
    if (now > signedAt + p.presigned.expiresSeconds * 1000) throw new S3Error('AccessDenied', 'Request has expired.');
    if (signedAt - now > MAX_SKEW_MS)
      throw new S3Error('RequestTimeTooSkewed', 'The presigned URL is dated in the future.');
  } else if (Math.abs(now - signedAt) > MAX_SKEW_MS) {
    throw new S3Error(
      'RequestTimeTooSkewed',
      'The difference between the request time and the current time is too large.',
    );
  }
  if (!p.signedHeaders.includes('host')) throw new S3Error('AccessDenied', 'The host header must be signed.');
  assertHeadersSigned(req.headers, p.signedHeaders, p.presigned !== undefined);
  const secret = await options.secretOf(p.accessKeyId);
  if (secret === null)
    throw new S3Error('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  const scope = `${p.date}/${p.region}/s3/aws4_request`;
  const stringToSign = [ALGORITHM, p.amzDate, scope, sha256Hex(canonicalRequest(req, p))].join('\n');
  const signingKey = signingKeyOf(secret, p.date, p.region);
  const expected = hmac(signingKey, stringToSign);
  const given = Buffer.from(p.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new S3Error(
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    );
  }
  return {
    accessKeyId: p.accessKeyId,
    payloadHash: p.payloadHash,
    signingKey,
    signature: p.signature,
    amzDate: p.amzDate,
    scope,
    presigned: p.presigned !== undefined,
    query: p.query,
  };
}
