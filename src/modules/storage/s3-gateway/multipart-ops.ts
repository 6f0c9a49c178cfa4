// Multipart uploads: each part is staged as a blob of its own (any backend), from the request
// body or copied from a range of an object, and completion streams the parts in order into one
// new object. Parts but the last must be at least 5 MiB.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { StagedBlob } from '../../../core/blob-store/blob-store.js';
import { assertObjectKey, normaliseMimeType } from '../keys.js';
import type { ObjectTag } from '../storage.service.js';
import { GATEWAY_PRINCIPAL, s3Date, sendXml, type GatewayContext, type Operation } from './context.js';
import { copySource } from './object-ops.js';
import { parseXml, S3Error } from './s3-error.js';
import { tagsOfHeader } from './tagging.js';

const MIN_PART_BYTES = 5 * 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Part {
  part_number: number;
  blob_id: string;
  size: string;
  etag: string;
  created_at: Date;
}

interface Upload {
  upload_id: string;
  mime_type: string;
  tags: ObjectTag[];
}

async function uploadOf({ deps, bucket, key, query }: GatewayContext): Promise<Upload> {
  const id = query.get('uploadId') ?? '';
  const [upload] = UUID.test(id)
    ? await deps.sql<Upload[]>`
        select upload_id, mime_type, tags from storage.s3_multipart_uploads where upload_id = ${id} and bucket = ${bucket} and key = ${key}`
    : [];
  if (!upload) throw new S3Error('NoSuchUpload', 'The specified multipart upload does not exist.');
  return upload;
}

export const createMultipartUpload: Operation = async ({ deps, storage, bucket, key, headers, reply }) => {
  await storage.bucketOf(bucket);
  assertObjectKey(key);
  const uploadId = randomUUID();
  const tags = tagsOfHeader(headers['x-amz-tagging']);
  await deps.sql`insert into storage.s3_multipart_uploads (upload_id, bucket, key, mime_type, tags)
    values (${uploadId}, ${bucket}, ${key}, ${normaliseMimeType(headers['content-type'])}, ${deps.sql.json(tags)})`;
  return sendXml(reply, 'InitiateMultipartUploadResult', { Bucket: bucket, Key: key, UploadId: uploadId });
};

/** Stages `body` as part `partNumber` of `upload`, replacing an earlier part of that number. */
async function storePart(ctx: GatewayContext, upload: Upload, partNumber: number, body: Readable): Promise<StagedBlob> {
  const { deps } = ctx;
  const staged = await ctx.storage.withNewBlob(body, (blob) =>
    deps.sql.begin(async (tx) => {
      await deps.blobStore.promote(blob.id);
      await tx`
      insert into storage.s3_multipart_parts (upload_id, part_number, blob_id, size, etag)
      values (${upload.upload_id}, ${partNumber}, ${blob.id}, ${blob.size}, ${blob.md5})
      on conflict (upload_id, part_number) do update set blob_id = excluded.blob_id, size = excluded.size, etag = excluded.etag, created_at = now()`;
      await tx`select storage.claim_blob(${blob.id})`;
      return blob;
    }),
  );
  await ctx.storage.sweepOrphans();
  return staged;
}

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
  const { query, reply, headers, storage } = ctx;
  const partNumber = Number(query.get('partNumber'));
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10000) {
    throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive.');
  }
  const upload = await uploadOf(ctx);
  const source = headers['x-amz-copy-source'];
  if (typeof source !== 'string') {
    const staged = await storePart(ctx, upload, partNumber, ctx.body());
    return reply.header('etag', `"${staged.md5}"`).code(200).send();
  }
  const from = copySource(source);
  const found = await storage.head(from.bucket, from.key, GATEWAY_PRINCIPAL);
  const range = copyRange(headers['x-amz-copy-source-range'], Number(found.size));
  const { body } = await storage.open(found, GATEWAY_PRINCIPAL, range);
  const staged = await storePart(ctx, upload, partNumber, body);
  return sendXml(reply, 'CopyPartResult', { ETag: `"${staged.md5}"`, LastModified: s3Date(ctx.deps.clock.now()) });
};

export const listParts: Operation = async (ctx) => {
  const upload = await uploadOf(ctx);
  const parts = await ctx.deps.sql<Part[]>`
    select part_number, blob_id, size, etag, created_at from storage.s3_multipart_parts
    where upload_id = ${upload.upload_id} order by part_number`;
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
  await ctx.deps.sql`delete from storage.s3_multipart_uploads where upload_id = ${upload.upload_id}`;
  await ctx.storage.sweepOrphans();
  return ctx.reply.code(204).send();
};

export const completeMultipartUpload: Operation = async (ctx) => {
  const { deps, storage, bucket, key, reply } = ctx;
  const upload = await uploadOf(ctx);
  const doc = parseXml(await ctx.text(), 'CompleteMultipartUpload');
  const requested = (Array.isArray(doc.Part) ? (doc.Part as { PartNumber?: unknown; ETag?: unknown }[]) : []).map(
    (p) => ({
      number: Number(p.PartNumber),
      etag: String(p.ETag ?? '').replace(/"/g, ''),
    }),
  );
  if (requested.length === 0) throw new S3Error('MalformedXML', 'CompleteMultipartUpload needs at least one Part.');
  const stored = new Map(
    (
      await deps.sql<Part[]>`
    select part_number, blob_id, size, etag, created_at from storage.s3_multipart_parts where upload_id = ${upload.upload_id}`
    ).map((p) => [p.part_number, p]),
  );
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
  await deps.sql`delete from storage.s3_multipart_uploads where upload_id = ${upload.upload_id}`;
  await storage.sweepOrphans();
  return sendXml(reply, 'CompleteMultipartUploadResult', {
    Location: `${deps.config.apiBaseUrl}/storage/v1/s3/${bucket}/${key}`,
    Bucket: bucket,
    Key: key,
    ETag: `"${row.etag}"`,
  });
};
