// Faults sent from the public side (the anon key or no key at all), as measurements: nested JSON
// bodies, pathological regex filters, floods of idle sockets. Tests assert; the bench prints.
import { Pool } from 'undici';
import { openIdleConnections } from '../harness/idle-connections.js';
import { pollUntil, type Exit, type ServerProcess } from '../harness/server-process.js';
import {
  HANG_MS,
  RECOVERY_BOUND_MS,
  TABLE,
  anonHeaders,
  insertRow,
  normalRead,
  signedInHeaders,
  recoveryMs,
  timed,
  type Outcome,
} from './workload.js';

/** JSON nested `depth` levels deep (objects holding arrays, ~30 KB for 5000) as a column value. */
export function nestedBody(depth: number): string {
  return `{"client_id":"hostile","payload":${'{"a":['.repeat(depth / 2)}1${']}'.repeat(depth / 2)}}`;
}

/** `rounds` rounds of 4 nested bodies (anon key), each beside a normal insert and a normal read. */
export async function hostileBodies(
  s: ServerProcess,
  options: { rounds: number; depth: number },
): Promise<{ hostile: Outcome[]; normal: Outcome[]; exit: Exit | null }> {
  const hostile: Outcome[] = [];
  const normal: Outcome[] = [];
  const body = nestedBody(options.depth);
  for (let round = 0; round < options.rounds; round++) {
    const batch = await Promise.all([
      ...Array.from({ length: 4 }, () =>
        timed(`${s.baseUrl}/api/database/records/${TABLE}`, {
          method: 'POST',
          headers: { ...anonHeaders(s), 'content-type': 'application/json' },
          body,
        }),
      ),
      insertRow(s, `normal-${Date.now()}-${round}`),
      normalRead(s),
    ]);
    hostile.push(...batch.slice(0, 4));
    normal.push(...batch.slice(4));
    // A frozen server: no use piling up more hung requests.
    if (batch.some((o) => o.status === -1) || s.exit()) break;
  }
  return { hostile, normal, exit: s.exit() };
}

/** A regex of `repeats` × 11 characters whose compilation alone costs PostgreSQL seconds of CPU. */
export const pathologicalRegex = (repeats: number) => `^${'(a|aa|aaa)?'.repeat(repeats)}$`;

export interface FloodResult {
  unloaded: number[];
  /** Normal reads during the flood: their latencies and statuses. */
  during: Outcome[];
  flood: Outcome[];
  exit: Exit | null;
}

/** `flooders` loops of anon regex filters for `windowMs` while one client reads normally. */
export async function regexFlood(
  s: ServerProcess,
  options: { flooders: number; windowMs: number; repeats: number },
): Promise<FloodResult> {
  // The reads beside the flood are a signed-in user's: anon's share of the pool is the flood's.
  const reader = await signedInHeaders(s);
  const unloaded: number[] = [];
  for (let i = 0; i < 10; i++) unloaded.push((await normalRead(s, HANG_MS, reader)).ms);
  const flood: Outcome[] = [];
  let running = true;
  const url = `${s.baseUrl}/api/database/records/${TABLE}?body=match.${encodeURIComponent(pathologicalRegex(options.repeats))}`;
  const loops = Array.from({ length: options.flooders }, async () => {
    while (running && !s.exit()) flood.push(await timed(url, { headers: anonHeaders(s) }));
  });
  const during: Outcome[] = [];
  const windowEnds = Date.now() + options.windowMs;
  while (Date.now() < windowEnds && !s.exit()) during.push(await normalRead(s, HANG_MS, reader));
  running = false;
  await Promise.all(loops);
  return { unloaded, during, flood, exit: s.exit() };
}

export interface ConnectionFloodResult extends FloodResult {
  /** Sockets the server held open at the flood's peak. */
  held: number;
  /** ms from the flood's end to a normal answer on a new connection. */
  recovery: number | string;
  /** ms from the flood's end until the killed function runtime was back. */
  runtimeBack: number | string;
}

/**
 * `sockets` idle connections held for `windowMs`; meanwhile a client connected before the flood
 * (keep-alive) reads, and the Deno runtime is killed, so restarting it needs descriptors too.
 */
export async function connectionFlood(
  s: ServerProcess,
  options: { sockets: number; windowMs: number },
): Promise<ConnectionFloodResult> {
  const client = new Pool(s.baseUrl, { connections: 2 });
  const read = async (): Promise<Outcome> => {
    const t0 = performance.now();
    try {
      const res = await client.request({
        path: `/api/database/records/${TABLE}?id=eq.1`,
        method: 'GET',
        headers: anonHeaders(s),
        headersTimeout: HANG_MS,
        bodyTimeout: HANG_MS,
      });
      return { status: res.statusCode, body: await res.body.text(), ms: performance.now() - t0, headers: null };
    } catch (err) {
      return {
        status: (err as Error).name.includes('Timeout') ? -1 : 0,
        body: String(err),
        ms: performance.now() - t0,
        headers: null,
      };
    }
  };
  try {
    await Promise.all([read(), read()]);
    const unloaded: number[] = [];
    for (let i = 0; i < 10; i++) unloaded.push((await read()).ms);
    const sockets = await openIdleConnections(s.port, options.sockets);
    const held = sockets.filter((socket) => !socket.destroyed).length;
    const deno = s.children().find((c) => c.command.includes('deno'));
    if (deno) process.kill(deno.pid, 'SIGKILL');
    const during: Outcome[] = [];
    const windowEnds = Date.now() + options.windowMs;
    while (Date.now() < windowEnds && !s.exit()) during.push(await read());
    const ended = Date.now();
    for (const socket of sockets) socket.destroy();
    const recovery = s.exit() ? 'the server exited' : await recoveryMs(s, ended).catch((err: Error) => err.message);
    const runtimeBack =
      s.exit() || !deno
        ? 'the server exited or had no runtime'
        : await pollUntil('the function runtime restarted', RECOVERY_BOUND_MS, () =>
            s.children().some((c) => c.command.includes('deno') && c.pid !== deno.pid) ? Date.now() - ended : undefined,
          ).catch((err: Error) => err.message);
    return { unloaded, during, flood: [], held, recovery, runtimeBack, exit: s.exit() };
  } finally {
    await client.close();
  }
}
