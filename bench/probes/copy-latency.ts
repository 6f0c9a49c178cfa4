// Question: how long does the driver take for a COPY of one row (the backup restore and the log
// writer run one per table or batch), against `select 1`?
// Last answer (2026-11-29, load ~15, 200 rounds): COPY of one row 88.1 ms without TCP_NODELAY on the
// driver's socket, 1.36 ms with it (patch 010, docs/dependencies.md); select 1 0.05–0.07 ms.
//
// `npx tsx bench/probes/copy-latency.ts`: median wall time of BENCH_ROUNDS (default 200) sequential
// round trips through the driver Plinth uses (postgres.js, patched at install) for each case. Without TCP_NODELAY on the
// driver's socket the COPY's end message waits for the server's delayed ACK of its data.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';
import { startBenchDatabase } from '../lib/environment.js';
import { median } from '../lib/median.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 200);

async function time(work: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

async function main() {
  const db = await startBenchDatabase();
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    await sql`create temporary table copy_probe (id int, body text)`;
    const results = {
      'select 1': await time(() => sql`select 1`),
      'COPY of one row': await time(async () => {
        const target = await sql`copy copy_probe from stdin`.writable();
        await pipeline(Readable.from([Buffer.from('1\tone\n')]), target);
      }),
    };
    for (const [name, ms] of Object.entries(results)) console.log(`${name.padEnd(18)} median ${ms.toFixed(2)} ms`);
  } finally {
    await sql.end();
    await db.stop();
  }
}

await main();
