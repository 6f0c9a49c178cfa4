// Question: what CPU does one stored log entry cost, in the server and in PostgreSQL?
// Last answer: not recorded.
//
// In process on purpose (bench/lib/plinth-in-process.ts): it hands entries straight to the server's
// log store (app.logs), which no HTTP request can do without the rest of a request's cost; the
// in-process server has stdout logging off. Stored logs as users run them are measured from outside
// by `npm run bench:logs` (suite/logging-cost.ts).
// `npm run bench:log-store`: the CPU one stored log entry costs, split between this process (the
// entry, the buffer, the batch's encoding and driver) and PostgreSQL (the batch's statement),
// measured as CPU time rather than throughput so a busy shared machine skews it little.
// BENCH_ENTRIES: entries per run (default 100,000); BENCH_ROUNDS: runs (default 5, median shown).
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { postgresCpuSeconds, processCpuSeconds } from '../lib/cpu.js';
import { startBenchDatabase } from '../lib/environment.js';
import { startPlinthInProcess } from '../lib/plinth-in-process.js';
import { median } from '../lib/median.js';

/** One stored log entry, as the server's log store takes it. */
type LogEntry = Parameters<NonNullable<FastifyInstance['logs']>['record']>[0];

const numberFrom = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 1) throw new Error(`${name} must be a number ≥ 1`);
  return Math.round(value);
};

let sink: unknown;

async function main() {
  const entries = numberFrom('BENCH_ENTRIES', 100_000);
  const rounds = numberFrom('BENCH_ROUNDS', 5);
  const db = await startBenchDatabase();
  try {
    // A buffer that holds a whole run: nothing is dropped, the batches are the configured size.
    const plinth = await startPlinthInProcess(db.url, {
      LOGS_BUFFER_MAX: String(entries),
      LOGS_FLUSH_INTERVAL_MS: '100000',
    });
    try {
      const logs = plinth.app.logs;
      if (!logs) throw new Error('logs are not stored (LOGS_STORE=false?)');
      const node: number[] = [];
      const pg: number[] = [];
      // Round 0 builds the entries without recording them: what the loop and the idle server cost.
      let baseline = 0;
      for (let round = 0; round <= rounds; round++) {
        const record = round > 0;
        const nodeBefore = processCpuSeconds();
        const pgBefore = await postgresCpuSeconds(db.pgDataDir);
        for (let i = 0; i < entries; i++) {
          // What the request hook records for a records read by a signed-in user.
          const entry: LogEntry = {
            id: randomUUID(),
            ts: new Date(),
            source: 'requests',
            level: 'info',
            method: 'GET',
            route: '/api/database/records/:table',
            status: 200,
            durationMs: 1.25,
            principal: 'user',
            userId: '6f1c2d4e-8a9b-4c3d-9e2f-1a2b3c4d5e6f',
            ip: '127.0.0.1',
            requestId: `req-${round}-${i}`,
            slug: null,
            message: 'GET /api/database/records/:table 200',
            details: null,
          };
          if (record) logs.record(entry);
          else sink = entry;
          // Let the writer's batches go as they would between requests.
          if (i % 500 === 499) await new Promise((resolve) => setImmediate(resolve));
        }
        await logs.flush();
        const nodeUs = ((processCpuSeconds() - nodeBefore) * 1e6) / entries;
        const pgUs = (((await postgresCpuSeconds(db.pgDataDir)) - pgBefore) * 1e6) / entries;
        if (!record) {
          baseline = nodeUs;
          console.log(`baseline (entries built, not recorded): node ${nodeUs.toFixed(2)} µs/entry`);
          continue;
        }
        node.push(nodeUs - baseline);
        pg.push(pgUs);
        console.log(
          `round ${round}: node ${(nodeUs - baseline).toFixed(2)} µs/entry over the baseline, postgres ${pgUs.toFixed(2)} µs/entry`,
        );
      }
      if (sink === undefined) throw new Error('the baseline built nothing');
      console.log(
        `median of ${rounds} × ${entries.toLocaleString('en-US')} entries: node ${median(node).toFixed(2)} µs, postgres ${median(pg).toFixed(2)} µs, total ${(median(node) + median(pg)).toFixed(2)} µs per entry; dropped ${logs.droppedCount()}`,
      );
    } finally {
      await plinth.close();
    }
  } finally {
    await db.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error('Benchmark could not run:', err);
    process.exit(1);
  },
);
