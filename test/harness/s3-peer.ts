// A real S3-compatible server on loopback (s3rver, files in a temporary directory) with one
// bucket, and an SDK client that looks into it the way an operator would; and the app's S3
// gateway over it, with SDK clients signed by a gateway access key.
import { createHash, createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { freePort } from './free-port.js';
import { startTestApp, type TestApp } from './test-app.js';

export interface S3Peer {
  endpoint: string;
  bucket: string;
  /** STORAGE_* settings that point Plinth's S3 backend at this peer. */
  env: Record<string, string>;
  client: S3Client;
  /** Every key in the peer's bucket. */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

// s3rver checks signatures against this fixed pair.
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export async function startS3Peer(bucket = 'plinth-objects'): Promise<S3Peer> {
  const directory = await mkdtemp(path.join(tmpdir(), 's3-peer-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
  return {
    endpoint,
    bucket,
    env: {
      STORAGE_BACKEND: 's3',
      STORAGE_S3_BUCKET: bucket,
      STORAGE_S3_ENDPOINT: endpoint,
      STORAGE_S3_FORCE_PATH_STYLE: 'true',
      STORAGE_S3_REGION: 'us-east-1',
      STORAGE_S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      STORAGE_S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    },
    client,
    async keys() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).map((o) => o.Key!));
        token = page.NextContinuationToken;
      } while (token);
      return keys;
    },
    async close() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The app on the S3 backend (a fresh peer), listening at API_BASE_URL, with one gateway access key and SDK clients for it. */
export interface S3Gateway {
  t: TestApp;
  peer: S3Peer;
  /** The gateway's base URL: http://127.0.0.1:<port>/storage/v1/s3. */
  endpoint: string;
  key: { accessKeyId: string; secretAccessKey: string };
  client(overrides?: { region?: string; accessKeyId?: string; secretAccessKey?: string }): S3Client;
  close(): Promise<void>;
}

export async function startS3Gateway(): Promise<S3Gateway> {
  const peer = await startS3Peer();
  // A known port, so that the URLs the app hands out (API_BASE_URL) reach it.
  const port = await freePort();
  const t = await startTestApp({ env: { ...peer.env, API_BASE_URL: `http://127.0.0.1:${port}` } });
  await t.app.listen({ port, host: '127.0.0.1' });
  const endpoint = `http://127.0.0.1:${port}/storage/v1/s3`;
  const created = await t.request({
    method: 'POST',
    url: '/api/storage/s3/access-keys',
    headers: { 'x-api-key': t.apiKey },
    payload: { description: 'sdk' },
  });
  const key = {
    accessKeyId: created.json.accessKeyId as string,
    secretAccessKey: created.json.secretAccessKey as string,
  };
  const clients: S3Client[] = [];
  return {
    t,
    peer,
    endpoint,
    key,
    client(overrides = {}) {
      const c = new S3Client({
        endpoint,
        region: overrides.region ?? 'us-east-1',
        forcePathStyle: true,
        credentials: {
          accessKeyId: overrides.accessKeyId ?? key.accessKeyId,
          secretAccessKey: overrides.secretAccessKey ?? key.secretAccessKey,
        },
      });
      clients.push(c);
      return c;
    },
    async close() {
      for (const c of clients) c.destroy();
      await t.close();
      await peer.close();
    },
  };
}

/** The S3 error a call fails with: its code and HTTP status. */
export async function s3ErrorOf(call: Promise<unknown>): Promise<{ name: string; status?: number }> {
  try {
    await call;
  } catch (err) {
    if (err instanceof S3ServiceException) return { name: err.name, status: err.$metadata.httpStatusCode };
    throw err;
  }
  throw new Error('expected the call to fail');
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (k: string | Buffer, data: string) => createHmac('sha256', k).update(data).digest();

/**
 * A body in aws-chunked framing with chained chunk signatures, as AWS documents it (region
 * us-east-1); `corrupt` zeroes the second chunk after signing. With `trailer`, the final chunk is
 * followed by those trailing headers and their x-amz-trailer-signature.
 */
export function awsChunked(
  content: Buffer,
  seed: string,
  amzDate: string,
  secret: string,
  corrupt: boolean,
  trailer?: Record<string, string>,
): Buffer {
  const date = amzDate.slice(0, 8);
  const scope = `${date}/us-east-1/s3/aws4_request`;
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), 'us-east-1'), 's3'), 'aws4_request');
  const parts: Buffer[] = [];
  let previous = seed;
  const chunks = [
    content.subarray(0, 65536),
    content.subarray(65536, 131072),
    content.subarray(131072),
    Buffer.alloc(0),
  ];
  chunks.forEach((chunk, i) => {
    const stringToSign = ['AWS4-HMAC-SHA256-PAYLOAD', amzDate, scope, previous, sha256(''), sha256(chunk)].join('\n');
    const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
    const data = corrupt && i === 1 ? Buffer.from(chunk).fill(0) : chunk;
    const last = i === chunks.length - 1;
    parts.push(
      Buffer.from(`${chunk.length.toString(16)};chunk-signature=${signature}\r\n`),
      data,
      Buffer.from(last && trailer ? '' : '\r\n'),
    );
    previous = signature;
  });
  if (trailer) {
    const canonical = Object.entries(trailer)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}:${v}\n`)
      .join('');
    const stringToSign = ['AWS4-HMAC-SHA256-TRAILER', amzDate, scope, previous, sha256(canonical)].join('\n');
    const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
    parts.push(Buffer.from(`${canonical.replaceAll('\n', '\r\n')}x-amz-trailer-signature:${signature}\r\n\r\n`));
  }
  return Buffer.concat(parts);
}
