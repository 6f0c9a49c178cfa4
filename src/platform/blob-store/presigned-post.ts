// The S3 POST policy of a browser form upload: a base64 JSON policy (bucket, key, size range,
// expiry, credential) signed with SigV4, returned as the form fields sent before the file.
import { createHmac } from 'node:crypto';
import { signingKeyOf } from '../../core/sigv4-signing-key.js';

export interface PostPolicy {
  /** The bucket's URL, where the form is posted. */
  url: string;
  bucket: string;
  key: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  maxBytes: number;
  contentType?: string;
  now: Date;
  expires: Date;
}

/** `20261121T190000Z`, SigV4's date format. */
const amzDateOf = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');

export function presignPost(p: PostPolicy): { url: string; fields: Record<string, string> } {
  const amzDate = amzDateOf(p.now);
  const date = amzDate.slice(0, 8);
  const fields: Record<string, string> = {
    key: p.key,
    ...(p.contentType ? { 'Content-Type': p.contentType } : {}),
    'x-amz-algorithm': 'AWS4-HMAC-SHA256',
    'x-amz-credential': `${p.credentials.accessKeyId}/${date}/${p.region}/s3/aws4_request`,
    'x-amz-date': amzDate,
    ...(p.credentials.sessionToken ? { 'x-amz-security-token': p.credentials.sessionToken } : {}),
  };
  // Every field is pinned by an exact condition; the file's size by a range.
  const conditions = [
    { bucket: p.bucket },
    ...Object.entries(fields).map(([k, v]) => ({ [k]: v })),
    ['content-length-range', 0, p.maxBytes],
  ];
  const policy = Buffer.from(JSON.stringify({ expiration: p.expires.toISOString(), conditions })).toString('base64');
  const signature = createHmac('sha256', signingKeyOf(p.credentials.secretAccessKey, date, p.region))
    .update(policy)
    .digest('hex');
  return { url: p.url, fields: { ...fields, policy, 'x-amz-signature': signature } };
}
