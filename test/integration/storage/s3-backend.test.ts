// The S3 backend against a real S3-compatible server on loopback: the REST API stores bytes in
// the peer's bucket, streams them back (with Range), and leaves no blob behind on replace,
// delete or a refused upload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Peer, type S3Peer } from '../../harness/s3-peer.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let peer: S3Peer;
const admin = () => ({ 'x-api-key': t.apiKey });
const put = (key: string, payload: string | Buffer) =>
  t.request({
    method: 'PUT',
    url: `/api/storage/buckets/files/objects/${key}`,
    headers: { ...admin(), 'content-type': 'application/octet-stream' },
    payload,
  });
const blobKeys = async () => (await peer.keys()).sort();
const blobIds = async () =>
  (await t.deps.sql<{ blob_id: string }[]>`select blob_id from storage.objects`)
    .map((r) => `blobs/${r.blob_id}`)
    .sort();

beforeAll(async () => {
  peer = await startS3Peer();
  t = await startTestApp({ env: { ...peer.env, STORAGE_MAX_FILE_SIZE_BYTES: String(12 * 1024 * 1024) } });
  await t.request({
    method: 'POST',
    url: '/api/storage/buckets',
    headers: admin(),
    payload: { bucketName: 'files', isPublic: false },
  });
});
afterAll(async () => {
  await t.close();
  await peer.close();
});

describe('S3 backend', () => {
  it('reports itself available', async () => {
    const res = await t.request({ method: 'GET', url: '/api/storage/s3/config', headers: admin() });
    expect(res.json.data).toMatchObject({ region: 'us-east-1', available: true });
  });

  it('stores bytes in the bucket and streams them back, whole and by range', async () => {
    const body = Buffer.from(Array.from({ length: 7 * 1024 * 1024 }, (_, i) => i % 251));
    const res = await put('big/blob.bin', body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.size).toBe(body.length);
    expect(await blobKeys()).toEqual(await blobIds());
    const get = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/files/objects/big/blob.bin',
      headers: admin(),
    });
    expect(get.rawPayload.equals(body)).toBe(true);
    const range = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/files/objects/big/blob.bin',
      headers: { ...admin(), range: 'bytes=1000-1999' },
    });
    expect(range.statusCode).toBe(206);
    expect(range.rawPayload.equals(body.subarray(1000, 2000))).toBe(true);
  });

  it('removes the replaced blob, and the deleted one', async () => {
    await put('doc.txt', 'one');
    await put('doc.txt', 'two');
    expect(await blobKeys()).toEqual(await blobIds());
    expect(
      (await t.request({ method: 'GET', url: '/api/storage/buckets/files/objects/doc.txt', headers: admin() })).body,
    ).toBe('two');
    await t.request({ method: 'DELETE', url: '/api/storage/buckets/files/objects/doc.txt', headers: admin() });
    expect(await blobKeys()).toEqual(await blobIds());
  });

  it('refuses an oversize upload with 413 and leaves nothing in the bucket', async () => {
    const before = await blobKeys();
    const res = await put('huge.bin', Buffer.alloc(12 * 1024 * 1024 + 1));
    expect(res.statusCode).toBe(413);
    expect(await blobKeys()).toEqual(before);
  });

  it('a blob missing from the bucket answers 404, not 500', async () => {
    await put('lost.txt', 'gone soon');
    const [row] = await t.deps.sql<{ blob_id: string }[]>`select blob_id from storage.objects where key = 'lost.txt'`;
    await t.deps.blobStore.remove(row!.blob_id);
    const res = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/files/objects/lost.txt',
      headers: admin(),
    });
    expect(res.statusCode).toBe(404);
  });
});
