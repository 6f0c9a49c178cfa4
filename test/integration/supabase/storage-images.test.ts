// Supabase's image transformations (/storage/v1/render/image/…) driven by supabase-js 2.119.1 —
// download(path, {transform}), getPublicUrl(path, {transform}), createSignedUrl(path, exp,
// {transform}) — against a listening Plinth whose blob store is a real S3 server on loopback: the
// same access rules as the object paths, signed transformations that cannot be changed, and
// variants kept in (and removed from) the S3 bucket with their object.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { twoTonePng } from '../../harness/images.js';
import { startS3Peer, type S3Peer } from '../../harness/s3-peer.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let peer: S3Peer;
let url: string;
let service: SupabaseClient;
let anon: SupabaseClient;
let alice: SupabaseClient;
let bob: SupabaseClient;

const noRealtime = { transport: class {} as never };
const png = async (w: number, h: number) => new Blob([new Uint8Array(await twoTonePng(w, h))], { type: 'image/png' });
const sizeOf = async (bytes: ArrayBuffer | Buffer) => {
  const meta = await sharp(Buffer.from(bytes as ArrayBuffer)).metadata();
  return { format: meta.format, width: meta.width, height: meta.height };
};
const variantBlobKeys = async () => {
  const ids = await t.deps.sql<{ blob_id: string }[]>`select blob_id from storage.image_variants`;
  return ids.map((r) => `blobs/${r.blob_id}`);
};

beforeAll(async () => {
  peer = await startS3Peer();
  t = await startTestApp({ env: peer.env });
  const port = await freePort();
  await t.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${port}`;
  service = createClient(url, t.apiKey, { realtime: noRealtime });
  anon = createClient(url, t.anonKey, { realtime: noRealtime });
  const a = await t.signUp();
  const b = await t.signUp();
  alice = createClient(url, t.anonKey, { accessToken: async () => a.accessToken, realtime: noRealtime });
  bob = createClient(url, t.anonKey, { accessToken: async () => b.accessToken, realtime: noRealtime });
  expect((await service.storage.createBucket('avatars', { public: true })).error).toBeNull();
  expect((await service.storage.createBucket('vault', { public: false })).error).toBeNull();
  expect((await service.storage.from('avatars').upload('face.png', await png(64, 48))).error).toBeNull();
  expect((await alice.storage.from('vault').upload(`${a.user.id}/me.png`, await png(64, 48))).error).toBeNull();
  aliceKey = `${a.user.id}/me.png`;
  aliceToken = a.accessToken;
});
let aliceKey = '';
let aliceToken = '';
afterAll(async () => {
  await t.close();
  await peer.close();
});

describe('download(path, { transform })', () => {
  it('the owner downloads a resized image; without a format, WebP when accepted, else the source’s', async () => {
    const { data, error } = await alice.storage
      .from('vault')
      .download(aliceKey, { transform: { width: 32, height: 32, resize: 'contain' } });
    expect(error).toBeNull();
    expect(await sizeOf(await data!.arrayBuffer())).toEqual({ format: 'png', width: 32, height: 24 });
    const webp = await fetch(`${url}/storage/v1/render/image/authenticated/vault/${aliceKey}?width=16`, {
      headers: { apikey: t.anonKey, authorization: `Bearer ${aliceToken}`, accept: 'image/webp,*/*' },
    });
    expect(webp.status).toBe(200);
    expect(webp.headers.get('content-type')).toBe('image/webp');
    expect(webp.headers.get('vary')).toMatch(/Accept/);
    expect(webp.headers.get('cache-control')).toMatch(/^private, /);
  });

  it('another user, and the anon key, cannot — even with the variant cached', async () => {
    for (const client of [bob, anon]) {
      const { data, error } = await client.storage.from('vault').download(aliceKey, { transform: { width: 32 } });
      expect(data).toBeNull();
      expect(error).not.toBeNull();
    }
  });

  it('bad parameters are a 400 in storage-api’s shape', async () => {
    const res = await fetch(`${url}/storage/v1/render/image/authenticated/vault/${aliceKey}?quality=5`, {
      headers: { apikey: t.anonKey, authorization: `Bearer ${aliceToken}` },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ statusCode: '400', code: 'InvalidRequest' });
  });
});

describe('getPublicUrl(path, { transform })', () => {
  it('gives a render URL that needs no credential and may be cached publicly', async () => {
    const { data } = service.storage.from('avatars').getPublicUrl('face.png', { transform: { width: 20, height: 10 } });
    expect(data.publicUrl).toContain('/storage/v1/render/image/public/avatars/face.png?width=20&height=10');
    const res = await fetch(data.publicUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(await sizeOf(await res.arrayBuffer())).toEqual({ format: 'png', width: 20, height: 10 });
  });

  it('a private bucket has no public render URL', async () => {
    const { data } = service.storage.from('vault').getPublicUrl(aliceKey, { transform: { width: 20 } });
    const res = await fetch(data.publicUrl);
    expect(res.status).toBe(404);
  });
});

describe('createSignedUrl(path, expiresIn, { transform })', () => {
  it('opens that transformation without a credential', async () => {
    const { data, error } = await alice.storage
      .from('vault')
      .createSignedUrl(aliceKey, 60, { transform: { width: 16, height: 16, format: 'origin' } });
    expect(error).toBeNull();
    expect(data!.signedUrl).toContain('/storage/v1/render/image/sign/vault/');
    const res = await fetch(data!.signedUrl);
    expect(res.status).toBe(200);
    expect(await sizeOf(await res.arrayBuffer())).toEqual({ format: 'png', width: 16, height: 16 });
  });

  it('refuses the URL with a parameter changed, added or removed, and on the object path', async () => {
    const { data } = await alice.storage.from('vault').createSignedUrl(aliceKey, 60, { transform: { width: 16 } });
    const signed = data!.signedUrl;
    for (const tampered of [
      signed.replace('width=16', 'width=2000'),
      signed.replace('&width=16', ''),
      `${signed}&format=png`,
      signed.replace('/render/image/sign/', '/object/sign/').replace('&width=16', ''),
    ]) {
      const res = await fetch(tampered);
      expect(res.status, tampered).toBe(401);
      expect(await res.json()).toMatchObject({ statusCode: '401', code: 'InvalidJWT' });
    }
  });

  it('a signed URL of the original does not open a transformation', async () => {
    const { data } = await alice.storage.from('vault').createSignedUrl(aliceKey, 60);
    expect((await fetch(data!.signedUrl)).status).toBe(200);
    const asRender = data!.signedUrl.replace('/object/sign/', '/render/image/sign/');
    expect((await fetch(`${asRender}&width=16`)).status).toBe(401);
  });

  it('cannot be made by someone who cannot read the object', async () => {
    const { data, error } = await bob.storage.from('vault').createSignedUrl(aliceKey, 60, { transform: { width: 16 } });
    expect(data).toBeNull();
    expect(error).not.toBeNull();
  });

  it('expires', async () => {
    const { data } = await alice.storage.from('vault').createSignedUrl(aliceKey, 5, { transform: { width: 12 } });
    expect((await fetch(data!.signedUrl)).status).toBe(200);
    t.clock.advance(6_000);
    expect((await fetch(data!.signedUrl)).status).toBe(401);
  });
});

describe('variants on the S3 backend', () => {
  it('are kept in the S3 bucket, served again from there, and removed when the object is replaced or removed', async () => {
    const bucket = service.storage.from('avatars');
    await bucket.upload('swap.png', await png(40, 40));
    const first = await bucket.download('swap.png', { transform: { width: 20, format: 'origin' } });
    expect(await sizeOf(await first.data!.arrayBuffer())).toMatchObject({ width: 20, height: 20 });
    const stored = await variantBlobKeys();
    expect(stored.length).toBeGreaterThan(0);
    for (const key of stored) expect(await peer.keys()).toContain(key);
    const again = await bucket.download('swap.png', { transform: { width: 20, format: 'origin' } });
    expect(Buffer.from(await again.data!.arrayBuffer()).equals(Buffer.from(await first.data!.arrayBuffer()))).toBe(
      true,
    );

    const before = new Set(await variantBlobKeys());
    expect((await bucket.update('swap.png', await png(80, 20))).error).toBeNull();
    const replaced = await bucket.download('swap.png', { transform: { width: 20, format: 'origin' } });
    expect(await sizeOf(await replaced.data!.arrayBuffer())).toMatchObject({ width: 20, height: 5 });
    const now = await variantBlobKeys();
    const dropped = [...before].filter((k) => !now.includes(k));
    expect(dropped.length).toBeGreaterThan(0);
    for (const key of dropped) expect(await peer.keys()).not.toContain(key);

    const current = now.filter((k) => !before.has(k));
    expect((await bucket.remove(['swap.png'])).error).toBeNull();
    for (const key of current) expect(await peer.keys()).not.toContain(key);
  });
});
