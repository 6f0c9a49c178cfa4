// Question: what does Supabase's /rest/v1 adapter cost over Plinth's own records route on the same
//   read (a primary-key read under an RLS policy, as a signed-in user)? Target: within 5%.
// Last answer: 2026-11-29 (bench/README.md, "Supabase /rest/v1 adapter"): inconclusive, measured on a VM
//   at a load average of ~20 — paired-round ratios 1.046 and 0.861 in two runs, noise ±50%.
//
// `npx tsx bench/probes/supabase-rest.ts`: one Plinth (the compiled server in its own process,
// bench/lib/plinth.ts; server CPU read from its pid) on the bench database, one
// table with an owner policy; alternating runs (the order flips each round, the database is
// vacuumed before each) of GET /api/database/records/notes?id=eq.N (Bearer) and of the request
// supabase-js sends for `.from('notes').select('*').eq('id', N)`: GET /rest/v1/notes?select=*&id=eq.N
// with `apikey` and Bearer. Prints each run and the medians: requests per second and server CPU
// per request. SB_ROUNDS (default 6), SB_SECONDS (default 5), SB_CONNECTIONS (default 32).
import { pidCpuSeconds } from '../lib/cpu.js';
import { startBenchDatabase } from '../lib/environment.js';
import { registerUser } from '../lib/fixtures.js';
import { runLoad, type LoadSpec } from '../lib/load.js';
import { median } from '../lib/median.js';
import { startPlinth } from '../lib/plinth.js';
import { settleDatabase } from '../lib/settle.js';

const rounds = Number(process.env.SB_ROUNDS ?? 6);
const seconds = Number(process.env.SB_SECONDS ?? 5);
const connections = Number(process.env.SB_CONNECTIONS ?? 32);

const db = await startBenchDatabase();
const plinth = await startPlinth(db.url);
try {
  const user = await registerUser(plinth.url, 'sb-rest@bench.local', 'bench-password-9');
  await plinth.sql.unsafe(`
    create table if not exists public.notes (id bigint primary key, owner uuid not null, body text not null);
    drop policy if exists own on public.notes;
    create policy own on public.notes for select to authenticated using (owner = auth.uid());
  `);
  await plinth.sql`insert into public.notes select g, ${user.id}, 'note ' || g from generate_series(1, 1000) g on conflict do nothing`;
  await plinth.sql`select system.bump_schema_version()`;

  const bearer = { authorization: `Bearer ${user.accessToken}` };
  const sides: [string, LoadSpec][] = [
    [
      'records',
      {
        url: plinth.url,
        method: 'GET',
        path: '/api/database/records/notes?id=eq.42',
        headers: bearer,
        expectStatus: 200,
        connections,
        seconds,
      },
    ],
    [
      'rest/v1',
      {
        url: plinth.url,
        method: 'GET',
        path: '/rest/v1/notes?select=*&id=eq.42',
        headers: { ...bearer, apikey: plinth.anonKey, 'x-client-info': 'supabase-js-node/2.119.1' },
        expectStatus: 200,
        connections,
        seconds,
      },
    ],
  ];
  for (const [, spec] of sides) await runLoad({ ...spec, seconds: 2 }); // warm-up: JIT, prepared statements
  const seen = new Map(sides.map(([name]) => [name, { rps: [] as number[], cpuMs: [] as number[] }]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, spec] of round % 2 === 0 ? sides : [...sides].reverse()) {
      await settleDatabase(db.url);
      const before = await pidCpuSeconds(plinth.pid);
      const run = await runLoad(spec);
      const cpuMs = (((await pidCpuSeconds(plinth.pid)) - before) * 1000) / run.ok;
      seen.get(name)!.rps.push(run.rps);
      seen.get(name)!.cpuMs.push(cpuMs);
      console.log(
        `round ${round} ${name}: ${run.rps.toFixed(0)} req/s, p50 ${run.p50} ms, ${cpuMs.toFixed(3)} ms server CPU/request, ${run.wrongStatus + run.errors} failures`,
      );
    }
  }
  const records = seen.get('records')!;
  const rest = seen.get('rest/v1')!;
  for (const [name, { rps, cpuMs }] of seen)
    console.log(`${name}: median ${median(rps).toFixed(0)} req/s, ${median(cpuMs).toFixed(3)} ms server CPU/request`);
  const pairs = records.rps.map((r, i) => rest.rps[i]! / r);
  console.log(`rest/v1 ÷ records, median of the paired rounds: ${median(pairs).toFixed(3)}`);
} finally {
  await plinth.close();
  await db.stop();
}
