// Object-level S3 operations: put (and copy), get and head with Range, delete, and tagging.
import { Readable } from 'node:stream';
import { objectSafetyHeaders, parseRange } from '../download.js';
import { normaliseMimeType } from '../keys.js';
import { GATEWAY_PRINCIPAL, s3Date, sendXml, type GatewayContext, type Operation } from './context.js';
import { parseXml, S3Error } from './s3-error.js';
import { assertTags, tagsOfHeader } from './tagging.js';

const quoted = (etag: string) => `"${etag}"`;

/** `x-amz-copy-source: /bucket/key` (URL-encoded, optional leading slash; no version but "null"). */
export function copySource(header: string): { bucket: string; key: string } {
  const [path = '', version] = header.split('?');
  if (version !== undefined && version !== 'versionId=null')
    throw new S3Error('InvalidArgument', 'Invalid version id specified');
  let decoded: string;
  try {
    decoded = decodeURIComponent(path).replace(/^\//, '');
  } catch {
    throw new S3Error('InvalidArgument', 'x-amz-copy-source is not valid percent-encoding.');
  }
  const slash = decoded.indexOf('/');
  if (slash <= 0 || slash === decoded.length - 1)
    throw new S3Error('InvalidArgument', 'x-amz-copy-source must be /bucket/key.');
  return { bucket: decoded.slice(0, slash), key: decoded.slice(slash + 1) };
}

export const putObject: Operation = async (ctx) => {
  const { storage, bucket, key, headers, reply } = ctx;
  const source = headers['x-amz-copy-source'];
  if (typeof source === 'string') return copyObject(ctx, copySource(source));
  const row = await storage.putRow({
    bucket,
    key,
    body: ctx.body(),
    mimeType: normaliseMimeType(headers['content-type']),
    principal: GATEWAY_PRINCIPAL,
    via: 's3',
    // A new object: its tags are the header's, never the replaced object's.
    tags: tagsOfHeader(headers['x-amz-tagging']),
  });
  return reply.header('etag', quoted(row.etag)).code(200).send();
};

async function copyObject(ctx: GatewayContext, from: { bucket: string; key: string }) {
  const { storage, bucket, key, reply, headers } = ctx;
  const found = await storage.head(from.bucket, from.key, GATEWAY_PRINCIPAL);
  const { row: source, body } = await storage.open(found, GATEWAY_PRINCIPAL);
  const replace = headers['x-amz-metadata-directive'] === 'REPLACE';
  const tags =
    headers['x-amz-tagging-directive'] === 'REPLACE'
      ? tagsOfHeader(headers['x-amz-tagging'])
      : await storage.tagsOf(source.bucket, source.key);
  const row = await storage.putRow({
    bucket,
    key,
    body,
    mimeType: replace ? normaliseMimeType(headers['content-type']) : source.mime_type,
    principal: GATEWAY_PRINCIPAL,
    via: 's3',
    tags,
  });
  return sendXml(reply, 'CopyObjectResult', { ETag: quoted(row.etag), LastModified: s3Date(row.updated_at) });
}

export const getObject: Operation = async ({ storage, bucket, key, request, headers, reply }) => {
  const found = await storage.head(bucket, key, GATEWAY_PRINCIPAL);
  const size = Number(found.size);
  const range = parseRange(headers.range, size);
  const { row, body } =
    request.method === 'HEAD' ? { row: found, body: undefined } : await storage.open(found, GATEWAY_PRINCIPAL, range);
  reply.headers({
    etag: quoted(row.etag),
    'last-modified': row.updated_at.toUTCString(),
    'content-type': row.mime_type,
    'accept-ranges': 'bytes',
    ...objectSafetyHeaders(row.mime_type, row.key),
  });
  if (range) {
    reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
      .header('content-length', range.end - range.start + 1);
  } else {
    reply.code(200).header('content-length', size);
  }
  return reply.send(body ?? Readable.from([]));
};

export const deleteObject: Operation = async ({ storage, bucket, key, reply }) => {
  await storage.bucketOf(bucket);
  await storage.remove(bucket, [key], GATEWAY_PRINCIPAL);
  return reply.code(204).send();
};

export const getObjectTagging: Operation = async ({ storage, bucket, key, reply }) => {
  await storage.head(bucket, key, GATEWAY_PRINCIPAL);
  return sendXml(reply, 'Tagging', { TagSet: { Tag: await storage.tagsOf(bucket, key) } });
};

export const putObjectTagging: Operation = async ({ storage, bucket, key, reply, text }) => {
  await storage.head(bucket, key, GATEWAY_PRINCIPAL);
  const doc = parseXml(await text(), 'Tagging');
  const set = (doc.TagSet ?? {}) as { Tag?: { Key?: unknown; Value?: unknown }[] };
  const tags = assertTags((set.Tag ?? []).map((t) => ({ Key: String(t.Key ?? ''), Value: String(t.Value ?? '') })));
  await storage.setTags(bucket, key, tags);
  return reply.code(200).send();
};

export const deleteObjectTagging: Operation = async ({ storage, bucket, key, reply }) => {
  await storage.head(bucket, key, GATEWAY_PRINCIPAL);
  await storage.setTags(bucket, key, []);
  return reply.code(204).send();
};
