// SIGTERM sent to a listening server while slow uploads stream and inserts run: the uploads in
// flight complete, the process exits 0 within its grace period, and a server started again on the
// same data finds every acknowledged write. Ctrl-C to the whole process group (the terminal's way)
// while a function call is in flight: the runtime, in a group of its own, finishes the call.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../harness/test-database.js';
import { pollUntil, startServerProcess, type ServerProcess } from '../harness/server-process.js';
import { startDatabaseRelay } from '../harness/tcp-relay.js';
import { FORMS } from './forms.js';
import { sigtermDuringUploads } from './process-faults.js';
import { BUCKET, DEADLINES, apiKeyHeaders, createFixtures, lostWrites } from './workload.js';

const form = FORMS.short;
const GRACE_MS = Number(DEADLINES.SHUTDOWN_GRACE_MS);
const started: ServerProcess[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.close();
});

describe('SIGTERM during slow uploads and inserts', () => {
  it(`finishes the uploads in flight, exits 0 within the grace period (${GRACE_MS} ms), and loses no acknowledged write`, async () => {
    const s = await startServerProcess({ databaseUrl: await createDatabase(), env: DEADLINES });
    started.push(s);
    await createFixtures(s);
    const result = await sigtermDuringUploads(s, { clients: 8, uploads: form.slowUploads });

    expect.soft(result.exit, s.output().slice(-3000)).toEqual({ code: 0, signal: null });
    expect.soft(result.exitMs).toBeLessThan(GRACE_MS + 5_000);
    expect
      .soft(
        result.uploads.map((u) => u.status),
        JSON.stringify(result.uploads),
      )
      .toEqual(result.uploads.map(() => 200));
    expect(result.tally.hangs).toBe(0);

    // The same data, served again: every acknowledged write is there, the slow uploads intact.
    const again = await startServerProcess({ reuse: s });
    started.push(again);
    expect(await lostWrites(again, result.tally)).toEqual({ rows: [], objects: [] });
    for (const u of result.uploads.filter((x) => x.status === 200)) {
      const res = await fetch(`${again.baseUrl}/api/storage/buckets/${BUCKET}/objects/${u.key}`, {
        headers: apiKeyHeaders(again),
      });
      expect(res.status).toBe(200);
      expect(
        createHash('sha256')
          .update(Buffer.from(await res.arrayBuffer()))
          .digest('hex'),
      ).toBe(u.sha);
    }
  }, 90_000);
});

describe('Ctrl-C to the process group while a function call waits on its upstream', () => {
  it('lets the call finish with its answer, stops the runtime without a restart, and exits 0', async () => {
    // The function's upstream: holds the first request until the test lets it go.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let upstreamHit: () => void = () => {};
    const hit = new Promise<void>((resolve) => (upstreamHit = resolve));
    const upstream = createServer((_req, res) => {
      upstreamHit();
      void released.then(() => res.end('upstream answer'));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
    try {
      // The upstream is on loopback: the operator allows functions to reach it.
      const s = await startServerProcess({
        databaseUrl: await createDatabase(),
        env: { ...DEADLINES, OUTBOUND_ALLOWED_ORIGINS: new URL(upstreamUrl).origin },
      });
      started.push(s);
      const code = `export default async () => new Response('got ' + await (await fetch(${JSON.stringify(upstreamUrl)})).text());`;
      const deploy = await fetch(`${s.baseUrl}/api/functions`, {
        method: 'POST',
        headers: { ...apiKeyHeaders(s), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'waits', slug: 'waits', code }),
      });
      expect(deploy.status, await deploy.text()).toBe(201);

      const call = fetch(`${s.baseUrl}/functions/waits`, { method: 'POST', headers: apiKeyHeaders(s) }).then(
        async (res) => ({ status: res.status, body: await res.text() }),
      );
      await hit;
      process.kill(-s.pid, 'SIGINT');
      // Draining: the listener is closed, so a new connection is refused.
      await pollUntil('new connections to be refused', 10_000, () =>
        fetch(`${s.baseUrl}/api/health`).then(
          () => false,
          () => true,
        ),
      );
      release();

      expect(await call).toEqual({ status: 200, body: 'got upstream answer' });
      expect(await s.exited).toEqual({ code: 0, signal: null });
      expect(s.output()).not.toMatch(/function runtime exited .*restarting/);
    } finally {
      upstream.close();
    }
  }, 90_000);
});

describe('SIGTERM while the database has stopped answering', () => {
  it('answers the request in flight with 503 and exits 1 within its bounds, saying why', async () => {
    const graceMs = 2_000;
    const relay = await startDatabaseRelay(await createDatabase());
    try {
      const s = await startServerProcess({
        databaseUrl: relay.databaseUrl,
        env: { ...DEADLINES, REQUEST_TIMEOUT_MS: '1000', SHUTDOWN_GRACE_MS: String(graceMs) },
      });
      started.push(s);
      for (let i = 0; i < 5; i++)
        expect((await fetch(`${s.baseUrl}/api/metadata`, { headers: apiKeyHeaders(s) })).status).toBe(200);
      // Every connection stays open and PostgreSQL's replies stop: a database that hangs, not one that is gone.
      relay.withholdReplies();
      const written = relay.nextClientWrite();
      const inFlight = fetch(`${s.baseUrl}/api/metadata`, { headers: apiKeyHeaders(s) }).then((res) => res.status);
      // A step that never happens fails the test at once, with the server's own account of it.
      const within = <T>(what: string, ms: number, work: Promise<T>) =>
        Promise.race([
          work,
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error(`${what}: not within ${ms} ms\n${s.output().slice(-4000)}`)), ms),
          ),
        ]);
      await within('the request to reach the database', 10_000, Promise.race([written, inFlight]));
      const signalled = Date.now();
      s.signal('SIGTERM');

      expect(await within('an answer to the request in flight', 10_000, inFlight)).toBe(503);
      const exit = await within('the exit', 30_000, s.exited);
      const stopMs = Date.now() - signalled;
      // The grace period for requests, as long again (at least 5 s) for the modules' closing work,
      // which waits on the database, then at most 5 s to close the pool: an unclean stop, said so, but an end.
      expect(stopMs, s.output().slice(-3000)).toBeLessThan(graceMs + 5_000 + 5_000 + 3_000);
      expect(exit).toEqual({ code: 1, signal: null });
      expect(s.output()).toMatch(/closing the modules did not finish in time after the grace period/);
    } finally {
      await relay.close();
    }
  }, 90_000);
});
