// Fault injection from the public side with only the anon key (or no key): deeply nested JSON
// bodies, floods of pathological regex filters, floods of idle sockets. The process must live,
// normal requests beside them must be answered within a stated bound, nothing may hang.
import { connect, type Socket } from 'node:net';
import { Pool } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../harness/test-app.js';
import { pollUntil, startServerProcess, type ServerProcess } from '../harness/server-process.js';
import {
  DEADLINES, HANG_MS, RECOVERY_BOUND_MS, TABLE, anonHeaders, createFixtures, insertRow, normalRead, percentile, recoveryMs, timed, type Outcome,
} from './workload.js';

const started: ServerProcess[] = [];
afterAll(async () => {
  for (const s of started) await s.close();
});

async function serverWith(env: Record<string, string>, fileLimit?: number): Promise<ServerProcess> {
  const s = await startServerProcess({ databaseUrl: await createDatabase(), env: { ...DEADLINES, ...env }, fileLimit });
  started.push(s);
  await createFixtures(s);
  return s;
}

/** ~30 KB of JSON nested `depth` levels deep (arrays within objects), as a column value. */
function nested(depth: number): string {
  return `{"client_id":"hostile","payload":${'{"a":['.repeat(depth / 2)}1${']}'.repeat(depth / 2)}}`;
}

describe('deeply nested JSON bodies sent with the anon key', () => {
  it('answers each with a clear 400 while normal requests beside them keep working; nothing freezes', async () => {
    const s = await serverWith({});
    const hostile: Outcome[] = [];
    const normal: Outcome[] = [];
    const body = nested(5000);
    for (let round = 0; round < 20; round++) {
      const batch = await Promise.all([
        ...Array.from({ length: 4 }, () =>
          timed(`${s.baseUrl}/api/database/records/${TABLE}`, { method: 'POST', headers: { ...anonHeaders(s), 'content-type': 'application/json' }, body })),
        insertRow(s, `normal-${round}`),
        normalRead(s),
      ]);
      hostile.push(...batch.slice(0, 4));
      normal.push(...batch.slice(4));
      // A frozen server: no use piling up more hung requests.
      if (batch.some((o) => o.status === -1) || s.exit()) break;
    }
    expect(s.exit(), s.output().slice(-3000)).toBeNull();
    for (const o of hostile) {
      expect(o.status, o.body.slice(0, 300)).toBe(400);
      expect(JSON.parse(o.body)).toMatchObject({ statusCode: 400, message: expect.any(String) });
    }
    expect(normal.filter((o) => o.status < 200 || o.status >= 300).map((o) => `${o.status} ${o.body.slice(0, 200)}`)).toEqual([]);
    // Database-backed routes still answer afterwards, and readiness tells the truth.
    expect((await insertRow(s, 'after-hostile')).status).toBe(201);
    expect((await timed(`${s.baseUrl}/api/health/ready`)).status).toBe(200);
  }, 90_000);
});

/** A ~5 KB regex whose compilation alone costs PostgreSQL seconds of CPU. */
const PATHOLOGICAL = `^${'(a|aa|aaa)?'.repeat(260)}$`;
const FLOODERS = 6;
const POOL = 3;
/** A normal read waits at most for the flood ahead of it in the pool queue to hit its timeout. */
const READ_BOUND_MS = Number(DEADLINES.ANON_STATEMENT_TIMEOUT_MS) * (FLOODERS / POOL + 1) + 2_000;

describe('a flood of pathological regex filters from anon', () => {
  it(`ends each at the anon statement timeout (504) and keeps a normal read under ${READ_BOUND_MS} ms`, async () => {
    const s = await serverWith({ DB_POOL_SIZE: String(POOL), DB_POOL_QUEUE_MAX: '1000' });
    const unloaded: number[] = [];
    for (let i = 0; i < 10; i++) unloaded.push((await normalRead(s)).ms);

    const flood: Outcome[] = [];
    let running = true;
    const url = `${s.baseUrl}/api/database/records/${TABLE}?body=match.${encodeURIComponent(PATHOLOGICAL)}`;
    const loops = Array.from({ length: FLOODERS }, async () => {
      while (running && !s.exit()) flood.push(await timed(url, { headers: anonHeaders(s) }));
    });
    const reads: Outcome[] = [];
    const windowEnds = Date.now() + 5_000;
    while (Date.now() < windowEnds && !s.exit()) reads.push(await normalRead(s, HANG_MS));
    running = false;
    await Promise.all(loops);

    expect(s.exit(), s.output().slice(-3000)).toBeNull();
    expect(reads.map((o) => o.status).filter((status) => status !== 200)).toEqual([]);
    expect(Math.max(...reads.map((o) => o.ms)), `unloaded p50 ${percentile(unloaded, 50)} ms`).toBeLessThan(READ_BOUND_MS);
    expect(flood.length).toBeGreaterThan(0);
    for (const o of flood) {
      expect(o.status, o.body.slice(0, 300)).not.toBe(-1);
      // Stopped by the statement timeout (504, records error shape), or refused up front (400).
      expect([400, 504], o.body.slice(0, 300)).toContain(o.status);
      expect(JSON.parse(o.body)).toMatchObject({ statusCode: o.status, message: expect.any(String) });
    }
  }, 90_000);
});

/** Opens `count` TCP connections that never send a byte; resolves once each connected or failed. */
async function idleSockets(port: number, count: number): Promise<Socket[]> {
  const sockets: Socket[] = [];
  await Promise.all(Array.from({ length: count }, () => new Promise<void>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    socket.once('connect', () => resolve());
    socket.once('error', () => resolve());
    socket.once('close', () => resolve());
  })));
  return sockets;
}

describe('a flood of idle connections past the open-file limit', () => {
  it('keeps the process alive and serving established clients, and takes new ones again once the flood ends', async () => {
    const s = await serverWith({ MAX_CONNECTIONS: '300' }, 1024);
    // A client already connected before the flood (keep-alive): it must go on being served.
    const client = new Pool(s.baseUrl, { connections: 2 });
    const read = async () => {
      const t0 = performance.now();
      try {
        const res = await client.request({ path: `/api/database/records/${TABLE}?id=eq.1`, method: 'GET', headers: anonHeaders(s), headersTimeout: HANG_MS, bodyTimeout: HANG_MS });
        await res.body.text();
        return { status: res.statusCode, ms: performance.now() - t0 };
      } catch (err) {
        return { status: (err as Error).name.includes('Timeout') ? -1 : 0, ms: performance.now() - t0 };
      }
    };
    await Promise.all([read(), read()]);
    const unloaded: number[] = [];
    for (let i = 0; i < 10; i++) unloaded.push((await read()).ms);

    const sockets = await idleSockets(s.port, 1500);
    const during: { status: number; ms: number }[] = [];
    // The function runtime dies during the flood: restarting it needs file descriptors too.
    const deno = s.children().find((c) => c.command.includes('deno'));
    expect(deno).toBeDefined();
    process.kill(deno!.pid, 'SIGKILL');
    // The flood is held for a 4 s window while the established client reads.
    const windowEnds = Date.now() + 4_000;
    while (Date.now() < windowEnds && !s.exit()) during.push(await read());
    const ended = Date.now();
    for (const socket of sockets) socket.destroy();
    const recovered = s.exit() ? undefined : await recoveryMs(s, ended).catch((err: Error) => err.message);
    const runtimeBack = s.exit() ? undefined : await pollUntil('the function runtime restarted', RECOVERY_BOUND_MS, () =>
      s.children().some((c) => c.command.includes('deno') && c.pid !== deno!.pid) ? true : undefined).catch((err: Error) => err.message);
    await client.close();

    expect(s.exit(), s.output().slice(-3000)).toBeNull();
    expect(during.filter((o) => o.status !== 200)).toEqual([]);
    expect(Math.max(...during.map((o) => o.ms)), `unloaded p50 ${percentile(unloaded, 50)} ms`).toBeLessThan(HANG_MS);
    expect(recovered).toEqual(expect.any(Number));
    expect(runtimeBack).toBe(true);
  }, 90_000);
});
