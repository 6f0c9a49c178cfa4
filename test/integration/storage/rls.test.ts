// End-user access to objects goes through row-level security on storage.objects: owners,
// other users, the anon key, no credential, and public buckets.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let alice: string;
let bob: string;
const put = (bucket: string, key: string, headers: Record<string, string>, body = key) =>
  t.request({
    method: 'PUT',
    url: `/api/storage/buckets/${bucket}/objects/${key}`,
    headers: { ...headers, 'content-type': 'text/plain' },
    payload: body,
  });
const get = (bucket: string, key: string, headers: Record<string, string> = {}) =>
  t.request({ method: 'GET', url: `/api/storage/buckets/${bucket}/objects/${key}`, headers });

beforeAll(async () => {
  t = await startTestApp({ env: { STORAGE_DIR: await mkdtemp(path.join(tmpdir(), 'plinth-storage-')) } });
  for (const [bucketName, isPublic] of [
    ['private', false],
    ['public', true],
  ] as const) {
    await t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: { 'x-api-key': t.apiKey },
      payload: { bucketName, isPublic },
    });
  }
  alice = (await t.signUp()).accessToken;
  bob = (await t.signUp()).accessToken;
  expect((await put('private', 'alice/notes.txt', bearer(alice))).statusCode).toBe(200);
  expect((await put('public', 'alice/avatar.txt', bearer(alice))).statusCode).toBe(200);
});
afterAll(() => t.close());

describe('private bucket', () => {
  it('the owner reads, lists, replaces and deletes', async () => {
    expect((await get('private', 'alice/notes.txt', bearer(alice))).body).toBe('alice/notes.txt');
    const list = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/private/objects',
      headers: bearer(alice),
    });
    expect(list.json.data.map((f: { key: string }) => f.key)).toEqual(['alice/notes.txt']);
    expect((await put('private', 'alice/notes.txt', bearer(alice), 'v2')).statusCode).toBe(200);
    expect((await get('private', 'alice/notes.txt', bearer(alice))).body).toBe('v2');
    expect((await put('private', 'alice/tmp.txt', bearer(alice))).statusCode).toBe(200);
    expect(
      (
        await t.request({
          method: 'DELETE',
          url: '/api/storage/buckets/private/objects/alice/tmp.txt',
          headers: bearer(alice),
        })
      ).statusCode,
    ).toBe(200);
  });

  it('another user neither sees, lists, replaces nor deletes it', async () => {
    expect((await get('private', 'alice/notes.txt', bearer(bob))).statusCode).toBe(404);
    const list = await t.request({ method: 'GET', url: '/api/storage/buckets/private/objects', headers: bearer(bob) });
    expect(list.json.data).toEqual([]);
    const overwrite = await put('private', 'alice/notes.txt', bearer(bob), 'evil');
    expect(overwrite.statusCode).toBe(403);
    expect(overwrite.json.error).toBe('STORAGE_PERMISSION_DENIED');
    const del = await t.request({
      method: 'DELETE',
      url: '/api/storage/buckets/private/objects/alice/notes.txt',
      headers: bearer(bob),
    });
    expect(del.statusCode).toBe(404);
    const batch = await t.request({
      method: 'DELETE',
      url: '/api/storage/buckets/private/objects',
      headers: bearer(bob),
      payload: { keys: ['alice/notes.txt'] },
    });
    expect(batch.json.results).toEqual([{ key: 'alice/notes.txt', status: 'notFound' }]);
    expect((await get('private', 'alice/notes.txt', bearer(alice))).body).toBe('v2');
  });

  it('no credential gets 401; the anon key sees nothing and cannot upload', async () => {
    const none = await get('private', 'alice/notes.txt');
    expect(none.statusCode).toBe(401);
    expect(none.json.error).toBe('UNAUTHORIZED');
    expect((await get('private', 'alice/notes.txt', bearer(t.anonKey))).statusCode).toBe(404);
    const upload = await put('private', 'anon.txt', bearer(t.anonKey));
    expect(upload.statusCode).toBe(403);
    expect(upload.json.error).toBe('STORAGE_PERMISSION_DENIED');
  });

  it('the upload strategy (direct on local disk) probes the same rules first, writing nothing', async () => {
    const strategy = (filename: string, headers: Record<string, string>) =>
      t.request({
        method: 'POST',
        url: '/api/storage/buckets/private/upload-strategy',
        headers,
        payload: { filename },
      });
    expect((await strategy('alice/next.txt', bearer(alice))).json).toMatchObject({
      method: 'direct',
      confirmRequired: false,
    });
    expect((await strategy('alice/notes.txt', bearer(bob))).json).toMatchObject({
      error: 'STORAGE_PERMISSION_DENIED',
      statusCode: 403,
    });
    expect((await strategy('anon.txt', bearer(t.anonKey))).statusCode).toBe(403);
    expect((await get('private', 'alice/next.txt', bearer(alice))).statusCode).toBe(404);
    expect((await get('private', 'alice/notes.txt', bearer(alice))).body).toBe('v2');
    // Nothing to confirm on local disk: uploads are PUTs here.
    const confirm = await t.request({
      method: 'POST',
      url: '/api/storage/buckets/private/objects/alice/next.txt/confirm-upload',
      headers: bearer(alice),
      payload: { size: 1 },
    });
    expect(confirm.statusCode).toBe(404);
  });

  it('the API key sees everything', async () => {
    expect((await get('private', 'alice/notes.txt', { 'x-api-key': t.apiKey })).body).toBe('v2');
  });
});

describe('public bucket', () => {
  it('anyone downloads; only the owner may replace', async () => {
    expect((await get('public', 'alice/avatar.txt')).body).toBe('alice/avatar.txt');
    expect((await get('public', 'alice/avatar.txt', bearer(bob))).statusCode).toBe(200);
    expect((await get('public', 'alice/avatar.txt', bearer(t.anonKey))).statusCode).toBe(200);
    expect((await put('public', 'alice/avatar.txt', bearer(bob), 'evil')).statusCode).toBe(403);
    const list = await t.request({
      method: 'GET',
      url: '/api/storage/buckets/public/objects',
      headers: bearer(t.anonKey),
    });
    expect(list.json.data.map((f: { key: string }) => f.key)).toEqual(['alice/avatar.txt']);
  });

  it('turning the bucket private closes anonymous downloads', async () => {
    await t.request({
      method: 'PATCH',
      url: '/api/storage/buckets/public',
      headers: { 'x-api-key': t.apiKey },
      payload: { isPublic: false },
    });
    expect((await get('public', 'alice/avatar.txt')).statusCode).toBe(401);
    expect((await get('public', 'alice/avatar.txt', bearer(bob))).statusCode).toBe(404);
    await t.request({
      method: 'PATCH',
      url: '/api/storage/buckets/public',
      headers: { 'x-api-key': t.apiKey },
      payload: { isPublic: true },
    });
  });
});

describe('download strategy and signed URLs', () => {
  const strategy = (bucket: string, key: string, headers: Record<string, string> = {}, query = '') =>
    t.request({
      method: 'GET',
      url: `/api/storage/buckets/${bucket}/download-strategy/objects/${key}${query}`,
      headers,
    });

  it('a public object is downloaded directly', async () => {
    const res = await strategy('public', 'alice/avatar.txt');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json).toEqual({
      method: 'direct',
      url: `${t.config.apiBaseUrl}/api/storage/buckets/public/objects/alice/avatar.txt`,
    });
  });

  it('a private object gets an expiring signed URL that needs no credential', async () => {
    const res = await strategy('private', 'alice/notes.txt', bearer(alice), '?expiresIn=60');
    expect(res.json).toMatchObject({ method: 'presigned', expiresAt: expect.any(String) });
    const url = new URL(res.json.url);
    const path = `${url.pathname}${url.search}`;
    expect((await t.request({ method: 'GET', url: path })).body).toBe('v2');
    const tampered = await t.request({ method: 'GET', url: path.replace('alice/notes.txt', 'alice/other.txt') });
    expect(tampered.statusCode).toBe(401);
    const forged = await t.request({ method: 'GET', url: path.replace(/token=[^&]+/, `token=${'A'.repeat(43)}`) });
    expect(forged.statusCode).toBe(401);
    t.clock.advance(61_000);
    try {
      const expired = await t.request({ method: 'GET', url: path });
      expect(expired.statusCode).toBe(401);
      expect(expired.json.message).toMatch(/expired/);
    } finally {
      t.clock.advance(-61_000);
    }
  });

  it('only callers who may read the object get a URL', async () => {
    expect((await strategy('private', 'alice/notes.txt')).statusCode).toBe(401);
    expect((await strategy('private', 'alice/notes.txt', bearer(bob))).statusCode).toBe(404);
    expect((await strategy('private', 'alice/notes.txt', bearer(alice), '?expiresIn=soon')).statusCode).toBe(400);
  });

  it('the deprecated POST …/objects/{key}/download-strategy answers the same, expiresIn in the body', async () => {
    const post = (bucket: string, key: string, headers: Record<string, string>, payload?: object) =>
      t.request({
        method: 'POST',
        url: `/api/storage/buckets/${bucket}/objects/${key}/download-strategy`,
        headers,
        ...(payload ? { payload } : {}),
      });
    const signed = await post('private', 'alice/notes.txt', bearer(alice), { expiresIn: 60 });
    expect(signed.statusCode).toBe(200);
    expect(signed.headers['cache-control']).toBe('no-store');
    expect(signed.json).toMatchObject({ method: 'presigned', expiresAt: expect.any(String) });
    expect(Date.parse(signed.json.expiresAt) - t.clock.now().getTime()).toBeLessThanOrEqual(60_000);
    const url = new URL(signed.json.url);
    expect((await t.request({ method: 'GET', url: `${url.pathname}${url.search}` })).body).toBe('v2');
    expect((await post('public', 'alice/avatar.txt', {})).json).toEqual({
      method: 'direct',
      url: `${t.config.apiBaseUrl}/api/storage/buckets/public/objects/alice/avatar.txt`,
    });
    const foreign = await post('private', 'alice/notes.txt', bearer(bob));
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json.error).toBe('OBJECT_NOT_FOUND');
    // Any other POST under …/objects/{key} is an unknown route.
    const other = await t.request({
      method: 'POST',
      url: '/api/storage/buckets/private/objects/alice/notes.txt',
      headers: bearer(alice),
      payload: {},
    });
    expect(other.statusCode).toBe(404);
    expect(other.json.error).toBe('NOT_FOUND');
  });
});
