// Blobs as objects of one S3 bucket (under a prefix), through @aws-sdk/client-s3. Uploads stream
// in parts (lib-storage), so memory stays bounded; S3 writes are atomic, so a staged blob is
// already in place and promotion has nothing left to do. Clients may also POST blobs directly.
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../../config.js';
import { meter, type BlobStore, type DirectWrites } from './blob-store.js';
import { presignPost } from './presigned-post.js';

type S3Settings = NonNullable<Config['storage']['s3']>;

const PART_SIZE = 5 * 1024 * 1024;

export function createS3Client(s3: S3Settings, region: string): S3Client {
  return new S3Client({
    region,
    endpoint: s3.endpoint,
    forcePathStyle: s3.forcePathStyle,
    credentials:
      s3.accessKeyId && s3.secretAccessKey
        ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }
        : undefined,
  });
}

/** Where a browser posts a form to the bucket: path style on a custom endpoint, else virtual-hosted. */
function bucketUrl(s3: S3Settings, region: string): string {
  if (!s3.endpoint)
    return s3.forcePathStyle
      ? `https://s3.${region}.amazonaws.com/${s3.bucket}`
      : `https://${s3.bucket}.s3.${region}.amazonaws.com`;
  const url = new URL(s3.endpoint);
  if (s3.forcePathStyle) return `${url.origin}${url.pathname.replace(/\/$/, '')}/${s3.bucket}`;
  return `${url.protocol}//${s3.bucket}.${url.host}${url.pathname.replace(/\/$/, '')}`;
}

function directWrites(
  client: S3Client,
  s3: S3Settings,
  region: string,
  keyOf: (id: string) => string,
  isMissing: (err: unknown) => boolean,
): DirectWrites {
  return {
    async presignPost(id, options) {
      const credentials = await client.config.credentials();
      return presignPost({
        url: bucketUrl(s3, region),
        bucket: s3.bucket,
        key: keyOf(id),
        region,
        credentials,
        ...options,
      });
    },
    async stat(id) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: keyOf(id) }));
        return {
          size: head.ContentLength ?? 0,
          etag: (head.ETag ?? '').replace(/"/g, ''),
          contentType: head.ContentType,
        };
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },
    async copy(from, to, etag) {
      try {
        await client.send(
          new CopyObjectCommand({
            Bucket: s3.bucket,
            Key: keyOf(to),
            CopySource: `${s3.bucket}/${keyOf(from).split('/').map(encodeURIComponent).join('/')}`,
            CopySourceIfMatch: `"${etag}"`,
          }),
        );
        return true;
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 412 || isMissing(err)) return false;
        throw err;
      }
    },
  };
}

/** The object key of blob `id` under the configured prefix. */
export const s3BlobKey = (prefix: string, id: string): string =>
  `${prefix}${prefix && !prefix.endsWith('/') ? '/' : ''}blobs/${id}`;

export function createS3BlobStore(
  s3: S3Settings,
  region: string,
): BlobStore & { client: S3Client; keyOf(id: string): string } {
  const client = createS3Client(s3, region);
  const keyOf = (id: string) => s3BlobKey(s3.prefix, id);
  const isMissing = (err: unknown) => {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    return e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
  };

  return {
    kind: 's3',
    client,
    keyOf,
    locate: (id) => `s3://${s3.bucket}/${keyOf(id)}`,
    direct: directWrites(client, s3, region, keyOf, isMissing),
    async stage(id, body, maxBytes) {
      const counter = meter(maxBytes);
      const upload = new Upload({
        client,
        params: { Bucket: s3.bucket, Key: keyOf(id), Body: counter },
        partSize: PART_SIZE,
        queueSize: 2,
        leavePartsOnError: false,
      });
      const feeding = pipeline(body, counter);
      try {
        await Promise.all([feeding, upload.done()]);
      } catch (err) {
        await upload.abort().catch(() => {});
        await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: keyOf(id) })).catch(() => {});
        // The size limit (or the client going away) is the cause; the SDK's error follows from it.
        throw await feeding.then(
          () => err,
          (cause: unknown) => cause,
        );
      }
      return { id, size: counter.size(), md5: counter.md5() };
    },
    async promote() {},
    async remove(id) {
      await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: keyOf(id) }));
    },
    async read(id, range) {
      try {
        const res = await client.send(
          new GetObjectCommand({
            Bucket: s3.bucket,
            Key: keyOf(id),
            Range: range ? `bytes=${range.start}-${range.end}` : undefined,
          }),
        );
        return res.Body as Readable;
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },
  };
}
