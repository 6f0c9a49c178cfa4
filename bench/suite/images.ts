// `npm run bench:images` (tsx bench/suite/images.ts): image transformations (issue 37) on a
// 12-megapixel JPEG (4000×3000) in a public bucket, through HTTP on loopback:
//   cold:   thumbnails/s of distinct 256-px WebP variants (each a real transformation), sent by
//           BENCH_IMAGE_CLIENTS concurrent clients (default 4) against the default queue
//           (STORAGE_IMAGE_CONCURRENCY=2), BENCH_IMAGE_COLD variants in all (default 48);
//   cached: one 256-px WebP variant read again and again (autocannon, a child process, 32
//           connections, BENCH_SECONDS each, default 10): requests/s and p50/p99;
//   plain:  the same load on a plain download of an object of the variant's exact size — the
//           target: the cached variant's latency within 10% of it (p50 ratio ≤ 1.10), judged on
//           the median of BENCH_IMAGE_ROUNDS (default 5) paired rounds, the order flipped each round.
// Plinth is the compiled server in its own process (bench/lib/plinth.ts: `npm start`'s command,
// default settings, request logging on). The cold clients run in this process (their cost is a
// fetch per ~100 ms of transformation).
import { cpus } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { startBenchDatabase } from '../lib/environment.js';
import { failuresOf, type LoadResult, startLoadGenerator } from '../lib/load.js';
import { median } from '../lib/median.js';
import { startPlinth } from '../lib/plinth.js';
import { settleDatabase } from '../lib/settle.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CLIENTS = Number(process.env.BENCH_IMAGE_CLIENTS ?? 4);
const COLD = Number(process.env.BENCH_IMAGE_COLD ?? 48);
const CONNECTIONS = 32;
const ROUNDS = Number(process.env.BENCH_IMAGE_ROUNDS ?? 5);

/** A 4000×3000 JPEG with a photo's structure: smooth gradients, edges and grain. */
async function photo(): Promise<Buffer> {
  const width = 4000;
  const height = 3000;
  const gradient = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
      <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
        <stop offset="0" stop-color="#1b4f72"/><stop offset="0.5" stop-color="#f5cba7"/><stop offset="1" stop-color="#145a32"/>
      </linearGradient></defs>
      <rect width="100%" height="100%" fill="url(#g)"/>
      ${Array.from({ length: 40 }, (_, i) => `<circle cx="${(i * 997) % width}" cy="${(i * 613) % height}" r="${60 + ((i * 37) % 200)}" fill="#${((i * 0x2f3b5d) & 0xffffff).toString(16).padStart(6, '0')}" fill-opacity="0.6"/>`).join('')}
    </svg>`,
  );
  const grain = await sharp({
    create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 12 } },
  })
    .raw()
    .toBuffer();
  return sharp(gradient)
    .composite([{ input: grain, raw: { width, height, channels: 3 }, blend: 'overlay' }])
    .jpeg({ quality: 85 })
    .toBuffer();
}

async function load(url: string, seconds: number): Promise<LoadResult> {
  const generator = await startLoadGenerator();
  const target = new URL(url);
  return generator.run({
    url: target.origin,
    method: 'GET',
    path: `${target.pathname}${target.search}`,
    expectStatus: 200,
    connections: CONNECTIONS,
    seconds,
  });
}

async function main() {
  const db = await startBenchDatabase();
  const plinth = await startPlinth(db.url, { STORAGE_DIR: path.join(db.dir, 'storage') });
  const headers = { 'x-api-key': plinth.apiKey };
  const objects = `${plinth.url}/api/storage/buckets/bench/objects`;
  try {
    const created = await fetch(`${plinth.url}/api/storage/buckets`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ bucketName: 'bench', isPublic: true }),
    });
    if (created.status !== 201) throw new Error(`bucket: ${created.status} ${await created.text()}`);
    const source = await photo();
    const put = await fetch(`${objects}/photo.jpg`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'image/jpeg' },
      body: new Uint8Array(source),
    });
    if (put.status !== 200) throw new Error(`upload: ${put.status} ${await put.text()}`);
    console.log(
      `source: 4000×3000 JPEG, ${(source.length / 1e6).toFixed(1)} MB; ${cpus().length} cores; Plinth: the compiled server in its own process`,
    );

    // Cold: each request a variant never made before (another quality), so each is transformed.
    const qualities = Array.from({ length: COLD }, (_, i) => 30 + i);
    let next = 0;
    let failed = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < qualities.length) {
          const quality = qualities[next++]!;
          const res = await fetch(`${objects}/photo.jpg?width=256&format=webp&quality=${quality}`);
          await res.arrayBuffer();
          if (res.status !== 200) failed++;
        }
      }),
    );
    const coldSeconds = (performance.now() - started) / 1000;
    console.log(
      `cold:   ${(COLD / coldSeconds).toFixed(1)} thumbnails/s (${COLD} distinct 256-px WebP variants, ${CLIENTS} clients, ${(
        (coldSeconds * 1000) / COLD
      ).toFixed(0)} ms each on average, ${failed} failed)`,
    );

    // The variant the cached runs read, and a plain object of exactly its size.
    const variantUrl = `${objects}/photo.jpg?width=256&format=webp&quality=80`;
    const variant = Buffer.from(await (await fetch(variantUrl)).arrayBuffer());
    const plainPut = await fetch(`${objects}/same-size.bin`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'image/webp' },
      body: new Uint8Array(variant),
    });
    if (plainPut.status !== 200) throw new Error(`plain upload: ${plainPut.status}`);
    const plainUrl = `${objects}/same-size.bin`;
    console.log(`variant: ${variant.length} bytes (${(await sharp(variant).metadata()).width} px wide)`);

    await settleDatabase(db.url);
    // Warm-up each, then rounds of one run each, the order flipped every round, so neither side
    // gets the quieter half of a noisy machine; the verdict is the median of the paired ratios.
    await load(variantUrl, 2);
    await load(plainUrl, 2);
    const rounds: { cached: LoadResult; plain: LoadResult }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2 === 0) {
        const cached = await load(variantUrl, SECONDS);
        rounds.push({ cached, plain: await load(plainUrl, SECONDS) });
      } else {
        const plain = await load(plainUrl, SECONDS);
        rounds.push({ plain, cached: await load(variantUrl, SECONDS) });
      }
    }
    const show = (r: LoadResult) =>
      `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${failuresOf(r)} failures`;
    rounds.forEach((r, i) => {
      console.log(`round ${i + 1}: cached ${show(r.cached)} | plain ${show(r.plain)}`);
    });
    const p50Ratio = median(rounds.map((r) => r.cached.p50 / r.plain.p50));
    const rpsRatio = median(rounds.map((r) => r.cached.rps / r.plain.rps));
    console.log(
      `cached/plain (median of ${ROUNDS} paired rounds of ${SECONDS} s, ${CONNECTIONS} connections): ` +
        `p50 ×${p50Ratio.toFixed(2)}, throughput ${(rpsRatio * 100).toFixed(0)}%`,
    );
    console.log(p50Ratio <= 1.1 ? 'target met: within 10% of a plain download' : 'TARGET MISSED: more than 10% slower');
  } finally {
    await plinth.close();
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
