// Image transformations under their limits, on a server configured tight: one transformation at a
// time and no waiting room (a full queue answers 503 with Retry-After; identical requests share
// one run), a source-bytes cap, and a variant cache of 12 kB that evicts the least recently used.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkQueue } from '../../../src/modules/storage/image-queue.js';
import { noiseJpeg } from '../../harness/images.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const admin = () => ({ 'x-api-key': t.apiKey });
const objectUrl = (key: string, query: string) => `/api/storage/buckets/pics/objects/${key}?${query}`;
const get = (url: string) => t.request({ method: 'GET', url });

async function put(key: string, body: Buffer) {
  const res = await t.request({
    method: 'PUT',
    url: `/api/storage/buckets/pics/objects/${key}`,
    headers: { ...admin(), 'content-type': 'image/jpeg' },
    payload: body,
  });
  expect(res.statusCode, res.body).toBe(200);
}

beforeAll(async () => {
  t = await startTestApp({
    env: {
      STORAGE_DIR: await mkdtemp(path.join(tmpdir(), 'plinth-images-limits-')),
      STORAGE_IMAGE_CONCURRENCY: '1',
      STORAGE_IMAGE_QUEUE: '0',
      STORAGE_IMAGE_MAX_SOURCE_BYTES: '500000',
      STORAGE_IMAGE_CACHE_MAX_BYTES: '12000',
    },
  });
  await t.request({
    method: 'POST',
    url: '/api/storage/buckets',
    headers: admin(),
    payload: { bucketName: 'pics', isPublic: true },
  });
  await put('small.jpg', await noiseJpeg(200, 200));
  await put('busy.jpg', await noiseJpeg(800, 800));
  await put('heavy.jpg', await noiseJpeg(1000, 1000));
});
afterAll(() => t.close());

describe('the queue', () => {
  it('past its concurrency and waiting room, answers 503 with Retry-After; the rest succeed', async () => {
    // Distinct AVIF encodings of an 800×800 photo (~1 s each): one runs, none may wait.
    const answers = await Promise.all(
      [60, 61, 62, 63].map((quality) => get(objectUrl('busy.jpg', `format=avif&quality=${quality}`))),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses).toContain(200);
    expect(statuses).toContain(503);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    const refused = answers.find((a) => a.statusCode === 503)!;
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json).toMatchObject({ error: 'SERVICE_UNAVAILABLE', nextActions: expect.any(String) });
    const metrics = await t.request({ method: 'GET', url: '/metrics', headers: admin() });
    expect(metrics.body).toMatch(/^plinth_storage_image_transforms_refused_total [1-9]/m);
  });

  it('identical requests at once share one transformation instead of being refused', async () => {
    const answers = await Promise.all([1, 2, 3].map(() => get(objectUrl('busy.jpg', 'format=avif&quality=70'))));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    expect(answers[1]!.rawPayload.equals(answers[0]!.rawPayload)).toBe(true);
  });

  it('hands its slot to the next waiter in order, and refuses only past the waiting room', async () => {
    const queue = createWorkQueue(1, 1);
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = queue.run(
      () =>
        new Promise<void>((resolve) => {
          order.push('first');
          releaseFirst = resolve;
        }),
    );
    const second = queue.run(async () => {
      order.push('second');
    });
    await expect(queue.run(async () => {})).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(queue.stats()).toEqual({ running: 1, waiting: 1, refused: 1 });
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
    expect(queue.stats()).toEqual({ running: 0, waiting: 0, refused: 1 });
  });
});

describe('source bytes', () => {
  it('a source over STORAGE_IMAGE_MAX_SOURCE_BYTES is refused with 422 before it is read', async () => {
    const res = await get(objectUrl('heavy.jpg', 'width=100'));
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json).toMatchObject({ error: 'IMAGE_TOO_LARGE', nextActions: expect.stringContaining('BYTES') });
  });
});

describe('the cache’s size bound', () => {
  const rows = () =>
    t.deps.sql<{ params: string; size: string }[]>`
      select v.params, v.size from storage.image_variants v join storage.objects o on o.blob_id = v.source_blob_id
      where o.key = 'small.jpg' order by v.params`;
  const has = async (width: number) => (await rows()).some((r) => r.params.startsWith(`w${width}.`));

  it('evicts the least recently used variant first, and stays under its bound', async () => {
    const variant = (width: number) => get(objectUrl('small.jpg', `width=${width}&format=jpeg&quality=90`));
    expect((await variant(100)).statusCode).toBe(200);
    expect((await variant(101)).statusCode).toBe(200);
    expect(await has(100)).toBe(true);
    expect(await has(101)).toBe(true);
    // Both were last used minutes ago, 100 before 101; a minute on (a hit marks a variant used at
    // most once a minute), 100 is read again.
    await t.deps.sql`update storage.image_variants set last_used_at = now() - interval '10 minutes'
      where params like 'w100.%'`;
    await t.deps.sql`update storage.image_variants set last_used_at = now() - interval '9 minutes'
      where params like 'w101.%'`;
    t.clock.advance(61_000);
    expect((await variant(100)).statusCode).toBe(200);
    const [touched] = await t.deps.sql<{ recent: boolean }[]>`
      select last_used_at > now() - interval '1 minute' as recent from storage.image_variants where params like 'w100.%'`;
    expect(touched?.recent).toBe(true);

    // A third ~5 kB variant passes the 12 kB bound: 101, least recently used, goes.
    expect((await variant(102)).statusCode).toBe(200);
    expect(await has(102)).toBe(true);
    expect(await has(100)).toBe(true);
    expect(await has(101)).toBe(false);
    const total = (
      await t.deps.sql<{ bytes: string }[]>`select coalesce(sum(size), 0) as bytes from storage.image_variants`
    )[0]!.bytes;
    expect(Number(total)).toBeLessThanOrEqual(12_000);
    const metrics = await t.request({ method: 'GET', url: '/metrics', headers: admin() });
    expect(metrics.body).toMatch(/^plinth_storage_image_cache_evictions_total [1-9]/m);
  });
});
