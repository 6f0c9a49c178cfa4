// Uploads straight to the S3 backend: upload-strategy answers a presigned POST policy, the
// client posts a browser-style multipart form to a real S3 server on loopback (s3rver), then
// confirm-upload checks the bytes are there (HeadObject) and records the object under RLS.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Peer, type S3Peer } from '../../harness/s3-peer.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let peer: S3Peer;
let alice: string;
let bob: string;
const admin = () => ({ 'x-api-key': t.apiKey });

const strategy = (
  bucket: string,
  filename: string,
  headers: Record<string, string>,
  extra: Record<string, unknown> = {},
) =>
  t.request({
    method: 'POST',
    url: `/api/storage/buckets/${bucket}/upload-strategy`,
    headers,
    payload: { filename, ...extra },
  });
const confirm = (url: string, headers: Record<string, string>, payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url, headers, payload });

/** What a browser form does: the fields first, then the file, as multipart/form-data. */
async function postForm(
  plan: { uploadUrl: string; fields: Record<string, string> },
  bytes: Buffer,
  filename = 'file.bin',
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(plan.fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(bytes)]), filename);
  return fetch(plan.uploadUrl, { method: 'POST', body: form });
}

const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const blobIds = async () =>
  (await t.deps.sql<{ blob_id: string }[]>`select blob_id from storage.objects`)
    .map((r) => `blobs/${r.blob_id}`)
    .sort();

beforeAll(async () => {
  peer = await startS3Peer();
  t = await startTestApp({ env: peer.env });
  await t.request({
    method: 'POST',
    url: '/api/storage/buckets',
    headers: admin(),
    payload: { bucketName: 'uploads', isPublic: false },
  });
  await t.request({
    method: 'POST',
    url: '/api/storage/buckets',
    headers: admin(),
    payload: { bucketName: 'open', isPublic: true },
  });
  alice = (await t.signUp()).accessToken;
  bob = (await t.signUp()).accessToken;
});
afterAll(async () => {
  await t.close();
  await peer.close();
});

describe('upload strategy on the S3 backend', () => {
  it('answers a presigned POST whose policy pins bucket, key, type and size, signed as S3 checks it', async () => {
    const res = await strategy('uploads', 'alice/photo.png', bearer(alice), { contentType: 'image/png', size: 10 });
    expect(res.statusCode, res.body).toBe(200);
    const plan = res.json;
    expect(plan).toMatchObject({
      method: 'presigned',
      uploadUrl: `${peer.endpoint}/${peer.bucket}`,
      key: 'alice/photo.png',
      confirmRequired: true,
      confirmUrl: '/api/storage/buckets/uploads/objects/alice/photo.png/confirm-upload',
      expiresAt: new Date(t.clock.now().getTime() + 3600_000).toISOString(),
    });
    expect(plan.fields.key).toMatch(/^blobs\/[0-9a-f-]{36}$/);
    expect(plan.fields['Content-Type']).toBe('image/png');
    const policy = JSON.parse(Buffer.from(plan.fields.policy, 'base64').toString('utf8'));
    expect(policy.expiration).toBe(plan.expiresAt);
    expect(policy.conditions).toEqual(
      expect.arrayContaining([
        { bucket: peer.bucket },
        { key: plan.fields.key },
        { 'Content-Type': 'image/png' },
        ['content-length-range', 0, 50 * 1024 * 1024],
      ]),
    );
    // The signature S3 verifies: HMAC of the base64 policy with the SigV4 key of the credential's scope.
    const [accessKeyId, date, region, service] = plan.fields['x-amz-credential'].split('/');
    expect([accessKeyId, region, service]).toEqual([peer.env.STORAGE_S3_ACCESS_KEY_ID, 'us-east-1', 's3']);
    const signingKey = hmac(
      hmac(hmac(hmac(`AWS4${peer.env.STORAGE_S3_SECRET_ACCESS_KEY}`, date), region), 's3'),
      'aws4_request',
    );
    expect(plan.fields['x-amz-signature']).toBe(
      createHmac('sha256', signingKey).update(plan.fields.policy).digest('hex'),
    );
  });

  it("probes row-level security first: 403 for the anon key and for another user's key, and notes nothing", async () => {
    const bytes = Buffer.from('owned by alice');
    const plan = (await strategy('uploads', 'alice/owned.txt', bearer(alice))).json;
    expect((await postForm(plan, bytes)).status).toBe(204);
    expect((await confirm(plan.confirmUrl, bearer(alice), { size: bytes.length })).statusCode).toBe(200);
    const before = await t.deps.sql`select * from storage.direct_uploads`;
    expect((await strategy('uploads', 'alice/owned.txt', bearer(bob))).statusCode).toBe(403);
    expect((await strategy('uploads', 'anon.txt', bearer(t.anonKey))).statusCode).toBe(403);
    expect((await strategy('uploads', 'x.txt', {})).statusCode).toBe(401);
    expect((await strategy('nope', 'x.txt', bearer(alice))).statusCode).toBe(404);
    expect((await strategy('uploads', '../x.txt', bearer(alice))).statusCode).toBe(400);
    expect((await strategy('uploads', 'big.bin', bearer(alice), { size: 50 * 1024 * 1024 + 1 })).statusCode).toBe(413);
    expect(await t.deps.sql`select * from storage.direct_uploads`).toEqual(before);
  });
});

describe('confirm-upload', () => {
  it('records the object the browser posted: readable through REST, listed, its blob the only one', async () => {
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 13) % 256));
    const plan = (await strategy('uploads', 'alice/data.bin', bearer(alice), { contentType: 'application/x-thing' }))
      .json;
    const posted = await postForm(plan, bytes);
    expect(posted.status).toBe(204);
    const etag = posted.headers.get('etag')!;
    const res = await confirm(plan.confirmUrl, bearer(alice), {
      size: bytes.length,
      contentType: 'application/x-thing',
      etag,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toMatchObject({
      bucket: 'uploads',
      key: 'alice/data.bin',
      size: bytes.length,
      mimeType: 'application/x-thing',
    });
    const get = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/uploads/objects/alice/data.bin',
      headers: bearer(alice),
    });
    expect(get.rawPayload.equals(bytes)).toBe(true);
    expect(get.headers.etag).toBe(etag);
    const list = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/uploads/objects?prefix=alice/data',
      headers: bearer(alice),
    });
    expect(list.json.data.map((f: { key: string }) => f.key)).toEqual(['alice/data.bin']);
    expect(
      (
        await t.request({
          method: 'GET',
          url: '/api/storage/buckets/uploads/objects/alice/data.bin',
          headers: bearer(bob),
        })
      ).statusCode,
    ).toBe(404);
    // Confirmed once: a second confirmation finds nothing left to record.
    expect((await confirm(plan.confirmUrl, bearer(alice), { size: bytes.length })).statusCode).toBe(404);
    expect((await peer.keys()).sort()).toEqual(await blobIds());
  });

  it('replacing a key by a direct upload removes the old blob', async () => {
    for (const body of ['first', 'second']) {
      const plan = (await strategy('uploads', 'alice/replaced.txt', bearer(alice))).json;
      await postForm(plan, Buffer.from(body));
      expect(
        (await confirm(plan.confirmUrl, bearer(alice), { size: body.length, contentType: 'text/plain' })).statusCode,
      ).toBe(200);
    }
    const get = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/uploads/objects/alice/replaced.txt',
      headers: bearer(alice),
    });
    expect(get.body).toBe('second');
    expect((await peer.keys()).sort()).toEqual(await blobIds());
  });

  it("refuses what was not uploaded, someone else's upload, a wrong size or ETag, and no credential", async () => {
    const plan = (await strategy('uploads', 'alice/pending.txt', bearer(alice))).json;
    expect((await confirm(plan.confirmUrl, bearer(alice), { size: 5 })).json).toMatchObject({
      error: 'OBJECT_NOT_FOUND',
      statusCode: 404,
    });
    await postForm(plan, Buffer.from('hello'));
    expect((await confirm(plan.confirmUrl, bearer(bob), { size: 5 })).statusCode).toBe(404);
    expect((await confirm(plan.confirmUrl, {}, { size: 5 })).statusCode).toBe(401);
    expect((await confirm(plan.confirmUrl, bearer(alice), {})).json).toMatchObject({
      error: 'VALIDATION_ERROR',
      statusCode: 400,
    });
    expect((await confirm(plan.confirmUrl, bearer(alice), { size: 6 })).json).toMatchObject({
      error: 'STORAGE_INVALID_PARAMETER',
      statusCode: 400,
    });
    expect((await confirm(plan.confirmUrl, bearer(alice), { size: 5, etag: '"0123"' })).statusCode).toBe(400);
    expect((await confirm(plan.confirmUrl, bearer(alice), { size: 5 })).statusCode).toBe(200);
  });

  it('an object over the size limit is removed from the bucket: 413', async () => {
    await t.request({ method: 'PUT', url: '/api/storage/config', headers: admin(), payload: { maxFileSizeMb: 1 } });
    try {
      const plan = (await strategy('uploads', 'alice/huge.bin', bearer(alice))).json;
      expect(JSON.parse(Buffer.from(plan.fields.policy, 'base64').toString()).conditions).toContainEqual([
        'content-length-range',
        0,
        1024 * 1024,
      ]);
      // s3rver does not enforce POST policies; this server's confirmation still does.
      expect((await postForm(plan, Buffer.alloc(1024 * 1024 + 1))).status).toBe(204);
      expect(await peer.keys()).toContain(plan.fields.key);
      const res = await confirm(plan.confirmUrl, bearer(alice), { size: 1024 * 1024 + 1 });
      expect(res.statusCode).toBe(413);
      expect(await peer.keys()).not.toContain(plan.fields.key);
      expect(
        await t.deps.sql`select * from storage.direct_uploads where blob_id = ${plan.fields.key.slice(6)}`,
      ).toHaveLength(0);
    } finally {
      await t.request({ method: 'PUT', url: '/api/storage/config', headers: admin(), payload: { maxFileSizeMb: 50 } });
    }
  });

  it('uploads never confirmed are removed, bytes and all, on a later start once their window closed', async () => {
    const plan = (await strategy('uploads', 'alice/forgotten.txt', bearer(alice))).json;
    await postForm(plan, Buffer.from('forgotten'));
    const blobId = plan.fields.key.slice('blobs/'.length);
    const other = await t.startAnotherServer();
    await other.close();
    expect(await peer.keys()).toContain(plan.fields.key); // still confirmable
    await t.deps
      .sql`update storage.direct_uploads set expires_at = expires_at - interval '2 hours 1 second' where blob_id = ${blobId}`;
    const later = await t.startAnotherServer();
    await later.close();
    expect(await peer.keys()).not.toContain(plan.fields.key);
    expect(await t.deps.sql`select * from storage.direct_uploads where blob_id = ${blobId}`).toHaveLength(0);
    expect((await confirm(plan.confirmUrl, bearer(alice), { size: 9 })).statusCode).toBe(404);
  });
});

describe('deprecated POST …/objects/{key}/download-strategy', () => {
  it('answers as the GET form does', async () => {
    await t.request({
      method: 'PUT',
      url: '/api/storage/buckets/open/objects/pub.txt',
      headers: { ...admin(), 'content-type': 'text/plain' },
      payload: 'public',
    });
    const pub = await t.request({ method: 'POST', url: '/api/storage/buckets/open/objects/pub.txt/download-strategy' });
    expect(pub.json).toEqual({
      method: 'direct',
      url: `${t.config.apiBaseUrl}/api/storage/buckets/open/objects/pub.txt`,
    });
    expect(pub.headers['cache-control']).toBe('no-store');
    const priv = await t.request({
      method: 'POST',
      url: '/api/storage/buckets/uploads/objects/alice/data.bin/download-strategy',
      headers: bearer(alice),
      payload: { expiresIn: 60 },
    });
    expect(priv.json).toMatchObject({
      method: 'presigned',
      expiresAt: new Date(t.clock.now().getTime() + 60_000).toISOString().replace(/\.\d{3}Z$/, '.000Z'),
    });
    expect((await t.request({ method: 'GET', url: priv.json.url.slice(t.config.apiBaseUrl.length) })).statusCode).toBe(
      200,
    );
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/api/storage/buckets/uploads/objects/alice/data.bin/download-strategy',
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (await t.request({ method: 'POST', url: '/api/storage/buckets/uploads/objects/alice/data.bin/other' }))
        .statusCode,
    ).toBe(404);
  });
});
