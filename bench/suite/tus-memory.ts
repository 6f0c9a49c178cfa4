// `npm run bench:tus [MiB]`: uploads one object of MiB (default 2048) through tus (tus-js-client,
// PATCHes of 64 MiB) to the compiled server (bench/lib/compiled-server.ts: `node dist/main.js` with
// `npm start`'s flags, default settings, in its own process, local disk storage, embedded PostgreSQL) and samples the server process's
// RSS every 100 ms from /proc. Reports the peak above the idle RSS (target: within 50 MB) and the
// throughput, and checks the object's size and MD5 (its ETag) against what was sent.
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import * as tus from 'tus-js-client';
import { startCompiledServer } from '../lib/compiled-server.js';
import { startBenchDatabase } from '../lib/environment.js';
import { rssBytes } from '../lib/peak-memory.js';

const MiB = 1024 * 1024;
const sizeMiB = Number(process.argv[2] ?? 2048);
const CHUNK_MIB = 64;
const TARGET_MB = 50;
const rssMb = (pid: number) => rssBytes(pid) / MiB;

async function main(): Promise<void> {
  const db = await startBenchDatabase();
  const admin = { email: 'admin@bench.local', password: randomBytes(12).toString('hex') };
  const server = await startCompiledServer({
    logFile: path.join(db.dir, 'server.log'),
    env: {
      DATABASE_URL: db.url,
      PLINTH_DATA_DIR: path.join(db.dir, 'data'),
      STORAGE_DIR: path.join(db.dir, 'storage'),
      STORAGE_MAX_FILE_SIZE_BYTES: String((sizeMiB + 1) * MiB),
      PLINTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
    },
  }).catch(async (err) => {
    await db.stop();
    throw err;
  });
  const base = server.url;
  const pid = server.pid;
  try {
    const session = await fetch(`${base}/api/auth/admin/sessions?client_type=server`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(admin),
    });
    const { accessToken } = (await session.json()) as { accessToken: string };
    const auth = { authorization: `Bearer ${accessToken}` };
    const bucket = await fetch(`${base}/api/storage/buckets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ bucketName: 'bench', isPublic: false }),
    });
    if (bucket.status !== 201 && bucket.status !== 200) throw new Error(`bucket: ${bucket.status}`);
    // Idle: a few seconds after start-up work (migrations, key loading, the first sweep) settled.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const idle = rssMb(pid);

    const block = randomBytes(MiB);
    const md5 = createHash('md5');
    for (let i = 0; i < sizeMiB; i++) md5.update(block);
    const expectedMd5 = md5.digest('hex');
    const source = Readable.from(
      (function* () {
        for (let i = 0; i < sizeMiB; i++) yield block;
      })(),
    );
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(pid));
    }, 100);
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const upload = new tus.Upload(source, {
        endpoint: `${base}/api/storage/uploads/resumable`,
        headers: auth,
        chunkSize: CHUNK_MIB * MiB,
        uploadSize: sizeMiB * MiB,
        metadata: { bucketName: 'bench', objectName: 'big.bin', contentType: 'application/octet-stream' },
        retryDelays: null,
        onError: reject,
        onSuccess: () => resolve(),
      });
      upload.start();
    });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssMb(pid));

    const listed = await fetch(`${base}/api/storage/buckets/bench/objects`, { headers: auth });
    const { data } = (await listed.json()) as { data: { key: string; size: number }[] };
    const size = data.find((o) => o.key === 'big.bin')?.size;
    const head = await fetch(`${base}/api/storage/buckets/bench/objects/big.bin`, { method: 'HEAD', headers: auth });
    const etag = head.headers.get('etag')?.replace(/"/g, '');
    if (size !== sizeMiB * MiB || etag !== expectedMd5)
      throw new Error(`the object has ${size} bytes and ETag ${etag}; expected ${sizeMiB * MiB} and ${expectedMd5}`);
    const growth = peak - idle;
    console.log(`tus upload of ${sizeMiB} MiB in PATCHes of ${CHUNK_MIB} MiB to the compiled server (own process)`);
    console.log(`time ${seconds.toFixed(1)} s, ${(sizeMiB / seconds).toFixed(0)} MiB/s; size and MD5 checked`);
    console.log(`server RSS idle ${idle.toFixed(1)} MB, peak ${peak.toFixed(1)} MB, growth ${growth.toFixed(1)} MB`);
    console.log(
      growth <= TARGET_MB ? `target met: within ${TARGET_MB} MB of idle` : `TARGET MISSED: over ${TARGET_MB} MB`,
    );
  } finally {
    await server.stop();
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
