// The official JavaScript client (@insforge/sdk) uploading to the S3 backend the way it does in a
// browser: upload-strategy → multipart form POST straight to the bucket (a real S3 server on
// loopback) → confirm-upload; then it reads the object back through Plinth.
import { createClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Gateway, type S3Gateway } from '../../harness/s3-peer.js';

let g: S3Gateway;
let baseUrl: string;
const as = (accessToken: string) => createClient({ baseUrl, anonKey: g.t.anonKey, accessToken, retryCount: 0 });

beforeAll(async () => {
  g = await startS3Gateway();
  baseUrl = g.endpoint.replace(/\/storage\/v1\/s3$/, '');
  await g.t.request({
    method: 'POST',
    url: '/api/storage/buckets',
    headers: { 'x-api-key': g.t.apiKey },
    payload: { bucketName: 'uploads', isPublic: false },
  });
});
afterAll(() => g.close());

describe('@insforge/sdk on the S3 backend', () => {
  it('uploads through a presigned POST and confirmation, then downloads', async () => {
    const alice = as((await g.t.signUp()).accessToken);
    const up = await alice.storage
      .from('uploads')
      .upload('alice/notes/sdk.txt', new Blob(['hello from the sdk'], { type: 'text/plain' }));
    expect(up.error).toBeNull();
    expect(up.data).toMatchObject({ bucket: 'uploads', key: 'alice/notes/sdk.txt', size: 18, mimeType: 'text/plain' });
    const [row] = await g.t.deps.sql<
      { blob_id: string }[]
    >`select blob_id from storage.objects where key = 'alice/notes/sdk.txt'`;
    expect(await g.peer.keys()).toContain(`blobs/${row!.blob_id}`);
    const down = await alice.storage.from('uploads').download('alice/notes/sdk.txt');
    expect(down.error).toBeNull();
    expect(await down.data!.text()).toBe('hello from the sdk');
  });

  it('another user cannot replace the object: 403 before any bytes leave the client', async () => {
    const bob = as((await g.t.signUp()).accessToken);
    const before = await g.peer.keys();
    const res = await bob.storage.from('uploads').upload('alice/notes/sdk.txt', new Blob(['evil']));
    expect(res.error?.statusCode).toBe(403);
    expect(await g.peer.keys()).toEqual(before);
  });
});
