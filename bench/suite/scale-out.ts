// `npx tsx bench/suite/scale-out.ts`: one server against two, on one PostgreSQL, both behind the same
// loopback round-robin balancer (test/harness/balancer.ts), driven with the records read
// by id (user token, row-level security). Rounds alternate 1 and 2 servers; prints each round's
// rate and the ratio 2 : 1 (median of the paired rounds), and where each round's CPU went: how many
// of the machine's cores were busy, and CPU ms per request of the servers, the balancer (this
// process), PostgreSQL and the load generator. SCALE_BENCH_ROUNDS (default 3 pairs),
// SCALE_BENCH_SECONDS (default 5 per round).
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { startBalancer } from '../../test/harness/balancer.js';
import { startServerProcess, type ServerProcess } from '../../test/harness/server-process.js';
import { machineBusySeconds, pidCpuSeconds, postgresCpuSeconds, processCpuSeconds } from '../lib/cpu.js';
import { startBenchDatabase } from '../lib/environment.js';
import { registerUser } from '../lib/fixtures.js';
import { runLoad } from '../lib/load.js';
import { createRecordsTable, RECORDS_PATH } from '../lib/records.js';

const CONNECTIONS = 32;
const ROWS = 10_000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const rounds = Number(process.env.SCALE_BENCH_ROUNDS ?? 3);
  const seconds = Number(process.env.SCALE_BENCH_SECONDS ?? 5);
  const db = await startBenchDatabase();
  const servers: ServerProcess[] = [];
  try {
    // The settings that must match across servers (README, Running more than one server).
    const shared = { PLINTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent' };
    for (let i = 0; i < 2; i++) servers.push(await startServerProcess({ databaseUrl: db.url, env: shared }));
    const user = await registerUser(servers[0]!.baseUrl, 'scale@bench.local', 'bench-password-9');
    const ids = await createRecordsTable(db.url, user.id, ROWS);
    const paths = ids.map((id) => `${RECORDS_PATH}?id=eq.${id}`);

    const roundOn = async (count: 1 | 2) => {
      const proxy = await startBalancer(servers.slice(0, count).map((s) => s.baseUrl));
      try {
        const spec = {
          url: proxy.url,
          method: 'GET' as const,
          path: paths[0]!,
          paths,
          headers: { authorization: `Bearer ${user.accessToken}` },
          expectStatus: 200,
          connections: CONNECTIONS,
        };
        await runLoad({ ...spec, seconds: 1 }); // warm-up: pools, prepared statements, schema cache
        const cpu = async () => ({
          machine: await machineBusySeconds(),
          servers: (await Promise.all(servers.map((s) => pidCpuSeconds(s.pid)))).reduce((a, b) => a + b, 0),
          balancer: processCpuSeconds(),
          postgres: await postgresCpuSeconds(db.pgDataDir),
        });
        const before = await cpu();
        const run = await runLoad({ ...spec, seconds });
        const after = await cpu();
        const failures = run.wrongStatus + run.errors;
        if (failures)
          throw new Error(`${count} server(s): ${failures} failed requests (${JSON.stringify(run.statusCodes)})`);
        const perRequest = (seconds: number) => ((seconds * 1000) / run.ok).toFixed(3);
        console.log(
          `round ${rates[1].length + rates[2].length + 1}, ${count} server(s): ${run.rps.toFixed(0)} req/s; ` +
            `cores busy ${((after.machine - before.machine) / run.seconds).toFixed(2)} of ${availableParallelism()}; ` +
            `CPU ms per request: servers ${perRequest(after.servers - before.servers)}, ` +
            `balancer ${perRequest(after.balancer - before.balancer)}, ` +
            `postgres ${perRequest(after.postgres - before.postgres)}, load ${perRequest(run.cpuSeconds)}`,
        );
        return run.rps;
      } finally {
        await proxy.close();
      }
    };

    const rates: Record<1 | 2, number[]> = { 1: [], 2: [] };
    for (let i = 0; i < rounds; i++) {
      const order: (1 | 2)[] = i % 2 === 0 ? [1, 2] : [2, 1];
      for (const count of order) {
        rates[count].push(await roundOn(count));
      }
    }
    const paired = median(rates[2].map((r, i) => r / rates[1][i]!));
    console.log(
      `records read by id through the balancer: 1 server ${median(rates[1]).toFixed(0)} req/s, 2 servers ${median(rates[2]).toFixed(0)} req/s (medians); 2 : 1 = ${paired.toFixed(2)} (median of paired rounds)`,
    );
  } finally {
    for (const server of servers) await server.close();
    await db.stop();
  }
}

await main();
