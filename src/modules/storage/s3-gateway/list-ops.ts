// ListObjectsV2 (and v1) with prefix, delimiter, paging by continuation token, and DeleteObjects.
import { assertObjectKey } from '../keys.js';
import type { ListedKey } from '../storage.service.js';
import { s3Date, sendXml, GATEWAY_PRINCIPAL, type Operation } from './context.js';
import { parseXml, S3Error } from './s3-error.js';

/** Sorts after every key that starts with the same text (U+10FFFF is the last code point). */
const PAST = '\u{10FFFF}';

/** The key a continuation token (base64url of the last key) stands for; 400 for one no listing made. */
function tokenKey(token: string): string {
  const key = Buffer.from(token, 'base64url').toString('utf8');
  if (key.includes('\0') || key.includes('\uFFFD'))
    throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect.');
  return key;
}

export const listObjects: Operation = async ({ storage, bucket, query, reply }) => {
  await storage.bucketOf(bucket);
  const v2 = query.get('list-type') === '2';
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter') ?? '';
  const maxKeys = Math.min(Math.max(Number(query.get('max-keys') ?? 1000) || 0, 0), 1000);
  const token = query.get('continuation-token');
  let cursor = v2 ? (token ? tokenKey(token) : (query.get('start-after') ?? '')) : (query.get('marker') ?? '');

  const contents: ListedKey[] = [];
  const prefixes: string[] = [];
  let truncated = false;
  // Byte order (collation "C"), as S3 sorts keys. A common prefix counts once and skips its keys.
  outer: while (true) {
    const rows = await storage.keysAfter(bucket, prefix, cursor);
    for (const row of rows) {
      if (contents.length + prefixes.length >= maxKeys) {
        truncated = true;
        break outer;
      }
      const at = delimiter ? row.key.indexOf(delimiter, prefix.length) : -1;
      if (at >= 0) {
        const common = row.key.slice(0, at + delimiter.length);
        prefixes.push(common);
        cursor = common + PAST;
        continue outer;
      }
      contents.push(row);
      cursor = row.key;
    }
    if (rows.length < 1000) break;
  }
  const last = contents.at(-1)?.key;
  const common = {
    Name: bucket,
    Prefix: prefix,
    ...(delimiter ? { Delimiter: delimiter } : {}),
    MaxKeys: maxKeys,
    IsTruncated: truncated,
    Contents: contents.map((o) => ({
      Key: o.key,
      LastModified: s3Date(o.updated_at),
      ETag: `"${o.etag}"`,
      Size: Number(o.size),
      StorageClass: 'STANDARD',
    })),
    CommonPrefixes: prefixes.map((p) => ({ Prefix: p })),
  };
  if (v2) {
    return sendXml(reply, 'ListBucketResult', {
      ...common,
      KeyCount: contents.length + prefixes.length,
      ...(token ? { ContinuationToken: token } : {}),
      ...(query.has('start-after') ? { StartAfter: query.get('start-after') } : {}),
      ...(truncated ? { NextContinuationToken: Buffer.from(cursor, 'utf8').toString('base64url') } : {}),
    });
  }
  return sendXml(reply, 'ListBucketResult', {
    ...common,
    Marker: query.get('marker') ?? '',
    ...(truncated && last ? { NextMarker: cursor } : {}),
  });
};

export const deleteObjects: Operation = async ({ storage, bucket, reply, text }) => {
  await storage.bucketOf(bucket);
  const doc = parseXml(await text(), 'Delete');
  const objects = Array.isArray(doc.Object) ? (doc.Object as { Key?: unknown }[]) : [];
  if (objects.length === 0 || objects.length > 1000)
    throw new S3Error('MalformedXML', 'Delete needs 1 to 1000 Object elements.');
  const keys = objects.map((o) => String(o.Key ?? ''));
  const valid = keys.filter((k) => {
    try {
      assertObjectKey(k);
      return true;
    } catch {
      return false;
    }
  });
  if (valid.length > 0) await storage.remove(bucket, valid, GATEWAY_PRINCIPAL);
  const quiet = String(doc.Quiet) === 'true';
  return sendXml(reply, 'DeleteResult', {
    // S3 reports a key that was not there as deleted too.
    Deleted: quiet ? [] : valid.map((Key) => ({ Key })),
    Error: keys
      .filter((k) => !valid.includes(k))
      .map((Key) => ({ Key, Code: 'InvalidArgument', Message: 'Invalid object key.' })),
  });
};
