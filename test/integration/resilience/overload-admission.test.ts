// What a client sees when the server is at capacity: requests are refused by the HTTP server
// before Fastify (http/admission.ts) with 503 SERVICE_UNAVAILABLE, Retry-After and the spec's error
// shape, readable by a browser (CORS); health checks and CORS preflights still answer; and once
// the load is gone the same requests are served. Two saturations are covered: the pool's wait queue
// is full, and every connection is held while as many requests are in flight as the pool and its
// queue can take (requests still sending their bodies count; they do not lock others out while the
// pool is free).
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardOf } from '../../../src/core/db.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { waitFor } from './fault-driver.js';
import { expectRefusal } from './refusal.js';
import { WHOLE_POOL_FOR_ANON } from './refusal.js';

const POOL = 2;
const QUEUE_MAX = 2;
let t: TestApp;
let admin: postgres.Sql;
let baseUrl: string;
/** Requests the HTTP server has received since start (its 'request' event, refusals included). */
let received = 0;

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${baseUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${t.anonKey}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    signal: AbortSignal.timeout(15_000),
  });
const gated = () => call('/api/database/rpc/wait_for_gate', { method: 'POST', body: '{}' });

beforeAll(async () => {
  t = await startTestApp({
    env: { DB_POOL_SIZE: String(POOL), DB_POOL_QUEUE_MAX: String(QUEUE_MAX), ...WHOLE_POOL_FOR_ANON },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  t.app.server.on('request', () => received++);
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  admin = postgres(t.databaseUrl, { max: 2, onnotice: () => {}, connection: { application_name: 'admission-admin' } });
  await admin.unsafe(`
    create function public.wait_for_gate() returns int language sql volatile as $$ select pg_advisory_xact_lock(4244); select 1 $$;
    grant execute on function public.wait_for_gate() to anon;
  `);
});

afterAll(async () => {
  await admin?.end();
  await t?.close();
});

/** Holds the gate (an advisory lock) while `body` runs; every wait_for_gate call waits on it. */
async function withGateClosed(body: () => Promise<void>): Promise<void> {
  const gate = await admin.reserve();
  await gate`select pg_advisory_lock(4244)`;
  try {
    await body();
  } finally {
    await gate`select pg_advisory_unlock(4244)`;
    gate.release();
  }
}

/** Starts a request that sends its headers and part of its body, then nothing more. */
function halfSentRequest(): Socket {
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  socket.write(
    `POST /api/database/rpc/wait_for_gate HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${t.anonKey}\r\n` +
      'content-type: application/json\r\ncontent-length: 1000\r\n\r\n{"a":',
  );
  return socket;
}

describe('a saturated server', () => {
  it('refuses with 503, Retry-After and the error shape while the wait queue is full; health and preflights answer', async () => {
    const guard = guardOf(t.deps.sql);
    let held: Promise<Response>[] = [];
    await withGateClosed(async () => {
      held = Array.from({ length: POOL + QUEUE_MAX }, gated);
      await waitFor(() => guard.full(), 10_000, 'the pool and its wait queue to fill');

      await expectRefusal(await call('/api/database/records/anything?id=eq.1'));
      const traced = await call('/api/database/rpc/wait_for_gate', {
        method: 'POST',
        body: '{}',
        headers: { 'x-request-id': 'trace-42', origin: 'https://app.example' },
      });
      await expectRefusal(traced);
      expect(traced.headers.get('x-request-id')).toBe('trace-42');
      // A browser can read the refusal and its Retry-After.
      expect(traced.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(traced.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);

      // Liveness and readiness are never refused: an orchestrator must see an overloaded server.
      const live = await fetch(`${baseUrl}/api/health`);
      expect(live.status).toBe(200);
      expect((await live.json()).status).toBe('ok');
      const ready = await fetch(`${baseUrl}/api/health/ready`);
      expect(['ready', 'unavailable']).toContain((await ready.json()).status);
      const preflight = await fetch(`${baseUrl}/api/database/records/anything`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
      });
      expect(preflight.status).toBe(204);
      // Nothing was queued by the refusals: still exactly the held requests.
      expect(guard.stats()).toMatchObject({ active: POOL, waiting: QUEUE_MAX });
    });
    expect((await Promise.all(held)).map((r) => r.status)).toEqual(Array(POOL + QUEUE_MAX).fill(200));
    expect((await gated()).status).toBe(200);
  });

  it('refuses while every connection is held and the pool plus its queue worth of requests are in flight', async () => {
    const guard = guardOf(t.deps.sql);
    let held: Promise<Response>[] = [];
    const sending: Socket[] = [];
    try {
      await withGateClosed(async () => {
        held = Array.from({ length: POOL }, gated);
        await waitFor(() => guard.stats().active === POOL, 10_000, 'every connection to be held');
        const before = received;
        for (let i = 0; i < QUEUE_MAX; i++) sending.push(halfSentRequest());
        await waitFor(() => received === before + QUEUE_MAX, 10_000, 'the half-sent requests to arrive');

        // No one waits for a connection, yet there is no room: refused at once.
        expect(guard.stats().waiting).toBe(0);
        await expectRefusal(await call('/api/database/records/anything?id=eq.1'));
      });
      expect((await Promise.all(held)).map((r) => r.status)).toEqual(Array(POOL).fill(200));
      await waitFor(() => guard.stats().active === 0, 10_000, 'the connections to be released');
      // The same requests still in flight do not lock anyone out while the pool is free.
      expect((await gated()).status).toBe(200);
    } finally {
      for (const socket of sending) socket.destroy();
    }
  });
});
