// Multipart uploads over S3: UploadPart stages the request body or a range of an object as a part
// (through the multipart service), and completion streams the parts in order into one new
// object. Parts but the last must be at least 5 MiB.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { assertObjectKey, normaliseMimeType } from '../keys.js';
import type { MultipartUploadRow } from '../multipart.service.js';
import { GATEWAY_PRINCIPAL, s3Date, sendXml, type GatewayContext, type Operation } from './context.js';
import { copySource } from './object-ops.js';
import { parseXml, S3Error } from './s3-error.js';
import { tagsOfHeader } from './tagging.js';

const MIN_PART_BYTES = 5 * 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function uploadOf({ multipart, bucket, key, query }: GatewayContext): Promise<MultipartUploadRow> {
  const id = query.get('uploadId') ?? '';
  const upload = UUID.test(id) ? await multipart.find(id, bucket, key) : undefined;
  if (!upload) throw new S3Error('NoSuchUpload', 'The specified multipart upload does not exist.');
  return upload;
}

export const createMultipartUpload: Operation = async ({ storage, multipart, bucket, key, headers, reply }) => {
  await storage.bucketOf(bucket);
  assertObjectKey(key);
  const uploadId = randomUUID();
  const tags = tagsOfHeader(headers['x-amz-tagging']);
  await multipart.create({ uploadId, bucket, key, mimeType: normaliseMimeType(headers['content-type']), tags });
  return sendXml(reply, 'InitiateMultipartUploadResult', { Bucket: bucket, Key: key, UploadId: uploadId });
};

/** `x-amz-copy-source-range: bytes=first-last`, inside an object of `size` bytes. */
function copyRange(header: string | string[] | undefined, size: number) {
  if (header === undefined) return undefined;
  const m = typeof header === 'string' ? /^bytes=(\d+)-(\d+)$/.exec(header.trim()) : null;
  const range = m ? { start: Number(m[1]), end: Number(m[2]) } : undefined;
  if (!range || range.start > range.end || range.end >= size) {
    throw new S3Error(
      'InvalidArgument',
      `The x-amz-copy-source-range is not valid for a source object of size ${size}.`,
    );
  }
  return range;
}

/** UploadPart, and UploadPartCopy when x-amz-copy-source names an object (or a byte range of it). */
export const uploadPart: Operation = async (ctx) => {
  const { query, reply, headers, storage, multipart } = ctx;
  const partNumber = Number(query.get('partNumber'));
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10000) {
    throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive.');
  }
  const upload = await uploadOf(ctx);
  const source = headers['x-amz-copy-source'];
  if (typeof source !== 'string') {
    const staged = await multipart.storePart(upload.upload_id, partNumber, ctx.body());
    return reply.header('etag', `"${staged.md5}"`).code(200).send();
  }
  const from = copySource(source);
  const found = await storage.head(from.bucket, from.key, GATEWAY_PRINCIPAL);
  const range = copyRange(headers['x-amz-copy-source-range'], Number(found.size));
  const { body } = await storage.open(found, GATEWAY_PRINCIPAL, range);
  const staged = await multipart.storePart(upload.upload_id, partNumber, body);
  return sendXml(reply, 'CopyPartResult', { ETag: `"${staged.md5}"`, LastModified: s3Date(ctx.deps.clock.now()) });
};

export const listParts: Operation = async (ctx) => {
  const upload = await uploadOf(ctx);
  const parts = await ctx.multipart.parts(upload.upload_id);
  return sendXml(ctx.reply, 'ListPartsResult', {
    Bucket: ctx.bucket,
    Key: ctx.key,
    UploadId: upload.upload_id,
    IsTruncated: false,
    Part: parts.map((p) => ({
      PartNumber: p.part_number,
      LastModified: s3Date(p.created_at),
      ETag: `"${p.etag}"`,
      Size: Number(p.size),
    })),
  });
};

export const abortMultipartUpload: Operation = async (ctx) => {
  const upload = await uploadOf(ctx);
  await ctx.multipart.remove(upload.upload_id);
  return ctx.reply.code(204).send();
};

export const completeMultipartUpload: Operation = async (ctx) => {
  const { deps, storage, multipart, bucket, key, reply } = ctx;
  const upload = await uploadOf(ctx);
  const doc = parseXml(await ctx.text(), 'CompleteMultipartUpload');
  const requested = (Array.isArray(doc.Part) ? (doc.Part as { PartNumber?: unknown; ETag?: unknown }[]) : []).map(
    (p) => ({
      number: Number(p.PartNumber),
      etag: String(p.ETag ?? '').replace(/"/g, ''),
    }),
  );
  if (requested.length === 0) throw new S3Error('MalformedXML', 'CompleteMultipartUpload needs at least one Part.');
  const stored = new Map((await multipart.parts(upload.upload_id)).map((p) => [p.part_number, p]));
  const parts = requested.map((r, i) => {
    if (i > 0 && r.number <= requested[i - 1]!.number)
      throw new S3Error('InvalidPartOrder', 'The list of parts was not in ascending order.');
    const part = stored.get(r.number);
    if (!part || part.etag !== r.etag)
      throw new S3Error('InvalidPart', `Part ${r.number} was not uploaded or its ETag does not match.`);
    if (i < requested.length - 1 && Number(part.size) < MIN_PART_BYTES) {
      throw new S3Error('EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.');
    }
    return part;
  });
  const blobs = deps.blobStore;
  const body = Readable.from(
    (async function* () {
      for (const part of parts) {
        const stream = await blobs.read(part.blob_id);
        if (!stream) throw new S3Error('InvalidPart', `Part ${part.part_number} is missing.`);
        yield* stream;
      }
    })(),
  );
  const row = await storage.putRow({
    bucket,
    key,
    body,
    mimeType: upload.mime_type,
    principal: GATEWAY_PRINCIPAL,
    via: 's3',
    tags: upload.tags,
  });
  await multipart.remove(upload.upload_id);
  return sendXml(reply, 'CompleteMultipartUploadResult', {
    Location: `${deps.config.apiBaseUrl}/storage/v1/s3/${bucket}/${key}`,
    Bucket: bucket,
    Key: key,
    ETag: `"${row.etag}"`,
  });
};
