// Multipart uploads: each part is staged as a blob of its own (any backend), and completion
// streams the parts in order into one new object. Parts but the last must be at least 5 MiB.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { assertObjectKey, normaliseMimeType } from '../keys.js';
import { GATEWAY_PRINCIPAL, s3Date, sendXml, type GatewayContext, type Operation } from './context.js';
import { parseXml, S3Error } from './s3-error.js';

const MIN_PART_BYTES = 5 * 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Part {
  part_number: number;
  blob_id: string;
  size: string;
  etag: string;
  created_at: Date;
}

async function uploadOf({ deps, bucket, key, query }: GatewayContext): Promise<{ upload_id: string; mime_type: string }> {
  const id = query.get('uploadId') ?? '';
  const [upload] = UUID.test(id)
    ? await deps.sql<{ upload_id: string; mime_type: string }[]>`
        select upload_id, mime_type from storage.s3_multipart_uploads where upload_id = ${id} and bucket = ${bucket} and key = ${key}`
    : [];
  if (!upload) throw new S3Error('NoSuchUpload', 'The specified multipart upload does not exist.');
  return upload;
}

export const createMultipartUpload: Operation = async ({ deps, storage, bucket, key, request, reply }) => {
  await storage.bucketOf(bucket);
  assertObjectKey(key);
  const uploadId = randomUUID();
  await deps.sql`insert into storage.s3_multipart_uploads (upload_id, bucket, key, mime_type)
    values (${uploadId}, ${bucket}, ${key}, ${normaliseMimeType(request.headers['content-type'])})`;
  return sendXml(reply, 'InitiateMultipartUploadResult', { Bucket: bucket, Key: key, UploadId: uploadId });
};

export const uploadPart: Operation = async (ctx) => {
  const { deps, query, reply } = ctx;
  const partNumber = Number(query.get('partNumber'));
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10000) {
    throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive.');
  }
  const upload = await uploadOf(ctx);
  const blobs = deps.blobStore;
  const staged = await blobs.stage(ctx.body(), await ctx.storage.maxBytes());
  try {
    await blobs.promote(staged.id);
    await deps.sql`
      insert into storage.s3_multipart_parts (upload_id, part_number, blob_id, size, etag)
      values (${upload.upload_id}, ${partNumber}, ${staged.id}, ${staged.size}, ${staged.md5})
      on conflict (upload_id, part_number) do update set blob_id = excluded.blob_id, size = excluded.size, etag = excluded.etag, created_at = now()`;
  } catch (err) {
    await blobs.remove(staged.id);
    throw err;
  }
  await ctx.storage.sweepOrphans();
  return reply.header('etag', `"${staged.md5}"`).code(200).send();
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
    Part: parts.map((p) => ({ PartNumber: p.part_number, LastModified: s3Date(p.created_at), ETag: `"${p.etag}"`, Size: Number(p.size) })),
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
  const requested = (Array.isArray(doc.Part) ? (doc.Part as { PartNumber?: unknown; ETag?: unknown }[]) : []).map((p) => ({
    number: Number(p.PartNumber),
    etag: String(p.ETag ?? '').replace(/"/g, ''),
  }));
  if (requested.length === 0) throw new S3Error('MalformedXML', 'CompleteMultipartUpload needs at least one Part.');
  const stored = new Map((await deps.sql<Part[]>`
    select part_number, blob_id, size, etag, created_at from storage.s3_multipart_parts where upload_id = ${upload.upload_id}`)
    .map((p) => [p.part_number, p]));
  const parts = requested.map((r, i) => {
    if (i > 0 && r.number <= requested[i - 1]!.number) throw new S3Error('InvalidPartOrder', 'The list of parts was not in ascending order.');
    const part = stored.get(r.number);
    if (!part || part.etag !== r.etag) throw new S3Error('InvalidPart', `Part ${r.number} was not uploaded or its ETag does not match.`);
    if (i < requested.length - 1 && Number(part.size) < MIN_PART_BYTES) {
      throw new S3Error('EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.');
    }
    return part;
  });
  const blobs = deps.blobStore;
  const body = Readable.from((async function* () {
    for (const part of parts) {
      const stream = await blobs.read(part.blob_id);
      if (!stream) throw new S3Error('InvalidPart', `Part ${part.part_number} is missing.`);
      yield* stream;
    }
  })());
  const row = await storage.putRow({ bucket, key, body, mimeType: upload.mime_type, principal: GATEWAY_PRINCIPAL, via: 's3' });
  await deps.sql`delete from storage.s3_multipart_uploads where upload_id = ${upload.upload_id}`;
  await storage.sweepOrphans();
  return sendXml(reply, 'CompleteMultipartUploadResult', {
    Location: `${deps.config.apiBaseUrl}/storage/v1/s3/${bucket}/${key}`,
    Bucket: bucket,
    Key: key,
    ETag: `"${row.etag}"`,
  });
};
