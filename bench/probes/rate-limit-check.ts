// Question: what does reading the admin's rate-limit settings inside the counting statement cost per check, against
//   the same upsert with constants?
// Last answer: not recorded (added 2026-11-25 with the rate-limit settings, commit 3cfaca8; no figure in its message
//   or the README).
//
// What reading the admin's rate-limit settings costs per check: the counting statement with the
// settings read inside it (src/core/rate-limiter.ts) against the same upsert with constants (the
// statement before settings existed), sequential and 32 at a time, on a scratch database.
// Run: BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/probes/rate-limit-check.ts
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { systemClock } from '../../src/core/clock.js';
import { createPool } from '../../src/core/db.js';
import { migrate, readMigrationFiles } from '../../src/core/migrator.js';
import { createRateLimiter, type Limit } from '../../src/core/rate-limiter.js';

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const N = 4000;
const limit: Limit = { name: 'bench:ip', max: 1_000_000_000, windowSeconds: 900, message: 'x' };

async function main() {
  const name = `plinth_bench_rl_${randomBytes(4).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const sql = createPool(url.toString(), { max: 8 });
  try {
    await migrate(sql, await readMigrationFiles());
    const limiter = createRateLimiter(sql, systemClock);
    const constant = async (subject: string) => {
      const now = new Date();
      await sql`
        insert into system.rate_limits as r (key, window_started_at, hits) values (${`bench-const:${subject}`}, ${now}, 1)
        on conflict (key) do update set
          hits = case when r.window_started_at <= ${now}::timestamptz - make_interval(secs => ${900}) then 1 else r.hits + 1 end,
          window_started_at = case when r.window_started_at <= ${now}::timestamptz - make_interval(secs => ${900}) then ${now} else r.window_started_at end
        returning hits, window_started_at`;
    };
    const withSettings = (subject: string) => limiter.hit(limit, subject);
    const variants = { 'constants (before)': constant, 'settings read in the statement (now)': withSettings };
    // Alternated three times: the machine's noise falls on both alike.
    for (const [label, run] of [1, 2, 3].flatMap(() => Object.entries(variants))) {
      for (let i = 0; i < 200; i++) await run(`warm-${i % 50}`);
      let t0 = performance.now();
      for (let i = 0; i < N; i++) await run(`seq-${i % 100}`);
      const seqMs = (performance.now() - t0) / N;
      t0 = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < N) await run(`par-${next++ % 100}`);
        }),
      );
      const perSecond = N / ((performance.now() - t0) / 1000);
      console.log(
        `${label}: ${seqMs.toFixed(3)} ms per check sequential, ${Math.round(perSecond)} checks/s at 32 concurrent`,
      );
    }
  } finally {
    await sql.end();
    await admin.unsafe(`drop database ${name}`);
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
