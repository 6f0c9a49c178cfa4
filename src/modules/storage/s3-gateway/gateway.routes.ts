// /storage/v1/s3: the path-style S3 protocol over Plinth's storage, for any S3 client: SigV4-verified
// requests routed to operations that act only on what the signature covered; failures in S3's XML.
import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.js';
import type { AccessKeys } from '../s3-access-keys.js';
import { createMultipartService } from '../multipart.service.js';
import type { StorageService } from '../storage.service.js';
import * as bucketOps from './bucket-ops.js';
import { toS3Error, type GatewayContext, type Operation } from './context.js';
import * as listOps from './list-ops.js';
import { listMultipartUploads } from './multipart-list.js';
import * as multipartOps from './multipart-ops.js';
import * as objectOps from './object-ops.js';
import { payloadOf } from './payload.js';
import { errorXml, S3Error } from './s3-error.js';
import { actingHeaders } from './signed-headers.js';
import { decodeComponent, verifySignature } from './sigv4.js';

export const GATEWAY_PREFIX = '/storage/v1/s3';
const MAX_XML_BYTES = 1024 * 1024;

/** Sub-resources S3 has and this gateway does not implement: 405, never a wrong operation. */
const UNSUPPORTED = new Set([
  'acl',
  'policy',
  'lifecycle',
  'website',
  'logging',
  'notification',
  'replication',
  'encryption',
  'object-lock',
  'legal-hold',
  'retention',
  'torrent',
  'requestPayment',
  'accelerate',
  'analytics',
  'inventory',
  'metrics',
  'ownershipControls',
  'publicAccessBlock',
  'intelligent-tiering',
  'restore',
  'select',
  'attributes',
  'versions',
  'policyStatus',
]);

function route(method: string, hasBucket: boolean, hasKey: boolean, q: URLSearchParams): Operation | undefined {
  if (!hasBucket) return method === 'GET' ? bucketOps.listBuckets : undefined;
  if (!hasKey) {
    switch (method) {
      case 'GET':
        if (q.has('location')) return bucketOps.getBucketLocation;
        if (q.has('versioning')) return bucketOps.getBucketVersioning;
        if (q.has('cors')) return bucketOps.getBucketCors;
        return q.has('uploads') ? listMultipartUploads : listOps.listObjects;
      case 'HEAD':
        return bucketOps.headBucket;
      case 'PUT':
        if (q.has('versioning')) return bucketOps.putBucketVersioning;
        return q.has('cors') ? bucketOps.putBucketCors : bucketOps.createBucket;
      case 'DELETE':
        return q.has('cors') ? bucketOps.deleteBucketCors : bucketOps.deleteBucket;
      case 'POST':
        return q.has('delete') ? listOps.deleteObjects : undefined;
    }
    return undefined;
  }
  switch (method) {
    case 'GET':
      if (q.has('tagging')) return objectOps.getObjectTagging;
      return q.has('uploadId') ? multipartOps.listParts : objectOps.getObject;
    case 'HEAD':
      return objectOps.getObject;
    case 'PUT':
      if (q.has('tagging')) return objectOps.putObjectTagging;
      return q.has('uploadId') ? multipartOps.uploadPart : objectOps.putObject;
    case 'DELETE':
      if (q.has('tagging')) return objectOps.deleteObjectTagging;
      return q.has('uploadId') ? multipartOps.abortMultipartUpload : objectOps.deleteObject;
    case 'POST':
      if (q.has('uploads')) return multipartOps.createMultipartUpload;
      return q.has('uploadId') ? multipartOps.completeMultipartUpload : undefined;
  }
  return undefined;
}

/** Bucket and key from the raw path: /storage/v1/s3/<bucket>/<key…>. */
function target(rawUrl: string): { bucket: string; key: string } {
  const path = rawUrl.split('?')[0]!.slice(GATEWAY_PREFIX.length).replace(/^\//, '');
  const slash = path.indexOf('/');
  const decode = decodeComponent;
  return slash < 0
    ? { bucket: decode(path), key: '' }
    : { bucket: decode(path.slice(0, slash)), key: decode(path.slice(slash + 1)) };
}

async function readText(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_XML_BYTES) throw new S3Error('MalformedXML', 'The XML document is too large.');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function gatewayRoutes(deps: Deps, storage: StorageService, keys: AccessKeys): FastifyPluginAsync {
  const multipart = createMultipartService(deps, storage);
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    const fail = (request: FastifyRequest, reply: FastifyReply, err: S3Error) => {
      reply.code(err.status).header('x-amz-request-id', request.id);
      if (request.method === 'HEAD') return reply.send();
      return reply.type('application/xml').send(errorXml(err, request.url.split('?')[0]!, request.id));
    };

    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        if (deps.blobStore.kind !== 's3') {
          throw new S3Error(
            'NotImplemented',
            'The S3 protocol requires the S3 storage backend. Set STORAGE_BACKEND=s3 and STORAGE_S3_BUCKET.',
          );
        }
        const rawUrl = request.raw.url ?? request.url;
        const verified = await verifySignature(
          { method: request.method, rawUrl, headers: request.headers },
          { region: deps.config.storage.region, now: deps.clock.now(), secretOf: (id) => keys.secretOf(id) },
        );
        // The pairs the signature was computed over, decoded the same way (a '+' stays a '+').
        const query = new URLSearchParams(verified.query);
        const headers = actingHeaders(request.headers, verified.query, verified.presigned);
        // PostgreSQL text cannot hold NUL: such a prefix, marker or id could never match anything.
        if ([...query].some(([k, v]) => k.includes('\0') || v.includes('\0'))) {
          throw new S3Error('InvalidArgument', 'Query parameters must not contain NUL characters.');
        }
        const { bucket, key } = target(rawUrl);
        if ([...query.keys()].some((k) => UNSUPPORTED.has(k))) {
          throw new S3Error('MethodNotAllowed', 'The specified method is not allowed against this resource.');
        }
        // Versioning is never on: only the "null" version exists, never another one answered as the current.
        if (query.has('versionId') && query.get('versionId') !== 'null')
          throw new S3Error('InvalidArgument', 'Invalid version id specified');
        const operation = route(request.method, bucket !== '', key !== '', query);
        if (!operation)
          throw new S3Error('MethodNotAllowed', 'The specified method is not allowed against this resource.');
        const raw = request.body instanceof Readable ? request.body : Readable.from([]);
        let body: Readable | undefined;
        // CompleteMultipartUpload's checksum headers describe the whole object, not its XML body.
        const checksummed =
          operation === multipartOps.completeMultipartUpload ? { 'content-md5': headers['content-md5'] } : headers;
        const ctx: GatewayContext = {
          deps,
          storage,
          multipart,
          request,
          reply,
          bucket,
          key,
          query,
          headers,
          body: () => (body ??= payloadOf(raw, verified, checksummed)),
          text: () => readText(ctx.body()),
        };
        reply.header('x-amz-request-id', request.id);
        return await operation(ctx);
      } catch (err) {
        const s3 = toS3Error(err);
        if (s3.code === 'InternalError') request.log.error({ err }, 's3 gateway request failed');
        return fail(request, reply, s3);
      }
    };

    for (const url of [GATEWAY_PREFIX, `${GATEWAY_PREFIX}/*`]) {
      app.route({
        method: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'],
        url,
        exposeHeadRoute: false,
        config: { access: 'public' },
        schema: { hide: true },
        handler,
      });
    }
  };
}
