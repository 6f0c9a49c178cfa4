// Question: does setting `statement_timeout` in the scope statement cost a records read anything?
// Last answer: 2026-11-25 (commit 3ee6812): no measurable cost, 93–131% with against without, on a loaded machine.
//
// `npx tsx bench/probes/scope-statement.ts`: what setting statement_timeout in the scope statement costs.
// Plinth's one-round-trip envelope (runScoped) reads one row by primary key under row-level
// security, with the scope statement with and without `set_config('statement_timeout', …)`, in
// alternating rounds on one embedded PostgreSQL, and prints the rates and their ratio.
// SCOPE_BENCH_ROUNDS (default 6 per variant), SCOPE_BENCH_SECONDS (default 3 per round).
import postgres from 'postgres';
import { createPool, runScoped, type RequestScope } from '../../src/core/db.js';
import { startBenchDatabase } from '../lib/environment.js';
import { median } from '../lib/median.js';

const CONCURRENCY = 32;
const ROWS = 10_000;
const OWNER = '00000000-0000-4000-8000-000000000001';

async function prepare(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`
      create role authenticated nologin;
      create table public.items (id bigint primary key, owner uuid not null, title text not null);
      alter table public.items enable row level security;
      create policy own on public.items for select to authenticated
        using (owner = (current_setting('request.jwt.claims', true)::json->>'sub')::uuid);
      grant select on public.items to authenticated;
      insert into public.items select i, '${OWNER}', 'item ' || i from generate_series(1, ${ROWS}) i;
    `);
    await sql.unsafe('vacuum analyze public.items');
  } finally {
    await sql.end();
  }
}

/** Requests per second of `CONCURRENCY` loops of the scoped read for `seconds`. */
async function round(sql: postgres.Sql, scope: RequestScope, seconds: number): Promise<number> {
  const text = `select coalesce(json_agg(_r), '[]'::json)::text as body from (select t0.* from public.items t0 where t0.id = $1::text::bigint) _r`;
  const until = Date.now() + seconds * 1000;
  let done = 0;
  const loop = async () => {
    while (Date.now() < until) {
      const rows = await runScoped(sql, scope, text, [String(1 + Math.floor(Math.random() * ROWS))]);
      if (!String(rows[0]?.body).startsWith('[{')) throw new Error(`unexpected answer: ${String(rows[0]?.body)}`);
      done++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  return done / seconds;
}

async function main(): Promise<void> {
  const rounds = Number(process.env.SCOPE_BENCH_ROUNDS ?? 6);
  const seconds = Number(process.env.SCOPE_BENCH_SECONDS ?? 3);
  const db = await startBenchDatabase();
  try {
    await prepare(db.url);
    const sql = createPool(db.url, { max: 8 });
    try {
      const claims = { sub: OWNER, email: 'bench@bench.local', role: 'authenticated', sid: 'bench' };
      const without: RequestScope = { role: 'authenticated', claims };
      const withTimeout: RequestScope = { ...without, statementTimeoutMs: 8000 };
      await round(sql, without, 1); // warm-up: prepared statements on every connection
      await round(sql, withTimeout, 1);
      const rates: Record<'without' | 'with', number[]> = { without: [], with: [] };
      for (let i = 0; i < rounds; i++) {
        // Alternating (and swapping the order each round) spreads the machine's drift over both.
        const order = i % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
        for (const variant of order)
          rates[variant].push(await round(sql, variant === 'with' ? withTimeout : without, seconds));
      }
      const a = median(rates.without);
      const b = median(rates.with);
      console.log(
        `scope statement without statement_timeout: ${a.toFixed(0)} req/s (rounds: ${rates.without.map((r) => r.toFixed(0)).join(', ')})`,
      );
      console.log(
        `scope statement with statement_timeout:    ${b.toFixed(0)} req/s (rounds: ${rates.with.map((r) => r.toFixed(0)).join(', ')})`,
      );
      // Each round's pair ran back to back: the median of their ratios cancels most of the drift.
      const paired = median(rates.with.map((r, i) => r / rates.without[i]!));
      console.log(
        `ratio with/without: ${((b / a) * 100).toFixed(1)}% (medians), ${(paired * 100).toFixed(1)}% (median of paired rounds)`,
      );
    } finally {
      await sql.end();
    }
  } finally {
    await db.stop();
  }
}

await main();
