// A real S3-compatible server on loopback (s3rver, files in a temporary directory) with one
// bucket, and an SDK client that looks into it the way an operator would.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

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
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
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
