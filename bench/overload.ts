// `npx tsx bench/overload.ts`: is overload refused rather than queued? Measures the records read
// unloaded, its sustainable rate, then 3× that rate open-loop, while a slow probe client samples
// the latency of accepted requests and Plinth's memory is sampled. Prints the numbers; asserts nothing.
import { startLoadGenerator, type LoadSpec } from './load.js';
import { startBenchDatabase } from './environment.js';
import { registerUser } from './fixtures.js';
import { startPlinth } from './plinth.js';
import { createRecordsTable, RECORDS_PATH } from './records.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PROBE_EVERY_MS = 20;

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** Sequential probe requests during a load: latency of the accepted (200) ones, count of 503s. */
async function probe(url: string, headers: Record<string, string>, until: number) {
  const accepted: number[] = [];
  let refused = 0;
  while (Date.now() < until) {
    const started = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status === 200) accepted.push(performance.now() - started);
    else if (res.status === 503) refused++;
    await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
  }
  return { accepted, refused };
}

async function main() {
  const db = await startBenchDatabase();
  const plinth = await startPlinth(db.url);
  try {
    const user = await registerUser(plinth.url, 'overload@bench.local', 'bench-password-9');
    const ids = await createRecordsTable(db.url, user.id, 10_000);
    const headers = { authorization: `Bearer ${user.accessToken}` };
    const paths = ids.slice(0, 2_000).map((id) => `${RECORDS_PATH}?id=eq.${id}`);
    const probeUrl = `${plinth.url}${paths[0]}`;
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
    const generator = () => startLoadGenerator();

    // Unloaded: the probe alone.
    const unloaded = await probe(probeUrl, headers, Date.now() + SECONDS * 1000);
    // Sustainable: closed loop, 32 connections (the records scenarios' load).
    const sustained = await (await generator()).run(spec({}));
    const rate = Math.round(sustained.rps);
    // 3× that rate, open loop, on enough connections to carry it.
    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
    const rssBefore = process.memoryUsage().rss;
    const [overload, sampled] = await Promise.all([
      (await generator()).run(spec({ connections: 256, overallRate: 3 * rate })),
      probe(probeUrl, headers, Date.now() + SECONDS * 1000),
    ]);
    clearInterval(sampler);
    const unloadedP99 = percentile(unloaded.accepted, 99);
    const acceptedP99 = percentile(sampled.accepted, 99);
    console.log(
      JSON.stringify(
        {
          unloaded: { probes: unloaded.accepted.length, p50: percentile(unloaded.accepted, 50), p99: unloadedP99 },
          sustainable: { rps: rate, p50: sustained.p50, p99: sustained.p99, statusCodes: sustained.statusCodes },
          overload: {
            offeredRps: 3 * rate,
            acceptedRps: Math.round(overload.rps),
            statusCodes: overload.statusCodes,
            errors: overload.errors,
            allResponsesP99: overload.p99,
            probe: {
              accepted: sampled.accepted.length,
              refused: sampled.refused,
              p50: percentile(sampled.accepted, 50),
              p99: acceptedP99,
            },
            acceptedP99OverUnloaded: +(acceptedP99 / unloadedP99).toFixed(2),
            rssMiB: { before: Math.round(rssBefore / 2 ** 20), peak: Math.round(peakRss / 2 ** 20) },
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
