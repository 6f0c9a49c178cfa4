// Two servers on one database behind a loopback round-robin balancer, driven as a client would
// drive one, with the settings the README gives (the balancer's URL as API_BASE_URL, client IPs
// from X-Forwarded-For, objects in S3): sessions made on one server hold on the other, a
// migration's table is served by both, a function deploy and redeploy reach both runtimes, a
// user's file goes up through one server and is read and removed through both, realtime sockets on
// different servers hear each other, a schedule fires once however many servers tick, and a
// logout ends the token on both.
import { createClient, type InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createScheduler } from '../../../src/modules/schedules/index.js';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';
import { freePort } from '../../harness/free-port.js';
import { type Balancer, startBalancer } from '../../harness/balancer.js';
import { startS3Peer, type S3Peer } from '../../harness/s3-peer.js';
import type { Server } from '../../harness/test-app.js';

let t: FunctionsApp;
let other: Server;
let proxy: Balancer;
let peer: S3Peer;
const clients: InsForgeClient[] = [];

beforeAll(async () => {
  // The balancer first: both servers announce its URL as theirs (API_BASE_URL).
  const ports = [await freePort(), await freePort()];
  proxy = await startBalancer(ports.map((port) => `http://127.0.0.1:${port}`));
  peer = await startS3Peer();
  t = await startFunctionsApp({ ...peer.env, API_BASE_URL: proxy.url, TRUST_PROXY: 'true' }, ports[0]);
  other = await t.startAnotherServer();
  await other.app.listen({ port: ports[1]!, host: '127.0.0.1' });
  await other.deps.runtime.start();
});
afterAll(async () => {
  for (const client of clients) client.realtime.disconnect();
  await proxy?.close();
  await other?.close();
  await t?.close();
  await peer?.close();
});

/** The official client as an app makes it, pointed at the balancer. */
function client(accessToken?: string): InsForgeClient {
  const made = createClient({ baseUrl: proxy.url, anonKey: t.anonKey, retryCount: 0, accessToken });
  clients.push(made);
  return made;
}

/** One request through the balancer; `json` is the parsed body when there is one. */
async function call(method: string, path: string, options: { token?: string; apiKey?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(proxy.url + path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    // A request that never gets an answer fails here (and waitFor retries) rather than hanging.
    signal: AbortSignal.timeout(5_000),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** The same request `times` times in a row: round robin sends them to every server in turn. */
const onEveryServer = (times: number, request: () => ReturnType<typeof call>) =>
  Promise.all(Array.from({ length: times }, request));

describe('two servers behind a round-robin balancer', () => {
  let session: { accessToken: string; refreshToken: string; user: { id: string } };

  it('a session made on one server is current on both, and refreshes on either', async () => {
    const before = [...proxy.handled];
    const signUp = await call('POST', '/api/auth/users?client_type=mobile', {
      body: { email: 'scale-out@example.com', password: 'correct-horse-9' },
    });
    expect(signUp.status).toBe(200);
    session = signUp.json;
    for (const current of await onEveryServer(4, () =>
      call('GET', '/api/auth/sessions/current', { token: session.accessToken }),
    )) {
      expect(current.status).toBe(200);
      expect(current.json.user).toMatchObject({ id: session.user.id, email: 'scale-out@example.com' });
    }
    // Each refresh lands on the other server than the last; each rotation is seen by the next.
    for (let i = 0; i < 3; i++) {
      const refreshed = await call('POST', '/api/auth/refresh?client_type=mobile', {
        body: { refreshToken: session.refreshToken },
      });
      expect(refreshed.status).toBe(200);
      expect(refreshed.json.refreshToken).not.toBe(session.refreshToken);
      session = { ...session, ...refreshed.json };
    }
    expect(proxy.handled.every((n, i) => n - before[i]! >= 3)).toBe(true);
  });

  it("a migration's table is served by both servers at once, under row-level security", async () => {
    const migration = await call('POST', '/api/database/migrations', {
      apiKey: t.apiKey,
      body: {
        version: '20261125180001',
        name: 'scale-out-notes',
        sql: `create table public.scale_notes (
                id bigint generated by default as identity primary key,
                owner uuid not null default auth.uid(),
                body text not null);
              alter table public.scale_notes enable row level security;
              create policy own on public.scale_notes for all to authenticated
                using (owner = auth.uid()) with check (owner = auth.uid());
              grant select, insert on public.scale_notes to authenticated;`,
      },
    });
    expect(migration.status).toBe(201);
    const inserted = await onEveryServer(4, () =>
      call('POST', '/api/database/records/scale_notes', { token: session.accessToken, body: { body: 'hello' } }),
    );
    expect(inserted.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    for (const read of await onEveryServer(2, () =>
      call('GET', '/api/database/records/scale_notes?select=body,owner', { token: session.accessToken }),
    )) {
      expect(read.status).toBe(200);
      expect(read.json).toEqual(Array.from({ length: 4 }, () => ({ body: 'hello', owner: session.user.id })));
    }
  });

  it('a function deployed through one server runs on both; a redeploy reaches both', async () => {
    const deployed = await call('POST', '/api/functions', {
      apiKey: t.apiKey,
      body: { name: 'scale-hello', code: 'export default () => new Response("v1");' },
    });
    expect(deployed.status).toBe(201);
    const answers = async () =>
      (await onEveryServer(4, () => call('GET', '/functions/scale-hello', { token: t.anonKey }))).map((r) => r.text);
    // Each server loads the new function as its NOTIFY arrives: bounded wait, no sleep.
    await vi.waitFor(async () => expect(await answers()).toEqual(['v1', 'v1', 'v1', 'v1']), {
      timeout: 10_000,
      interval: 50,
    });
    const redeployed = await call('PUT', '/api/functions/scale-hello', {
      apiKey: t.apiKey,
      body: { code: 'export default () => new Response("v2");' },
    });
    expect(redeployed.status).toBe(200);
    await vi.waitFor(async () => expect(await answers()).toEqual(['v2', 'v2', 'v2', 'v2']), {
      timeout: 10_000,
      interval: 50,
    });
  });

  it("a user's file uploaded through one server is read through both and removed through either (S3)", async () => {
    const bucket = await call('POST', '/api/storage/buckets', {
      apiKey: t.apiKey,
      body: { bucketName: 'scale-docs', isPublic: false },
    });
    expect(bucket.status).toBe(201);
    const files = client(session.accessToken).storage.from('scale-docs');
    const up = await files.upload('notes/shared.txt', new Blob(['written once'], { type: 'text/plain' }));
    expect(up.error).toBeNull();
    expect(up.data).toMatchObject({
      key: 'notes/shared.txt',
      size: 12,
      url: `${proxy.url}/api/storage/buckets/scale-docs/objects/notes/shared.txt`,
    });
    // One request per download and round robin: both servers serve the bytes from the bucket.
    const before = [...proxy.handled];
    for (let i = 0; i < 4; i++) {
      const down = await files.download('notes/shared.txt');
      expect(down.error).toBeNull();
      expect(await down.data!.text()).toBe('written once');
    }
    expect(proxy.handled.every((n, i) => n - before[i]! >= 2)).toBe(true);
    expect(((await files.list()).data as unknown as { data: { key: string }[] }).data.map((o) => o.key)).toEqual([
      'notes/shared.txt',
    ]);
    expect((await files.remove('notes/shared.txt')).error).toBeNull();
    for (const gone of await onEveryServer(2, () =>
      call('GET', '/api/storage/buckets/scale-docs/objects/notes/shared.txt', { token: session.accessToken }),
    )) {
      expect(gone.status).toBe(404);
    }
    expect(await peer.keys()).toEqual([]);
  });

  it('realtime: sockets on different servers see each other in presence and hear each other', async () => {
    const channel = await call('POST', '/api/realtime/channels', { apiKey: t.apiKey, body: { pattern: 'scale:%' } });
    expect(channel.status).toBe(201);
    // Connected one after the other, the two sockets are upgraded on different servers.
    const [first, second] = [client(), client(session.accessToken)];
    await first.realtime.connect();
    await second.realtime.connect();
    expect(await first.realtime.subscribe('scale:room')).toMatchObject({ ok: true });
    const ack = (await second.realtime.subscribe('scale:room')) as { presence: { members: { presenceId: string }[] } };
    // An anonymous member is its socket; a signed-in one, its user.
    expect(ack.presence.members.map((m) => m.presenceId).sort()).toEqual(
      [first.realtime.socketId, session.user.id].sort(),
    );
    const servers = await t.deps
      .sql`select distinct server_id from realtime.presence where channel_name = 'scale:room'`;
    expect(servers).toHaveLength(2);

    // Publishers hear their own messages too: each waits for the other's.
    const hears = (by: InsForgeClient, text: string) =>
      new Promise<void>((resolve) => {
        const listener = (m: unknown) => {
          if ((m as { text?: string }).text !== text) return;
          by.realtime.off('note', listener);
          resolve();
        };
        by.realtime.on('note', listener);
      });
    const firstHears = hears(first, 'from the second server');
    const secondHears = hears(second, 'from the first server');
    await second.realtime.publish('scale:room', 'note', { text: 'from the second server' });
    await first.realtime.publish('scale:room', 'note', { text: 'from the first server' });
    await Promise.all([firstHears, secondHears]);
  });

  it('a schedule created through one server fires once when both servers tick at its due time', async () => {
    const deployed = await call('POST', '/api/functions', {
      apiKey: t.apiKey,
      body: { name: 'scale-cron', code: 'export default () => new Response("ticked");' },
    });
    expect(deployed.status).toBe(201);
    await vi.waitFor(
      async () =>
        expect(
          (await onEveryServer(2, () => call('GET', '/functions/scale-cron', { token: t.anonKey }))).map((r) => r.text),
        ).toEqual(['ticked', 'ticked']),
      { timeout: 10_000, interval: 50 },
    );
    const created = await call('POST', '/api/schedules', {
      apiKey: t.apiKey,
      body: { name: 'scale-out tick', cronSchedule: '10 seconds', functionSlug: 'scale-cron', httpMethod: 'POST' },
    });
    expect(created.status).toBe(201);
    const due = new Date((await call('GET', `/api/schedules/${created.json.id}`, { apiKey: t.apiKey })).json.nextRun);
    // Both servers share the test's clock: move it just past the due time and let both tick at once.
    t.clock.advance(due.getTime() - t.clock.now().getTime() + 250);
    const schedulers = [createScheduler(t.deps), createScheduler(other.deps)];
    try {
      const reports = await Promise.all(schedulers.map((s) => s.tick()));
      expect(reports.map((r) => r.started).sort()).toEqual([0, 1]);
    } finally {
      await Promise.all(schedulers.map((s) => s.stop()));
    }
    for (const history of await onEveryServer(2, () =>
      call('GET', `/api/schedules/${created.json.id}/logs`, { apiKey: t.apiKey }),
    )) {
      expect(history.json.totalCount).toBe(1);
      expect(history.json.logs[0]).toMatchObject({ dueAt: due.toISOString(), status: 'success', statusCode: 200 });
    }
  });

  it('a logout through one server ends the access token on both', async () => {
    const out = await call('POST', '/api/auth/logout?client_type=mobile', {
      token: session.accessToken,
      body: { refreshToken: session.refreshToken },
    });
    expect(out.status).toBe(200);
    await vi.waitFor(
      async () => {
        const after = await onEveryServer(2, () =>
          call('GET', '/api/auth/sessions/current', { token: session.accessToken }),
        );
        expect(after.map((r) => r.status)).toEqual([401, 401]);
      },
      { timeout: 20_000, interval: 20 },
    );
  });
});
