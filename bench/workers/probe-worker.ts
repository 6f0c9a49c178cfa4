// Child process of bench/suite/overload.ts: the slow probe client, in a process of its own so that its
// timings never wait on the server's event loop. Receives a ProbeSpec over IPC, sends one request
// at a time (a pause between them) and answers with the latency of each accepted (200) one, the
// refusals (503) it saw, and whether the liveness route answered 200 after every probe.
import { serveOneRun } from '../lib/worker-ipc.js';
export interface ProbeSpec {
  url: string;
  healthUrl: string;
  headers: Record<string, string>;
  seconds: number;
  pauseMs: number;
}

export interface ProbeResult {
  accepted: number[];
  refused: number;
  /** Refusals whose body or headers were not the spec's 503 (error shape, nextActions, Retry-After). */
  malformedRefusals: number;
  healthChecks: number;
  healthFailures: number;
}

async function probe(spec: ProbeSpec): Promise<ProbeResult> {
  const result: ProbeResult = { accepted: [], refused: 0, malformedRefusals: 0, healthChecks: 0, healthFailures: 0 };
  const until = Date.now() + spec.seconds * 1000;
  while (Date.now() < until) {
    const started = performance.now();
    const res = await fetch(spec.url, { headers: spec.headers });
    const body = await res.text();
    if (res.status === 200) result.accepted.push(performance.now() - started);
    else if (res.status === 503) {
      result.refused++;
      const parsed = JSON.parse(body) as { error?: string; nextActions?: string };
      if (parsed.error !== 'SERVICE_UNAVAILABLE' || !parsed.nextActions || res.headers.get('retry-after') === null)
        result.malformedRefusals++;
    }
    const health = await fetch(spec.healthUrl);
    await health.arrayBuffer();
    result.healthChecks++;
    if (health.status !== 200) result.healthFailures++;
    await new Promise((r) => setTimeout(r, spec.pauseMs));
  }
  return result;
}

serveOneRun(probe);
