// Question: what does PostgreSQL spend per refresh-token rotation, the statement alone, next to any write and any
//   statement?
// Last answer: 2026-11-27 13:55: rotation with the user for the reply 540 µs of PostgreSQL CPU, rotation alone 445,
//   with `synchronous_commit = off` 391 (not taken), one UPDATE and its commit 233, `select 1` 43: PostgreSQL alone
//   caps refresh near 4,000/s on two cores.
//
// `npx tsx bench/probes/rotation-cost.ts`: PostgreSQL's CPU per refresh-token rotation, the statement
// alone (no HTTP, no signing), next to what any write and any statement cost on the same server:
// - rotation: Plinth's statement (auth.rotate_refresh_token with the user for the reply),
// - rotation-only: the function without the user lookup,
// - rotation-async-commit: the same with synchronous_commit off for its transaction (not used by
//   Plinth: a crash could forget a rotation whose successor a client already holds),
// - one-row-update: one UPDATE of the session row and its commit,
// - select-1: a round trip that writes nothing.
// 16 connections, ROTATION_COUNT (10,000) fresh sessions per variant and round, ROTATION_ROUNDS (3)
// interleaved rounds; CPU of every PostgreSQL process from /proc (Linux), median per variant.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { postgresCpuSeconds } from '../lib/cpu.js';
import { startBenchDatabase } from '../lib/environment.js';
import { createRefreshTokens, registerUser } from '../lib/fixtures.js';
import { startPlinth } from '../lib/plinth.js';

const COUNT = Number(process.env.ROTATION_COUNT ?? 10_000);
const ROUNDS = Number(process.env.ROTATION_ROUNDS ?? 3);
const CONNECTIONS = 16;
const TTL_SECONDS = 604_800;

const db = await startBenchDatabase();
const sql = postgres(db.url, { max: CONNECTIONS, onnotice: () => {} });
try {
  const plinth = await startPlinth(db.url);
  const user = await registerUser(plinth.url, 'rotation@bench.local', 'bench-password-9');
  await plinth.close();
  await sql.unsafe(`
    create function bench_rotate_async(p_hash bytea, p_successor bytea) returns setof text language plpgsql as $$
    begin
      perform set_config('synchronous_commit', 'off', true);
      return query select r.outcome from auth.rotate_refresh_token(p_hash, p_successor, now(), interval '10 s', interval '7 days', false) r;
    end $$`);
  const hash = (token: string) => createHash('sha256').update(token).digest();
  const rotate = (token: string) => [hash(token), hash(`${token}.next`)] as const;
  const variants: Record<string, (token: string) => Promise<unknown>> = {
    rotation: (t) => {
      const [h, s] = rotate(t);
      return sql`select r.outcome, (select to_jsonb(u) from auth.user_records u where u.id = r.user_id) as "user"
        from auth.rotate_refresh_token(${h}, ${s}, now(), interval '10 s', interval '7 days', false) r`;
    },
    'rotation-only': (t) => {
      const [h, s] = rotate(t);
      return sql`select r.outcome from auth.rotate_refresh_token(${h}, ${s}, now(), interval '10 s', interval '7 days', false) r`;
    },
    'rotation-async-commit': (t) => {
      const [h, s] = rotate(t);
      return sql`select bench_rotate_async(${h}, ${s})`;
    },
    'one-row-update': (t) =>
      sql`update auth.sessions set refreshed_at = now() where id = (select session_id from auth.refresh_tokens where token_hash = ${hash(t)})`,
    'select-1': () => sql`select 1`,
  };
  const results = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(variants)) {
      const file = path.join(db.dir, `rotation-${name}-${round}.txt`);
      await createRefreshTokens(db.url, [user.id], COUNT, TTL_SECONDS, file);
      const tokens = (await readFile(file, 'utf8')).split('\n');
      const before = await postgresCpuSeconds(db.pgDataDir);
      let next = 0;
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (next < tokens.length) await run(tokens[next++]!);
        }),
      );
      const us = (((await postgresCpuSeconds(db.pgDataDir)) - before) * 1e6) / tokens.length;
      results.set(name, [...(results.get(name) ?? []), us]);
      console.log(`round ${round + 1} ${name.padEnd(22)} ${us.toFixed(0)} µs of PostgreSQL CPU per statement`);
    }
  }
  console.log('\nmedian µs of PostgreSQL CPU per statement [range]:');
  for (const [name, values] of results) {
    const sorted = [...values].sort((a, b) => a - b);
    const median = sorted[sorted.length >> 1]!;
    console.log(`  ${name.padEnd(22)} ${median.toFixed(0)} [${sorted[0]!.toFixed(0)}–${sorted.at(-1)!.toFixed(0)}]`);
  }
} finally {
  await sql.end();
  await db.stop();
}
