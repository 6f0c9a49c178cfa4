// The official JavaScript client's storage module against a listening Plinth on the local-disk
// backend: upload (upload-strategy → direct PUT, keys with slashes), list, download (a public
// bucket's direct URL; a private object's signed URL fetched with no credential), signed URLs,
// and remove (one key and a batch), with owners separated by row-level security.
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkApp, type SdkApp } from './sdk-app.js';

let s: SdkApp;
let alice: InsForgeClient;
let bob: InsForgeClient;

async function signedIn(): Promise<InsForgeClient> {
  const client = s.client({ isServerMode: true });
  const { error } = await client.auth.signUp({
    email: `st-${randomBytes(4).toString('hex')}@example.com`,
    password: 'sdk-password-1',
  });
  if (error) throw error;
  return client;
}

beforeAll(async () => {
  s = await startSdkApp({ env: { STORAGE_DIR: await mkdtemp(path.join(tmpdir(), 'plinth-sdk-storage-')) } });
  // Buckets are the developer's setup (the client has no bucket management).
  for (const [bucketName, isPublic] of [
    ['docs', false],
    ['avatars', true],
  ] as const) {
    const res = await s.t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: { 'x-api-key': s.t.apiKey },
      payload: { bucketName, isPublic },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  alice = await signedIn();
  bob = await signedIn();
});
afterAll(() => s.close());

const text = (body: string, type = 'text/plain') => new Blob([body], { type });

/**
 * The keys of a list() answer. The client's type declares `{objects, pagination}`, but the client
 * passes the body through, and the reference platform and Plinth both answer `{data, pagination}`
 * (api-contract B.4.2): apps read `data`.
 */
const keysOf = (listed: unknown) => (listed as { data: { key: string }[] }).data.map((f) => f.key);

describe('upload', () => {
  it('uploads through the upload strategy to the key given, slashes included, and replaces in place', async () => {
    const first = await alice.storage.from('docs').upload('alice/notes/today.txt', text('first'));
    expect(first.error).toBeNull();
    expect(first.data).toMatchObject({
      bucket: 'docs',
      key: 'alice/notes/today.txt',
      size: 5,
      mimeType: expect.stringContaining('text/plain'),
      url: `${s.baseUrl}/api/storage/buckets/docs/objects/alice/notes/today.txt`,
    });
    const replaced = await alice.storage.from('docs').upload('alice/notes/today.txt', text('second!'));
    expect(replaced.error).toBeNull();
    expect(replaced.data).toMatchObject({ key: 'alice/notes/today.txt', size: 7 });
  });

  it('uploadAuto stores under a generated key derived from the file name', async () => {
    const { data, error } = await alice.storage
      .from('avatars')
      .uploadAuto(new File(['png-bytes'], 'me photo.png', { type: 'image/png' }));
    expect(error).toBeNull();
    expect(data!.key).toMatch(/^me-photo-\d+-[a-z0-9]+\.png$/);
  });

  it('an unknown bucket or a bad key is an InsForgeError, not a thrown exception', async () => {
    const missing = await alice.storage.from('nope').upload('x.txt', text('x'));
    expect(missing.data).toBeNull();
    expect(missing.error).toMatchObject({ statusCode: 404 });
    const bad = await alice.storage.from('docs').upload('../escape.txt', text('x'));
    expect(bad.error).toMatchObject({ statusCode: 400, error: 'STORAGE_INVALID_PARAMETER' });
  });

  it("another user may not replace someone's object", async () => {
    const res = await bob.storage.from('docs').upload('alice/notes/today.txt', text('evil'));
    expect(res.error).toMatchObject({ statusCode: 403, error: 'STORAGE_PERMISSION_DENIED' });
  });
});

describe('list', () => {
  it('lists own objects with prefix, search, limit and offset', async () => {
    await alice.storage.from('docs').upload('alice/b.txt', text('b'));
    await alice.storage.from('docs').upload('alice/c.txt', text('c'));
    const all = await alice.storage.from('docs').list({ prefix: 'alice/' });
    expect(all.error).toBeNull();
    expect(keysOf(all.data)).toEqual(['alice/b.txt', 'alice/c.txt', 'alice/notes/today.txt']);
    expect(all.data!.pagination).toMatchObject({ offset: 0, limit: 100, total: 3 });
    const page = await alice.storage.from('docs').list({ prefix: 'alice/', limit: 1, offset: 1 });
    expect(keysOf(page.data)).toEqual(['alice/c.txt']);
    const found = await alice.storage.from('docs').list({ search: 'today' });
    expect(keysOf(found.data)).toEqual(['alice/notes/today.txt']);
    const other = await bob.storage.from('docs').list();
    expect(keysOf(other.data)).toEqual([]);
  });
});

describe('download', () => {
  it('a private object: the client gets a signed URL and fetches it without credentials', async () => {
    const { data, error } = await alice.storage.from('docs').download('alice/notes/today.txt');
    expect(error).toBeNull();
    expect(await data!.text()).toBe('second!');
  });

  it('createSignedUrl gives a credential-free URL with its expiry, which stops working after it', async () => {
    const { data, error } = await alice.storage.from('docs').createSignedUrl('alice/b.txt', 60);
    expect(error).toBeNull();
    expect(data!.expiresAt).toEqual(expect.any(String));
    const fetched = await fetch(data!.signedUrl);
    expect(fetched.status).toBe(200);
    expect(await fetched.text()).toBe('b');
    s.t.clock.advance(61_000);
    expect((await fetch(data!.signedUrl)).status).toBe(401);
  });

  it('a public bucket: direct URL, readable by anyone, and getPublicUrl points at the same place', async () => {
    await alice.storage.from('avatars').upload('alice/avatar.txt', text('hi'));
    const visitor = s.client();
    const { data, error } = await visitor.storage.from('avatars').download('alice/avatar.txt');
    expect(error).toBeNull();
    expect(await data!.text()).toBe('hi');
    const { publicUrl } = visitor.storage.from('avatars').getPublicUrl('alice/avatar.txt').data!;
    expect(await (await fetch(publicUrl)).text()).toBe('hi');
  });

  // On any 404 of the GET strategy the client retries the deprecated POST …/{key}/download-strategy
  // (createSignedUrl skips that only for the reference's STORAGE_NOT_FOUND); Plinth serves both
  // forms, so the app sees the spec's OBJECT_NOT_FOUND rather than a route-level NOT_FOUND.
  it("another user cannot download or sign someone's private object: 404 OBJECT_NOT_FOUND", async () => {
    const res = await bob.storage.from('docs').download('alice/b.txt');
    expect(res.data).toBeNull();
    expect(res.error).toMatchObject({ statusCode: 404, error: 'OBJECT_NOT_FOUND' });
    const signed = await bob.storage.from('docs').createSignedUrl('alice/b.txt');
    expect(signed.error).toMatchObject({ statusCode: 404, error: 'OBJECT_NOT_FOUND' });
  });
});

describe('remove', () => {
  it('removes one key, then a batch with per-key results', async () => {
    const one = await alice.storage.from('docs').remove('alice/b.txt');
    expect(one.error).toBeNull();
    expect(one.data).toEqual({ message: 'Object deleted successfully' });
    const again = await alice.storage.from('docs').remove('alice/b.txt');
    expect(again.error).toMatchObject({ statusCode: 404, error: 'OBJECT_NOT_FOUND' });

    const batch = await alice.storage.from('docs').remove(['alice/c.txt', 'alice/missing.txt']);
    expect(batch.error).toBeNull();
    expect(batch.data).toEqual({
      results: [
        { key: 'alice/c.txt', status: 'deleted' },
        { key: 'alice/missing.txt', status: 'notFound' },
      ],
    });
  });
});
