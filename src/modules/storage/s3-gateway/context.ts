// What every gateway operation gets: the resolved bucket and key, the query, the verified body,
// the storage service acting for the gateway, and S3's names for Plinth's storage errors.
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../core/errors.js';
import type { Deps } from '../../../deps.js';
import type { MultipartService } from '../multipart.service.js';
import { SERVICE_PRINCIPAL, type StorageService } from '../storage.service.js';
import { S3Error, toXml, type S3ErrorCode } from './s3-error.js';
import type { Headers } from './signed-headers.js';

/** Access keys act with the API key's rights: they bypass row-level security. */
export const GATEWAY_PRINCIPAL = SERVICE_PRINCIPAL;

export interface GatewayContext {
  deps: Deps;
  storage: StorageService;
  multipart: MultipartService;
  request: FastifyRequest;
  reply: FastifyReply;
  bucket: string;
  key: string;
  /** The query as the signature covered it. */
  query: URLSearchParams;
  /** The headers to act on: the request's, with a presigned URL's x-amz-* parameters among them. */
  headers: Headers;
  /** The request body's content bytes, verified against the signature. */
  body(): Readable;
  /** The whole (small) body as text, for XML documents. */
  text(): Promise<string>;
}

export type Operation = (ctx: GatewayContext) => Promise<unknown>;

export function sendXml(reply: FastifyReply, root: string, body: Record<string, unknown>, status = 200) {
  return reply.code(status).type('application/xml').send(toXml(root, body));
}

export const s3Date = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, '.000Z');

const fromApp: Partial<Record<string, S3ErrorCode>> = {
  OBJECT_NOT_FOUND: 'NoSuchKey',
  STORAGE_NOT_FOUND: 'NoSuchBucket',
  STORAGE_ALREADY_EXISTS: 'BucketAlreadyOwnedByYou',
  PAYLOAD_TOO_LARGE: 'EntityTooLarge',
  RANGE_NOT_SATISFIABLE: 'InvalidRange',
  STORAGE_INVALID_PARAMETER: 'InvalidArgument',
  VALIDATION_ERROR: 'InvalidArgument',
};

/** Any failure as an S3Error (unknown ones as InternalError). */
export function toS3Error(err: unknown): S3Error {
  if (err instanceof S3Error) return err;
  if (err instanceof AppError) {
    const code = err.message.startsWith('Invalid bucket name') ? 'InvalidBucketName' : fromApp[err.code];
    if (code) return new S3Error(code, err.message);
  }
  return new S3Error('InternalError', 'We encountered an internal error. Please try again.');
}
