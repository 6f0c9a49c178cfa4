// Image transformations on Plinth's download path (GET /api/storage/buckets/{b}/objects/{key}
// with width, height, resize, quality, format) on the local disk backend: what comes out (size,
// fit, format, orientation, no metadata), what is refused (bad parameters, non-images, SVG,
// decompression bombs, animated frames past the pixel limit), who may read a variant (exactly who
// may read the object: credential, public bucket, signed URL covering the transformation), and the
// variant cache (hit/miss counters, ETag and 304, variants gone with a replaced or deleted object).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { animatedGif, orientedJpeg, pngBomb, twoTonePng } from '../../harness/images.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let storageDir: string;
let alice: string;
let bob: string;
const admin = () => ({ 'x-api-key': t.apiKey });
const objectUrl = (bucket: string, key: string, query = '') =>
  `/api/storage/buckets/${bucket}/objects/${key}${query ? `?${query}` : ''}`;

async function put(
  bucket: string,
  key: string,
  body: Buffer | string,
  type: string,
  headers: Record<string, string> = admin(),
) {
  const res = await t.request({
    method: 'PUT',
    url: objectUrl(bucket, key),
    headers: { ...headers, 'content-type': type },
    payload: body,
  });
  expect(res.statusCode, res.body).toBe(200);
}

const get = (url: string, headers: Record<string, string> = {}) => t.request({ method: 'GET', url, headers });
const metaOf = (bytes: Buffer) => sharp(bytes).metadata();

/** The metrics' image counters now. */
async function counters() {
  const res = await get('/metrics', admin());
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(res.body)?.[1] ?? Number.NaN);
  return {
    hits: value('plinth_storage_image_cache_hits_total'),
    misses: value('plinth_storage_image_cache_misses_total'),
  };
}

/** Blob files on disk (objects and variants). */
async function blobFiles(): Promise<string[]> {
  const root = path.join(storageDir, 'blobs');
  const dirs = await readdir(root).catch(() => []);
  const all = await Promise.all(dirs.map(async (d) => readdir(path.join(root, d))));
  return all.flat().sort();
}

const variantRows = () =>
  t.deps.sql<{ blob_id: string; params: string }[]>`select blob_id, params from storage.image_variants`;

beforeAll(async () => {
  storageDir = await mkdtemp(path.join(tmpdir(), 'plinth-images-'));
  t = await startTestApp({
    env: {
      STORAGE_DIR: storageDir,
      STORAGE_IMAGE_MAX_SOURCE_PIXELS: '1000000',
      STORAGE_IMAGE_MAX_DIMENSION: '1000',
    },
  });
  for (const [bucketName, isPublic] of [
    ['pics', true],
    ['private', false],
  ] as const) {
    const res = await t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: admin(),
      payload: { bucketName, isPublic },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  await put('pics', 'two-tone.png', await twoTonePng(64, 48), 'image/png');
  await put('pics', 'oriented.jpg', await orientedJpeg(64, 48), 'image/jpeg');
  await put('pics', 'notes.txt', 'not an image', 'text/plain');
  await put(
    'pics',
    'logo.svg',
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="http://127.0.0.1:9/x.png"/></svg>',
    'image/svg+xml',
  );
  alice = (await t.signUp()).accessToken;
  bob = (await t.signUp()).accessToken;
  await put('private', 'alice/photo.png', await twoTonePng(64, 48), 'image/png', bearer(alice));
});
afterAll(() => t.close());

describe('what a transformation gives', () => {
  it.each([
    ['width=32', 32, 24],
    ['height=12', 16, 12],
    ['width=20&height=20', 20, 20],
    ['width=20&height=20&resize=contain', 20, 15],
    ['width=20&height=30&resize=fill', 20, 30],
    // Never enlarged: the source is 64×48.
    ['width=500', 64, 48],
  ])('%s → %i×%i in the source’s format', async (query, width, height) => {
    const res = await get(objectUrl('pics', 'two-tone.png', query));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    const meta = await metaOf(res.rawPayload);
    expect([meta.format, meta.width, meta.height]).toEqual(['png', width, height]);
  });

  it('cover crops to the centre; contain keeps the whole image, unpadded', async () => {
    const pixelAt = async (query: string, x: number) => {
      const res = await get(objectUrl('pics', 'two-tone.png', query));
      const { data, info } = await sharp(res.rawPayload).raw().toBuffer({ resolveWithObject: true });
      return [...data.subarray(x * info.channels, x * info.channels + 3)];
    };
    // A 48×48 square out of the 64×48 red|blue image: the left edge is still red.
    expect(await pixelAt('width=48&height=48&resize=cover', 0)).toEqual([255, 0, 0]);
    // contain fits 64×48 inside 48×60 as 48×36: the left edge is red, the right edge blue.
    expect(await pixelAt('width=48&height=60&resize=contain', 0)).toEqual([255, 0, 0]);
    expect(await pixelAt('width=48&height=60&resize=contain', 47)).toEqual([0, 0, 255]);
  });

  it.each([
    ['webp', 'image/webp', 'webp'],
    ['avif', 'image/avif', 'heif'],
    ['jpeg', 'image/jpeg', 'jpeg'],
    ['png', 'image/png', 'png'],
    ['origin', 'image/png', 'png'],
  ])('format=%s answers %s', async (format, mime, sharpFormat) => {
    const res = await get(objectUrl('pics', 'two-tone.png', `width=16&format=${format}`));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe(mime);
    expect((await metaOf(res.rawPayload)).format).toBe(sharpFormat);
    expect(String(res.headers.vary ?? '')).not.toContain('Accept');
  });

  it('format=auto picks from Accept, and says so in Vary', async () => {
    const url = objectUrl('pics', 'two-tone.png', 'width=16&format=auto');
    const webp = await get(url, { accept: 'image/avif,image/webp,*/*' });
    expect(webp.headers['content-type']).toBe('image/webp');
    expect(String(webp.headers.vary)).toMatch(/\bAccept\b/);
    const avif = await get(url, { accept: 'image/avif' });
    expect(avif.headers['content-type']).toBe('image/avif');
    const plain = await get(url, { accept: '*/*' });
    expect(plain.headers['content-type']).toBe('image/png');
    expect(webp.headers.etag).not.toBe(plain.headers.etag);
  });

  it('quality changes the bytes of a lossy format', async () => {
    const low = await get(objectUrl('pics', 'oriented.jpg', 'format=jpeg&quality=20'));
    const high = await get(objectUrl('pics', 'oriented.jpg', 'format=jpeg&quality=100'));
    expect(low.rawPayload.length).toBeLessThan(high.rawPayload.length);
  });

  it('applies EXIF orientation and strips metadata (EXIF, copyright, location text)', async () => {
    const original = await metaOf((await get(objectUrl('pics', 'oriented.jpg'))).rawPayload);
    expect([original.width, original.height, original.orientation]).toEqual([64, 48, 6]);
    const res = await get(objectUrl('pics', 'oriented.jpg', 'format=jpeg'));
    const meta = await metaOf(res.rawPayload);
    expect([meta.width, meta.height]).toEqual([48, 64]);
    expect(meta.orientation).toBeUndefined();
    expect(meta.exif).toBeUndefined();
    expect(res.rawPayload.includes('secret-owner')).toBe(false);
    expect(res.rawPayload.includes('51.5N')).toBe(false);
  });

  it('an animated GIF stays animated as WebP or GIF, and is its first frame as PNG', async () => {
    await put('pics', 'anim.gif', await animatedGif(40, 4), 'image/gif');
    const webp = await get(objectUrl('pics', 'anim.gif', 'width=20&format=webp'));
    expect(webp.statusCode, webp.body).toBe(200);
    const webpMeta = await sharp(webp.rawPayload, { pages: -1 }).metadata();
    expect([webpMeta.format, webpMeta.pages, webpMeta.width, webpMeta.pageHeight]).toEqual(['webp', 4, 20, 20]);
    const gif = await get(objectUrl('pics', 'anim.gif', 'width=20'));
    expect(gif.headers['content-type']).toBe('image/gif');
    expect((await sharp(gif.rawPayload, { pages: -1 }).metadata()).pages).toBe(4);
    const png = await get(objectUrl('pics', 'anim.gif', 'width=20&format=png'));
    expect((await metaOf(png.rawPayload)).pages).toBeUndefined();
  });
});

describe('what is refused', () => {
  it.each([
    'width=0',
    'width=-5',
    'width=abc',
    'height=1.5',
    'quality=19',
    'quality=101',
    'resize=stretch',
    'format=gif',
    'format=svg',
  ])('%s → 400 before anything is read', async (query) => {
    const res = await get(objectUrl('pics', 'two-tone.png', query));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
  });

  it('an output wider or taller than STORAGE_IMAGE_MAX_DIMENSION → 400', async () => {
    for (const query of ['width=1001', 'height=1001']) {
      const res = await get(objectUrl('pics', 'two-tone.png', query));
      expect(res.statusCode).toBe(400);
      expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', nextActions: expect.stringContaining('1000') });
    }
  });

  it('an object that is no image → 422 IMAGE_NOT_SUPPORTED; so is SVG (never rendered, nothing fetched)', async () => {
    for (const key of ['notes.txt', 'logo.svg']) {
      const res = await get(objectUrl('pics', key, 'width=10'));
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json).toMatchObject({ error: 'IMAGE_NOT_SUPPORTED', nextActions: expect.any(String) });
    }
  });

  it('a decompression bomb (a tiny PNG claiming 30000×30000 pixels) → 422 without decoding', async () => {
    const bomb = pngBomb(30_000, 30_000);
    expect(bomb.length).toBeLessThan(2_000);
    await put('pics', 'bomb.png', bomb, 'image/png');
    const before = process.memoryUsage().rss;
    const res = await get(objectUrl('pics', 'bomb.png', 'width=10'));
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json).toMatchObject({ error: 'IMAGE_TOO_LARGE', message: expect.stringContaining('900000000') });
    // Decoding would have needed ~900 MB.
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
    // A plain download still works: the limit is about transforming.
    expect((await get(objectUrl('pics', 'bomb.png'))).statusCode).toBe(200);
  });

  it('an animation whose frames together pass the pixel limit → 422 (its first frame alone is fine)', async () => {
    // 300×300 × 12 frames = 1,080,000 pixels > 1,000,000.
    await put('pics', 'long.gif', await animatedGif(300, 12), 'image/gif');
    const animated = await get(objectUrl('pics', 'long.gif', 'width=50&format=webp'));
    expect(animated.statusCode, animated.body).toBe(422);
    expect(animated.json.error).toBe('IMAGE_TOO_LARGE');
    const still = await get(objectUrl('pics', 'long.gif', 'width=50&format=png'));
    expect(still.statusCode, still.body).toBe(200);
  });

  it('path tricks on a transformation are refused like on a download', async () => {
    for (const key of ['..%2Fprivate%2Falice%2Fphoto.png', 'a%2F..%2Ftwo-tone.png', '%2e%2e/x.png', 'x%0Awidth=10']) {
      const res = await get(objectUrl('pics', key, 'width=10'));
      expect([400, 404], `${key}: ${res.body}`).toContain(res.statusCode);
    }
  });
});

describe('who may read a variant: exactly who may read the object', () => {
  const photo = (query: string) => objectUrl('private', 'alice/photo.png', query);

  it('the owner gets it; another user, the anon key and no credential do not — even once it is cached', async () => {
    const owner = await get(photo('width=16'), bearer(alice));
    expect(owner.statusCode, owner.body).toBe(200);
    expect(owner.headers['cache-control']).toMatch(/^private, /);
    expect((await variantRows()).length).toBeGreaterThan(0);
    const other = await get(photo('width=16'), bearer(bob));
    expect(other.statusCode).toBe(404);
    expect(other.rawPayload.includes(owner.rawPayload)).toBe(false);
    expect((await get(photo('width=16'), bearer(t.anonKey))).statusCode).toBe(404);
    expect((await get(photo('width=16'))).statusCode).toBe(401);
    // Knowing the ETag does not help: a 304 is never given before the access check.
    const etag = String(owner.headers.etag);
    const probe = await get(photo('width=16'), { ...bearer(bob), 'if-none-match': etag });
    expect(probe.statusCode).toBe(404);
  });

  it('a public bucket’s variant needs no credential and may sit in shared caches', async () => {
    const res = await get(objectUrl('pics', 'two-tone.png', 'width=8'));
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    const pinned = await get(objectUrl('pics', 'two-tone.png', 'width=8&v=abc'));
    expect(pinned.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  describe('signed URLs', () => {
    const strategy = async (query: string) => {
      const res = await get(
        `/api/storage/buckets/private/download-strategy/objects/alice/photo.png?${query}`,
        bearer(alice),
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json.method).toBe('presigned');
      const url = new URL(res.json.url);
      return `${url.pathname}${url.search}`;
    };

    it('a signed URL may carry a transformation, which opens without a credential', async () => {
      const signed = await strategy('expiresIn=60&width=16&format=webp');
      expect(signed).toMatch(/\?width=16&format=webp&expires=\d+&token=/);
      const res = await get(signed);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('image/webp');
      expect((await metaOf(res.rawPayload)).width).toBe(16);
      expect(res.headers['cache-control']).toMatch(/^private, /);
    });

    it('changing, adding or removing a transformation parameter is refused', async () => {
      const signed = await strategy('expiresIn=60&width=16&format=webp');
      for (const tampered of [
        signed.replace('width=16', 'width=64'),
        signed.replace('width=16&', ''),
        signed.replace('format=webp', 'format=png'),
        `${signed}&height=500`,
        signed.replace('?width=16&format=webp&', '?'),
      ]) {
        const res = await get(tampered);
        expect(res.statusCode, tampered).toBe(401);
      }
    });

    it('a signed URL of the original cannot be turned into a transformation, nor the other way', async () => {
      const plain = await strategy('expiresIn=60');
      expect((await get(plain)).statusCode).toBe(200);
      expect((await get(`${plain}&width=16`)).statusCode).toBe(401);
      const thumb = await strategy('expiresIn=60&width=16');
      const asOriginal = thumb.replace('width=16&', '');
      expect((await get(asOriginal)).statusCode).toBe(401);
    });

    it('expires like any signed URL', async () => {
      const signed = await strategy('expiresIn=5&width=12');
      expect((await get(signed)).statusCode).toBe(200);
      t.clock.advance(6_000);
      expect((await get(signed)).statusCode).toBe(401);
    });

    it('a public bucket’s download strategy is the plain URL with the parameters', async () => {
      const res = await get('/api/storage/buckets/pics/download-strategy/objects/two-tone.png?width=10&resize=fill');
      expect(res.json).toMatchObject({ method: 'direct' });
      expect(res.json.url).toMatch(/\/objects\/two-tone\.png\?width=10&resize=fill$/);
    });
  });
});

describe('the variant cache', () => {
  it('the second request is a hit with the same ETag; If-None-Match answers 304', async () => {
    const url = objectUrl('pics', 'two-tone.png', 'width=24&quality=70&format=webp');
    const before = await counters();
    const first = await get(url);
    const second = await get(url);
    const after = await counters();
    expect(after.misses - before.misses).toBe(1);
    expect(after.hits - before.hits).toBe(1);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['content-length']).toBe(String(first.rawPayload.length));
    const notModified = await get(url, { 'if-none-match': String(first.headers.etag) });
    expect(notModified.statusCode).toBe(304);
  });

  it('replacing the object drops its variants (rows and bytes), and the next answer is of the new bytes', async () => {
    await put('pics', 'swap.png', await twoTonePng(40, 40), 'image/png');
    const url = objectUrl('pics', 'swap.png', 'width=20');
    const first = await get(url);
    await get(objectUrl('pics', 'swap.png', 'width=10'));
    const [found] = await t.deps.sql<{ blob_id: string }[]>`
      select blob_id from storage.objects where bucket = 'pics' and key = 'swap.png'`;
    const source = found!.blob_id;
    const variantsOf = () =>
      t.deps.sql<{ blob_id: string }[]>`select blob_id from storage.image_variants where source_blob_id = ${source}`;
    const cached = (await variantsOf()).map((r) => r.blob_id);
    expect(cached).toHaveLength(2);
    for (const id of cached) expect(await blobFiles()).toContain(id);

    await put('pics', 'swap.png', await twoTonePng(80, 20), 'image/png');
    expect(await variantsOf()).toEqual([]);
    for (const id of cached) expect(await blobFiles()).not.toContain(id);
    const second = await get(url);
    expect(second.headers.etag).not.toBe(first.headers.etag);
    expect([(await metaOf(second.rawPayload)).width, (await metaOf(second.rawPayload)).height]).toEqual([20, 5]);
  });

  it('deleting the object, or its bucket, removes its variants', async () => {
    await put('pics', 'gone.png', await twoTonePng(30, 30), 'image/png');
    await get(objectUrl('pics', 'gone.png', 'width=10'));
    const ids = async () =>
      (
        await t.deps.sql<{ blob_id: string }[]>`
          select v.blob_id from storage.image_variants v join storage.objects o on o.blob_id = v.source_blob_id
          where o.key = 'gone.png'`
      ).map((r) => r.blob_id);
    const cached = await ids();
    expect(cached).toHaveLength(1);
    const del = await t.request({ method: 'DELETE', url: objectUrl('pics', 'gone.png'), headers: admin() });
    expect(del.statusCode).toBe(200);
    expect(await t.deps.sql`select 1 from storage.image_variants where blob_id = ${cached[0]!}`).toHaveLength(0);
    expect(await blobFiles()).not.toContain(cached[0]);

    await t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: admin(),
      payload: { bucketName: 'doomed', isPublic: true },
    });
    await put('doomed', 'x.png', await twoTonePng(30, 30), 'image/png');
    await get(objectUrl('doomed', 'x.png', 'width=10'));
    const before = (await variantRows()).map((r) => r.blob_id);
    const dropped = await t.request({ method: 'DELETE', url: '/api/storage/buckets/doomed', headers: admin() });
    expect(dropped.statusCode, dropped.body).toBe(200);
    const after = (await variantRows()).map((r) => r.blob_id);
    const removed = before.filter((id) => !after.includes(id));
    expect(removed).toHaveLength(1);
    expect(await blobFiles()).not.toContain(removed[0]);
  });

  it('a variant whose bytes went (evicted by another server) is made again, not answered empty', async () => {
    const url = objectUrl('pics', 'two-tone.png', 'width=30&format=jpeg');
    const first = await get(url);
    const [stored] = await t.deps.sql<{ blob_id: string }[]>`
      select blob_id from storage.image_variants where params = 'w30.h.cover.q80.jpeg'`;
    await rm(path.join(storageDir, 'blobs', stored!.blob_id.slice(0, 2), stored!.blob_id));
    const again = await get(url);
    expect(again.statusCode).toBe(200);
    expect(again.rawPayload.length).toBe(first.rawPayload.length);
    const [remade] = await t.deps.sql<{ blob_id: string }[]>`
      select blob_id from storage.image_variants where params = 'w30.h.cover.q80.jpeg'`;
    expect(remade!.blob_id).not.toBe(stored!.blob_id);
    expect(await blobFiles()).toContain(remade!.blob_id);
  });

  it('a second server on the same database and store answers from the variants the first made', async () => {
    const url = objectUrl('pics', 'two-tone.png', 'width=26&format=webp');
    const first = await get(url);
    const other = await t.startAnotherServer();
    try {
      const res = await other.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(first.rawPayload)).toBe(true);
      const metrics = await other.app.inject({ method: 'GET', url: '/metrics', headers: admin() });
      expect(metrics.body).toMatch(/^plinth_storage_image_cache_hits_total 1$/m);
      expect(metrics.body).toMatch(/^plinth_storage_image_cache_misses_total 0$/m);
    } finally {
      await other.close();
    }
  });

  it('no request role can read the variant table', async () => {
    for (const role of ['anon', 'authenticated']) {
      const refused = await t.deps.sql
        .begin(async (tx) => {
          await tx.unsafe(`set local role ${role}`);
          await tx`select * from storage.image_variants`;
        })
        .then(
          () => null,
          (err: { code?: string }) => err.code,
        );
      expect(refused).toBe('42501');
    }
  });
});
