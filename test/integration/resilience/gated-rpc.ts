// A listening app with two RPC functions for admission tests: `quick` answers at once and
// `wait_for_gate` waits on an advisory lock the test holds, so a test can keep any number of
// requests in flight (holding a connection or waiting for one) and then let them all answer.
// Latency is measured on the app's manual clock.
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';
import { guardOf } from '../../../src/core/db.js';
import { MIN_SAMPLES } from '../../../src/http/concurrency-limit.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { waitFor } from './fault-driver.js';

interface GatedRpc {
  app: TestApp;
  call(fn: 'quick' | 'wait_for_gate'): Promise<Response>;
  /** One window of ordinary load: the clock moved past `windowMs`, then a window's worth of quick calls one after another. */
  quickWindow(): Promise<number[]>;
  /** Holds `n` gated calls in flight (connections held, the rest waiting) during `body`; their statuses. */
  holding(n: number, body?: () => Promise<void>): Promise<number[]>;
  close(): Promise<void>;
}

/** `gate`: the advisory lock key, distinct per file (files share the test database server). */
async function startGatedRpc(env: Record<string, string>, gate: number, name: string): Promise<GatedRpc> {
  const app = await startTestApp({ env });
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;
  const admin = postgres(app.databaseUrl, { max: 2, onnotice: () => {}, connection: { application_name: name } });
  await admin.unsafe(`
    create function public.wait_for_gate() returns int language sql volatile as $$ select pg_advisory_xact_lock(${gate}); select 1 $$;
    create function public.quick() returns int language sql volatile as $$ select 1 $$;
    grant execute on function public.wait_for_gate() to anon;
    grant execute on function public.quick() to anon;
  `);
  const windowMs = Number(env.ADMISSION_WINDOW_MS);

  const call = (fn: 'quick' | 'wait_for_gate') =>
    fetch(`${baseUrl}/api/database/rpc/${fn}`, {
      method: 'POST',
      body: '{}',
      headers: { authorization: `Bearer ${app.anonKey}`, 'content-type': 'application/json' },
      signal: AbortSignal.timeout(15_000),
    });

  return {
    app,
    call,
    async quickWindow() {
      app.clock.advance(windowMs);
      const statuses: number[] = [];
      for (let i = 0; i < MIN_SAMPLES; i++) statuses.push((await call('quick')).status);
      return statuses;
    },
    async holding(n, body = async () => {}) {
      const guard = guardOf(app.deps.sql);
      const lock = await admin.reserve();
      await lock`select pg_advisory_lock(${gate})`;
      let calls: Promise<Response>[] = [];
      try {
        calls = Array.from({ length: n }, () => call('wait_for_gate'));
        await waitFor(() => guard.stats().active + guard.stats().waiting === n, 10_000, `${n} calls to hold or wait`);
        await body();
      } finally {
        await lock`select pg_advisory_unlock(${gate})`;
        lock.release();
      }
      return (await Promise.all(calls)).map((r) => r.status);
    },
    async close() {
      await admin.end();
      await app.close();
    },
  };
}

/** The file's gated app, started before its tests and closed after them. */
export function useGatedRpc(env: Record<string, string>, gate: number, name: string): Omit<GatedRpc, 'close'> {
  let started: GatedRpc | undefined;
  const current = () => {
    if (!started) throw new Error('the gated app starts in beforeAll');
    return started;
  };
  beforeAll(async () => {
    started = await startGatedRpc(env, gate, name);
  });
  afterAll(async () => {
    await started?.close();
  });
  return {
    get app() {
      return current().app;
    },
    call: (fn) => current().call(fn),
    quickWindow: () => current().quickWindow(),
    holding: (n, body) => current().holding(n, body),
  };
}
