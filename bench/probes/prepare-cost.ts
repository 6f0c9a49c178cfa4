// Question: what does DATABASE_POOLER=transaction (postgres.js `prepare: false`: every query parsed
//   and planned again, unnamed) cost against named prepared statements, and what does PgBouncer add?
// `npx tsx bench/probes/prepare-cost.ts [postgres://…/db]` (default: the PostgreSQL at 127.0.0.1:5432):
// the records read's statement shape (a parameterised select in BEGIN + set_config + COMMIT, pipelined
// on one reserved connection, as core/db.ts runs it), 16 at a time, three variants in alternating
// rounds: direct with prepared statements, direct without, through PgBouncer (transaction mode)
// without. Prints the median rate and this process's CPU per envelope.
import postgres from 'postgres';
import { startPgBouncer } from '../../test/harness/pgbouncer.js';
import { median } from '../lib/median.js';

const URL_ = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ENVELOPES = Number(process.env.PREPARE_BENCH_ENVELOPES ?? 3000);
const ROUNDS = Number(process.env.PREPARE_BENCH_ROUNDS ?? 3);
const CONCURRENCY = 16;

async function envelopes(sql: postgres.Sql): Promise<{ perSecond: number; cpuMicros: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next++ < ENVELOPES) {
      const conn = await sql.reserve();
      try {
        await Promise.all([
          conn.unsafe('begin'),
          conn.unsafe("select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)", [
            'postgres',
            '{"sub":"x"}',
          ]),
          conn.unsafe('select oid, relname, relkind from pg_class where oid = $1', [1259]),
          conn.unsafe('commit'),
        ]);
      } finally {
        conn.release();
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(cpu);
  return {
    perSecond: ENVELOPES / ((performance.now() - started) / 1000),
    cpuMicros: (used.user + used.system) / ENVELOPES,
  };
}

const bouncer = await startPgBouncer(URL_, { serverPoolSize: 8 });
const variants: Record<string, postgres.Sql> = {
  'direct, prepared': postgres(URL_, { max: CONCURRENCY, onnotice: () => {} }),
  'direct, prepare: false': postgres(URL_, { max: CONCURRENCY, prepare: false, onnotice: () => {} }),
  'PgBouncer, prepare: false': postgres(bouncer.urlFor(URL_), { max: CONCURRENCY, prepare: false, onnotice: () => {} }),
};
const results: Record<string, { perSecond: number[]; cpu: number[] }> = {};
try {
  for (const sql of Object.values(variants)) await envelopes(sql); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const names = Object.keys(variants);
    for (const name of round % 2 ? names.reverse() : names) {
      const r = await envelopes(variants[name]!);
      results[name] ??= { perSecond: [], cpu: [] };
      results[name].perSecond.push(r.perSecond);
      results[name].cpu.push(r.cpuMicros);
    }
  }
  for (const [name, r] of Object.entries(results)) {
    console.log(
      `${name.padEnd(28)} ${median(r.perSecond).toFixed(0).padStart(6)} envelopes/s, ${median(r.cpu).toFixed(0).padStart(4)} µs client CPU each`,
    );
  }
} finally {
  for (const sql of Object.values(variants)) await sql.end();
  await bouncer.close();
}
