// Runs one autocannon load against a URL in a child process (bench/workers/load-worker.ts) and returns
// what a client saw: successful requests/s, latency, and every failure counted.
import { fork } from 'node:child_process';
import { pinClient } from './cpu-affinity.js';
import { fileURLToPath } from 'node:url';

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** When set, each request's body is {refreshToken} with the next line of this file. */
  refreshTokensFile?: string;
  /** When set, each request goes to one of these paths (picked at random) instead of `path`. */
  paths?: string[];
  /** `[<id>]` in the body becomes a fresh random id on each request (autocannon's idReplacement). */
  idReplacement?: boolean;
  /** The one status a correct answer has; any other counts as a failure. Default: any 2xx. */
  expectStatus?: number;
  connections: number;
  seconds: number;
  /** Open-loop load: requests per second across all connections (autocannon's overallRate). */
  overallRate?: number;
}

export interface LoadResult {
  seconds: number;
  /** Correct responses: 2xx, or exactly `expectStatus` when the spec names one. */
  ok: number;
  /** Correct responses per second: failed requests never count as throughput. */
  rps: number;
  /** Latency of every response, ms. */
  p50: number;
  p99: number;
  /** Responses that were not correct: non-2xx, or any status but `expectStatus`. */
  wrongStatus: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** The run ran out of refresh tokens and stopped early. */
  exhausted: boolean;
  /** CPU time the load generator itself used. */
  cpuSeconds: number;
}

export const failuresOf = (r: LoadResult): number => r.wrongStatus + r.errors + (r.exhausted ? 1 : 0);

const WORKER = fileURLToPath(new URL('../workers/load-worker.ts', import.meta.url));

export interface LoadGenerator {
  /** Runs one load; the generator's process then exits. */
  run(spec: LoadSpec): Promise<LoadResult>;
}

type WorkerMessage = { ready: true } | { result: LoadResult } | { error: string };

/** Starts the load generator process and resolves once it is ready to fire. */
export function startLoadGenerator(): Promise<LoadGenerator> {
  // process.execArgv carries tsx's loader, so the child runs TypeScript too.
  const child = fork(WORKER, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  pinClient(child.pid);
  const next = () =>
    new Promise<WorkerMessage>((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`load generator exited with code ${code} before reporting`));
      child.once('error', reject);
      child.once('exit', onExit);
      child.once('message', (message: WorkerMessage) => {
        child.off('error', reject);
        child.off('exit', onExit);
        resolve(message);
      });
    });
  return next().then((ready) => {
    if (!('ready' in ready)) throw new Error('load generator did not start');
    return {
      async run(spec) {
        const answer = next();
        child.send(spec);
        const message = await answer;
        if ('result' in message) return message.result;
        throw new Error(`load generator failed: ${'error' in message ? message.error : 'no result'}`);
      },
    };
  });
}

export const runLoad = async (spec: LoadSpec): Promise<LoadResult> => (await startLoadGenerator()).run(spec);
