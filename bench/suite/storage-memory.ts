// `tsx bench/suite/storage-memory.ts [MiB]`: uploads one object of MiB (default 1024) through the REST
// API as a raw streamed body, downloads it back, and reports the server process's RSS growth over
// the idle baseline (the target: under 64 MB whatever the size) and the throughput of each way.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buildApp } from '../../src/app.js';
import { loadPlatformKeys } from '../../src/modules/secrets/index.js';
import { loadConfig } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';
import { freePort } from '../../test/harness/free-port.js';
import { peakGrowth } from '../lib/peak-memory.js';
import { startBenchDatabase } from '../lib/environment.js';

const MiB = 1024 * 1024;
const sizeMiB = Number(process.argv[2] ?? 1024);
const CHUNK = randomBytes(MiB);

function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: Readable,
): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) body.pipe(req);
    else req.end();
  });
}

async function main() {
  const db = await startBenchDatabase();
  const port = await freePort();
  const config = loadConfig({
    DATABASE_URL: db.url,
    PLINTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ADMIN_EMAIL: 'admin@bench.local',
    ADMIN_PASSWORD: randomBytes(12).toString('hex'),
    LOG_LEVEL: 'silent',
    STORAGE_DIR: path.join(db.dir, 'storage'),
    STORAGE_MAX_FILE_SIZE_BYTES: String((sizeMiB + 1) * MiB),
  });
  const deps = await createDeps(config);
  const keys = await loadPlatformKeys(deps);
  const app = await buildApp(deps, { logger: false, keys });
  await app.listen({ port, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${port}/api/storage/buckets`;
  const auth = { 'x-api-key': keys.apiKey };
  try {
    await send(
      base,
      'POST',
      { ...auth, 'content-type': 'application/json' },
      Readable.from([JSON.stringify({ bucketName: 'bench' })]),
    );
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    const body = Readable.from(
      (function* () {
        for (let i = 0; i < sizeMiB; i++) yield CHUNK;
      })(),
    );
    const up = await peakGrowth(baseline, () =>
      send(
        `${base}/bench/objects/big.bin`,
        'PUT',
        { ...auth, 'content-type': 'application/octet-stream', 'content-length': String(sizeMiB * MiB) },
        body,
      ),
    );
    if (up.result.status !== 200) throw new Error(`upload answered ${up.result.status}`);
    const down = await peakGrowth(baseline, () => send(`${base}/bench/objects/big.bin`, 'GET', auth));
    if (down.result.status !== 200 || down.result.bytes !== sizeMiB * MiB)
      throw new Error(`download answered ${down.result.status}, ${down.result.bytes} bytes`);
    const mb = (n: number) => (n / 1e6).toFixed(1);
    console.log(`object ${sizeMiB} MiB (client and server in one process; RSS above the idle baseline)`);
    console.log(
      `upload:   ${up.seconds.toFixed(1)} s, ${(sizeMiB / up.seconds).toFixed(0)} MiB/s, peak RSS growth ${mb(up.peak)} MB`,
    );
    console.log(
      `download: ${down.seconds.toFixed(1)} s, ${(sizeMiB / down.seconds).toFixed(0)} MiB/s, peak RSS growth ${mb(down.peak)} MB`,
    );
    console.log(Math.max(up.peak, down.peak) < 64e6 ? 'target met: under 64 MB' : 'TARGET MISSED: 64 MB or more');
  } finally {
    await app.close();
    await deps.close();
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
