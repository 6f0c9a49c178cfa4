// Child process that drives one autocannon run (so the load generator never shares an event loop
// with the server it measures): receives a LoadSpec over IPC, answers with a LoadResult.
import { serveOneRun } from '../lib/worker-ipc.js';
import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import type { LoadResult, LoadSpec } from '../lib/load.js';

async function tokensOf(file: string | undefined): Promise<string[] | undefined> {
  return file ? (await readFile(file, 'utf8')).split('\n').filter(Boolean) : undefined;
}

/** autocannon's request list: one request whose setup picks the token or path of each send. */
function requestsOf(
  spec: LoadSpec,
  tokens: string[] | undefined,
  onExhausted: () => void,
): autocannon.Request[] | undefined {
  if (tokens) {
    let next = 0;
    // Every request spends one refresh token, shared by all connections in order.
    return [
      {
        method: spec.method,
        path: spec.path,
        headers: spec.headers,
        setupRequest: (request) => {
          const token = tokens[next++];
          if (token === undefined) onExhausted();
          return { ...request, body: JSON.stringify({ refreshToken: token ?? 'exhausted' }) };
        },
      },
    ];
  }
  const paths = spec.paths;
  if (paths?.length) {
    return [
      {
        method: spec.method,
        path: spec.path,
        headers: spec.headers,
        body: spec.body,
        setupRequest: (request) => ({ ...request, path: paths[Math.floor(Math.random() * paths.length)]! }),
      },
    ];
  }
  return undefined;
}

function fire(
  spec: LoadSpec,
  tokens: string[] | undefined,
): Promise<{ result: autocannon.Result; exhausted: boolean }> {
  let exhausted = false;
  let instance: autocannon.Instance | undefined;
  return new Promise((resolve, reject) => {
    instance = autocannon(
      {
        url: spec.url + spec.path,
        connections: spec.connections,
        duration: spec.seconds,
        ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
        timeout: 30,
        method: spec.method,
        headers: spec.headers,
        body: spec.body,
        idReplacement: spec.idReplacement ?? false,
        requests: requestsOf(spec, tokens, () => {
          exhausted = true;
          instance?.stop();
        }),
      },
      (err, result) => (err ? reject(err) : resolve({ result, exhausted })),
    );
  });
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const tokens = await tokensOf(spec.refreshTokensFile);
  const cpuAtStart = process.cpuUsage();
  const { result, exhausted } = await fire(spec, tokens);
  const cpu = process.cpuUsage(cpuAtStart);
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
  const answered = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  const ok = spec.expectStatus === undefined ? result['2xx'] : (statusCodes[String(spec.expectStatus)] ?? 0);
  return {
    seconds: result.duration,
    ok,
    rps: ok / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    wrongStatus: spec.expectStatus === undefined ? result.non2xx : answered - ok,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    exhausted,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

serveOneRun(run);
