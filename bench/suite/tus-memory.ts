// `npm run bench:tus [MiB]`: uploads one object of MiB (default 2048) through tus (tus-js-client,
// PATCHes of 64 MiB) to the compiled server (`node dist/main.js`, started as `npm start` starts it,
// in its own process, local disk storage, embedded PostgreSQL) and samples the server process's
// RSS every 100 ms from /proc. Reports the peak above the idle RSS (target: within 50 MB) and the
// throughput, and checks the object's size and MD5 (its ETag) against what was sent.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as tus from 'tus-js-client';
import { freePort } from '../../test/harness/free-port.js';
import { startBenchDatabase } from '../lib/environment.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MiB = 1024 * 1024;
const sizeMiB = Number(process.argv[2] ?? 2048);
const CHUNK_MIB = 64;
const TARGET_MB = 50;
const START_FLAGS = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start as string)
  .split(' ')
  .filter((word) => word.startsWith('--'));

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
}

async function waitReady(base: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error('the server exited before it was ready');
    try {
      const res = await fetch(`${base}/api/health/ready`);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the server was not ready within 120 s');
}

async function main(): Promise<void> {
  const db = await startBenchDatabase();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const admin = { email: 'admin@bench.local', password: randomBytes(12).toString('hex') };
  const child = spawn(process.execPath, [...START_FLAGS, 'dist/main.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      PLINTH_DATA_DIR: path.join(db.dir, 'data'),
      STORAGE_DIR: path.join(db.dir, 'storage'),
      STORAGE_MAX_FILE_SIZE_BYTES: String((sizeMiB + 1) * MiB),
      PORT: String(port),
      HOST: '127.0.0.1',
      FUNCTIONS_RUNTIME_PORT: String(await freePort()),
      PLINTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await waitReady(base, child);
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
    const idle = rssMb(child.pid!);

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
      peak = Math.max(peak, rssMb(child.pid!));
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
    peak = Math.max(peak, rssMb(child.pid!));

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
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
