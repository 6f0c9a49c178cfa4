// `npx tsx bench/overload.ts`: is overload refused rather than queued? Measures the records read
// unloaded, its sustainable rate, then 3× that rate open-loop, while a slow probe client samples
// the latency of accepted requests (and that /api/health still answers) and Plinth's memory is
// sampled. Prints the numbers; asserts nothing.
//
// Method (client and server share the machine, so the clients must stay out of the server's way):
// - Plinth runs in this process, exactly as main.ts starts it, with logging off.
// - The load comes from autocannon in a child process (bench/load-worker.ts): open loop at
//   `overallRate` over 256 keep-alive connections, so a slow server does not slow the offered load
//   (no coordinated omission). Its own CPU time is reported (`generatorCpuSeconds`): on 2 cores it
//   is a large share, which is why the accepted rate is lower than it would be with a remote client.
// - The probe (bench/probe-worker.ts) is another child process sending one request at a time with a
//   pause; the p99 of its accepted (200) answers is the number the target is about: within 2× the
//   same probe's p99 with no load. Timing it in this process would add the server's own event-loop
//   backlog to every probe a second time.
// - "offered" is what the generator achieved to send (answers + errors per second), next to the
//   3× it was asked for: on a busy machine it can fall short, and the ratio is only meaningful
//   when it did not.
// - Noise: other work on the machine moves all numbers; compare variants from back-to-back runs.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startLoadGenerator, type LoadSpec } from './load.js';
import { startBenchDatabase } from './environment.js';
import { registerUser } from './fixtures.js';
import { startPlinth } from './plinth.js';
import type { ProbeResult, ProbeSpec } from './probe-worker.js';
import { createRecordsTable, RECORDS_PATH } from './records.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PROBE_PAUSE_MS = 20;
const OVERLOAD_CONNECTIONS = 256;

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const ms = (x: number) => Math.round(x * 10) / 10;
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

const PROBE_WORKER = fileURLToPath(new URL('./probe-worker.ts', import.meta.url));

/** Runs the probe client in its own process for one load phase. */
function probe(spec: ProbeSpec): Promise<ProbeResult> {
  const child = fork(PROBE_WORKER, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`probe exited with code ${code} before reporting`)));
    child.on('message', (message: { ready?: true; result?: ProbeResult; error?: string }) => {
      if (message.ready) child.send(spec);
      else if (message.result) resolve(message.result);
      else reject(new Error(`probe failed: ${message.error}`));
    });
  });
}

async function main() {
  const db = await startBenchDatabase();
  const plinth = await startPlinth(db.url);
  try {
    const user = await registerUser(plinth.url, 'overload@bench.local', 'bench-password-9');
    const ids = await createRecordsTable(db.url, user.id, 10_000);
    const headers = { authorization: `Bearer ${user.accessToken}` };
    const paths = ids.slice(0, 2_000).map((id) => `${RECORDS_PATH}?id=eq.${id}`);
    const probeSpec: ProbeSpec = {
      url: `${plinth.url}${paths[0]}`,
      healthUrl: `${plinth.url}/api/health`,
      headers,
      seconds: SECONDS,
      pauseMs: PROBE_PAUSE_MS,
    };
    const spec = (over: Partial<LoadSpec>): LoadSpec => ({
      url: plinth.url,
      method: 'GET',
      path: paths[0]!,
      paths,
      headers,
      expectStatus: 200,
      connections: 32,
      seconds: SECONDS,
      ...over,
    });

    // Unloaded: the probe alone.
    const unloaded = await probe(probeSpec);
    // Sustainable: closed loop, 32 connections (the records scenarios' load).
    const sustained = await (await startLoadGenerator()).run(spec({}));
    const rate = Math.round(sustained.rps);
    // 3× that rate, open loop, on enough connections to carry it.
    const generator = await startLoadGenerator();
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
    const [overload, sampled] = await Promise.all([
      generator.run(spec({ connections: OVERLOAD_CONNECTIONS, overallRate: 3 * rate })),
      probe(probeSpec),
    ]);
    clearInterval(sampler);
    const unloadedP99 = percentile(unloaded.accepted, 99);
    const acceptedP99 = percentile(sampled.accepted, 99);
    const answered = Object.values(overload.statusCodes).reduce((a, b) => a + b, 0);
    console.log(
      JSON.stringify(
        {
          unloaded: { probes: unloaded.accepted.length, p50: ms(percentile(unloaded.accepted, 50)), p99: ms(unloadedP99) },
          sustainable: { rps: rate, p50: sustained.p50, p99: sustained.p99, statusCodes: sustained.statusCodes },
          overload: {
            askedRps: 3 * rate,
            offeredRps: Math.round((answered + overload.errors) / overload.seconds),
            acceptedRps: Math.round(overload.rps),
            refused: overload.statusCodes['503'] ?? 0,
            statusCodes: overload.statusCodes,
            errors: overload.errors,
            allResponsesP99: overload.p99,
            generatorCpuSeconds: Math.round(overload.cpuSeconds * 10) / 10,
            probe: {
              accepted: sampled.accepted.length,
              refused: sampled.refused,
              malformedRefusals: sampled.malformedRefusals,
              p50: ms(percentile(sampled.accepted, 50)),
              p99: ms(acceptedP99),
              healthChecks: sampled.healthChecks,
              healthFailures: sampled.healthFailures,
            },
            acceptedP99OverUnloaded: +(acceptedP99 / unloadedP99).toFixed(2),
            rssMiB: { before: mib(rssBefore), peak: mib(peakRss), after: mib(process.memoryUsage().rss) },
          },
          pool: plinth.deps.config.dbPoolSize,
          queueMax: plinth.deps.config.dbPoolQueueMax,
        },
        null,
        2,
      ),
    );
  } finally {
    await plinth.close();
    await db.stop();
  }
}

await main();
