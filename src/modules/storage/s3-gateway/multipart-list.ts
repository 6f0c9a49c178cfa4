// ListMultipartUploads (GET /bucket?uploads): uploads in progress by key (byte order), then by
// initiation, with prefix, delimiter (common prefixes) and key-marker / upload-id-marker paging.
import type { UploadInProgress } from '../multipart.service.js';
import { s3Date, sendXml, type Operation } from './context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OWNER = { ID: 'plinth', DisplayName: 'plinth' };

export const listMultipartUploads: Operation = async ({ storage, multipart, bucket, query, reply }) => {
  await storage.bucketOf(bucket);
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter') ?? '';
  const maxUploads = Math.min(Math.max(Number(query.get('max-uploads') ?? 1000) || 0, 0), 1000);
  const keyMarker = query.get('key-marker') ?? '';
  // upload-id-marker counts only with key-marker: uploads of that key initiated after it follow.
  const idMarker = keyMarker && UUID.test(query.get('upload-id-marker') ?? '') ? query.get('upload-id-marker')! : null;
  const rows = await multipart.inProgress(bucket, prefix, keyMarker, idMarker);

  const uploads: UploadInProgress[] = [];
  const prefixes: string[] = [];
  let truncated = false;
  let next: { key: string; uploadId?: string } | undefined;
  for (const row of rows) {
    const at = delimiter ? row.key.indexOf(delimiter, prefix.length) : -1;
    const common = at >= 0 ? row.key.slice(0, at + delimiter.length) : undefined;
    // A common prefix counts once, and not again on the page after the one that listed it.
    if (common !== undefined && (common === prefixes.at(-1) || common === keyMarker)) continue;
    if (uploads.length + prefixes.length >= maxUploads) {
      truncated = true;
      break;
    }
    if (common !== undefined) {
      prefixes.push(common);
      next = { key: common };
    } else {
      uploads.push(row);
      next = { key: row.key, uploadId: row.upload_id };
    }
  }
  return sendXml(reply, 'ListMultipartUploadsResult', {
    Bucket: bucket,
    KeyMarker: keyMarker,
    UploadIdMarker: idMarker ?? '',
    ...(truncated && next ? { NextKeyMarker: next.key, NextUploadIdMarker: next.uploadId ?? '' } : {}),
    Prefix: prefix,
    ...(delimiter ? { Delimiter: delimiter } : {}),
    MaxUploads: maxUploads,
    IsTruncated: truncated,
    Upload: uploads.map((u) => ({
      Key: u.key,
      UploadId: u.upload_id,
      Initiator: OWNER,
      Owner: OWNER,
      StorageClass: 'STANDARD',
      Initiated: s3Date(u.created_at),
    })),
    CommonPrefixes: prefixes.map((p) => ({ Prefix: p })),
  });
};
