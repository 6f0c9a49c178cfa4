// The S3 gateway's configuration report and its access keys, on the local-disk backend.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const admin = () => ({ 'x-api-key': t.apiKey });

beforeAll(async () => {
  t = await startTestApp({
    env: {
      STORAGE_DIR: await mkdtemp(path.join(tmpdir(), 'plinth-storage-')),
      API_BASE_URL: 'https://api.example.com/',
      AWS_REGION: 'eu-west-3',
    },
  });
});
afterAll(() => t.close());

describe('GET /api/storage/s3/config', () => {
  it('reports the endpoint, the fallback region, and unavailability on local disk', async () => {
    const res = await t.request({ method: 'GET', url: '/api/storage/s3/config', headers: admin() });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      data: { endpoint: 'https://api.example.com/storage/v1/s3', region: 'eu-west-3', available: false },
    });
  });
});

describe('the S3 gateway on local disk', () => {
  it('answers 501 NotImplemented as S3 XML', async () => {
    const res = await t.request({ method: 'GET', url: '/storage/v1/s3/bucket/key' });
    expect(res.statusCode).toBe(501);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(res.body).toContain('<Code>NotImplemented</Code>');
  });
});

describe('access keys', () => {
  it('shows the secret once, lists without it, stores it sealed, and revokes', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/storage/s3/access-keys',
      headers: admin(),
      payload: { description: 'ci' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json).toMatchObject({
      accessKeyId: expect.stringMatching(/^PLNT[A-Z0-9]{16}$/),
      description: 'ci',
      lastUsedAt: null,
    });
    expect(created.json.secretAccessKey).toMatch(/^[\w-]{40}$/);
    const list = await t.request({ method: 'GET', url: '/api/storage/s3/access-keys', headers: admin() });
    expect(list.json).toEqual([
      {
        id: created.json.id,
        accessKeyId: created.json.accessKeyId,
        description: 'ci',
        createdAt: created.json.createdAt,
        lastUsedAt: null,
      },
    ]);
    const [row] = await t.deps.sql<
      { secret_ciphertext: string }[]
    >`select secret_ciphertext from storage.s3_access_keys`;
    expect(row?.secret_ciphertext).not.toContain(created.json.secretAccessKey);
    expect(t.deps.keyring.open(row!.secret_ciphertext)).toBe(created.json.secretAccessKey);

    const del = await t.request({
      method: 'DELETE',
      url: `/api/storage/s3/access-keys/${created.json.id}`,
      headers: admin(),
    });
    expect(del.statusCode).toBe(204);
    const again = await t.request({
      method: 'DELETE',
      url: `/api/storage/s3/access-keys/${created.json.id}`,
      headers: admin(),
    });
    expect(again.statusCode).toBe(404);
    expect(again.json.error).toBe('S3_ACCESS_KEY_NOT_FOUND');
    const bad = await t.request({ method: 'DELETE', url: '/api/storage/s3/access-keys/not-a-uuid', headers: admin() });
    expect(bad.statusCode).toBe(400);
  });

  it('allows at most 50 keys, even when created concurrently', async () => {
    const results = await Promise.all(
      Array.from({ length: 55 }, () =>
        t.request({ method: 'POST', url: '/api/storage/s3/access-keys', headers: admin(), payload: {} }),
      ),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(50);
    const refused = results.filter((r) => r.statusCode === 400);
    expect(refused).toHaveLength(5);
    expect(refused[0]!.json.error).toBe('S3_ACCESS_KEY_LIMIT_EXCEEDED');
  });
});

describe('GET/PUT /api/storage/config', () => {
  it('reports the environment default, then the admin setting, which uploads obey', async () => {
    const before = await t.request({ method: 'GET', url: '/api/storage/config', headers: admin() });
    expect(before.json).toMatchObject({
      id: expect.any(String),
      maxFileSizeMb: 50,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const put = await t.request({
      method: 'PUT',
      url: '/api/storage/config',
      headers: admin(),
      payload: { maxFileSizeMb: 1 },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json.maxFileSizeMb).toBe(1);
    expect((await t.request({ method: 'GET', url: '/api/storage/config', headers: admin() })).json.maxFileSizeMb).toBe(
      1,
    );

    await t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: admin(),
      payload: { bucketName: 'limits' },
    });
    const upload = (size: number) =>
      t.request({
        method: 'PUT',
        url: '/api/storage/buckets/limits/objects/blob.bin',
        headers: { ...admin(), 'content-type': 'application/octet-stream' },
        payload: Buffer.alloc(size),
      });
    expect((await upload(1024 * 1024)).statusCode).toBe(200);
    const over = await upload(1024 * 1024 + 1);
    expect(over.statusCode).toBe(413);
    expect(over.json.error).toBe('PAYLOAD_TOO_LARGE');

    for (const maxFileSizeMb of [0, 201, 1.5]) {
      expect(
        (await t.request({ method: 'PUT', url: '/api/storage/config', headers: admin(), payload: { maxFileSizeMb } }))
          .statusCode,
      ).toBe(400);
    }
  });
});
