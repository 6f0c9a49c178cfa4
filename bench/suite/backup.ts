// `tsx --expose-gc bench/suite/backup.ts [MiB]`: fills a table (rows of ~1 KB of random hex text, jsonb, timestamps) until
// the user data reaches MiB (default 1024) on an embedded PostgreSQL, then takes a backup and
// restores it through the API, reporting each one's throughput (database MB per second) and the
// server process's peak RSS growth over the idle baseline (the dump streams; it must stay flat).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';
import { loadPlatformKeys } from '../../src/modules/secrets/index.js';
import { startBenchDatabase } from '../lib/environment.js';
import { peakGrowth } from '../lib/peak-memory.js';

const MiB = 1024 * 1024;
const targetMiB = Number(process.argv[2] ?? 1024);

async function main() {
  const db = await startBenchDatabase();
  const config = loadConfig({
    DATABASE_URL: db.url,
    PLINTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ADMIN_EMAIL: 'admin@bench.local',
    ADMIN_PASSWORD: randomBytes(12).toString('hex'),
    LOG_LEVEL: 'silent',
    STORAGE_DIR: path.join(db.dir, 'storage'),
    BACKUPS_POLL_MS: '0',
  });
  const deps = await createDeps(config);
  const keys = await loadPlatformKeys(deps);
  const app = await buildApp(deps, { logger: false, keys });
  const admin = (method: 'GET' | 'POST', url: string) =>
    app.inject({ method, url, headers: { 'x-api-key': keys.apiKey } }).then((r) => r.json());
  try {
    await deps.sql`create table public.bench_rows (id bigint primary key, title text, body text, meta jsonb, at timestamptz)`;
    const size = async () =>
      Number((await deps.sql`select pg_total_relation_size('public.bench_rows') as s`)[0]?.s ?? 0);
    for (let next = 1; (await size()) < targetMiB * MiB; next += 100_000) {
      await deps.sql`
        insert into public.bench_rows
        select i, 'title ' || i,
               array_to_string(array(select md5(random()::text || i || g) from generate_series(1, 24) g), ''),
               jsonb_build_object('n', i, 'tag', md5(i::text)), now()
          from generate_series(${next}::bigint, ${next + 99_999}::bigint) i`;
    }
    const bytes = await size();
    const rows = Number((await deps.sql`select count(*) as n from public.bench_rows`)[0]?.n);
    global.gc?.();
    const baseline = process.memoryUsage().rss;

    const backup = await peakGrowth(baseline, async () => {
      const created = await admin('POST', '/api/database/backups');
      for (;;) {
        const { backups } = await admin('GET', '/api/database/backups');
        const row = backups.find((b: { id: string }) => b.id === created.id);
        if (row.status !== 'running') return row;
        await sleep(100);
      }
    });
    if (backup.result.status !== 'completed')
      throw new Error(`backup ${backup.result.status}: ${backup.result.errorMessage}`);
    const restore = await peakGrowth(baseline, () =>
      admin('POST', `/api/database/backups/${backup.result.id}/restore`),
    );
    if (restore.result.message !== 'Database restored successfully') throw new Error(JSON.stringify(restore.result));
    const restoredRows = Number((await deps.sql`select count(*) as n from public.bench_rows`)[0]?.n);
    if (restoredRows !== rows) throw new Error(`restored ${restoredRows} rows of ${rows}`);

    const mb = (n: number) => (n / 1e6).toFixed(1);
    console.log(`table ${mb(bytes)} MB (with indexes), ${rows} rows; archive ${mb(backup.result.sizeBytes)} MB (gzip)`);
    console.log(
      `backup:  ${backup.seconds.toFixed(1)} s, ${mb(bytes / backup.seconds)} MB/s, peak RSS growth ${mb(backup.peak)} MB`,
    );
    console.log(
      `restore: ${restore.seconds.toFixed(1)} s, ${mb(bytes / restore.seconds)} MB/s, peak RSS growth ${mb(restore.peak)} MB`,
    );
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
