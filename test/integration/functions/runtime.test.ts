// The Deno runtime under stress: killed mid-request (502, then recovery without restarting the
// server), timeouts (504), a looping function beside working ones, the memory cap, permission
// denials, streamed responses, and secrets reaching running functions.
import { once } from 'node:events';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';
import { bearer } from '../../harness/test-app.js';

const TIMEOUT_MS = 1500;
let t: FunctionsApp;

/** A loopback peer functions call: /hit/<name> tells the test, /gate/<name> waits for it. */
const peer = (() => {
  const hits = new Map<string, () => void>();
  const gates = new Map<string, () => void>();
  const opened = new Set<string>();
  const server = http.createServer((req, res) => {
    const [, kind, name = ''] = req.url!.split('/');
    if (kind === 'hit') {
      hits.get(name)?.();
      res.end('ok');
    } else if (opened.has(name)) res.end('open');
    else gates.set(name, () => res.end('open'));
  });
  return {
    server,
    url: () => `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    hit: (name: string) => new Promise<void>((resolve) => hits.set(name, resolve)),
    open: (name: string) => {
      opened.add(name);
      gates.get(name)?.();
    },
  };
})();

beforeAll(async () => {
  await new Promise<void>((resolve) => peer.server.listen(0, '127.0.0.1', resolve));
  // The peer is on loopback, which functions reach only when the operator allows its origin.
  t = await startFunctionsApp({
    FUNCTIONS_TIMEOUT_MS: String(TIMEOUT_MS),
    FUNCTIONS_MEMORY_MB: '64',
    OUTBOUND_ALLOWED_ORIGINS: peer.url(),
  });
  await t.deploy('hello', 'export default () => new Response("hello");');
});
afterAll(async () => {
  await t?.close();
  peer.server.closeAllConnections();
  await new Promise((resolve) => peer.server.close(resolve));
});

const invoke = (slug: string, init: RequestInit = {}) =>
  fetch(`${t.baseUrl}/functions/${slug}`, {
    ...init,
    headers: { ...bearer(t.anonKey), ...(init.headers as Record<string, string>) },
  });

/** Waits for the supervisor to bring up a runtime other than the one with this pid. */
async function untilRestarted(oldPid: number | undefined) {
  await vi.waitFor(
    () => {
      expect(t.deps.runtime.pid).not.toBe(oldPid);
      expect(t.deps.runtime.status).toBe('running');
    },
    { timeout: 20_000, interval: 50 },
  );
}

describe('a runtime that dies', () => {
  it('answers 502 for the request in flight and while down, then recovers without a server restart', async () => {
    await t.deploy(
      'hang',
      'export default async (req) => { await fetch(new URL(req.url).searchParams.get("peer") + "/hit/hang"); return await new Promise(() => {}); };',
    );
    const reached = peer.hit('hang');
    const inFlight = invoke(`hang?peer=${encodeURIComponent(peer.url())}`);
    await reached;
    const pid = t.deps.runtime.pid;
    process.kill(pid!, 'SIGKILL');

    const res = await inFlight;
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: 'UPSTREAM_FAILURE', statusCode: 502, message: expect.any(String) });
    const list = await t.request({ method: 'GET', url: '/api/functions', headers: { 'x-api-key': t.apiKey } });
    if (t.deps.runtime.status !== 'running') expect(list.json.runtime).toEqual({ status: 'unavailable' });

    await untilRestarted(pid);
    // Every function was deployed again to the new runtime before it counted as running.
    expect(await (await invoke('hello')).text()).toBe('hello');
  });
});

describe('deadlines and isolation', () => {
  it('answers 504 when a function runs past the timeout, and a looping function does not block others', async () => {
    await t.deploy('loop', 'export default () => { for (;;) {} };');
    const order: string[] = [];
    const looping = invoke('loop').then(async (res) => {
      order.push('loop');
      return { status: res.status, body: await res.json() };
    });
    // While the loop spins in its worker, other functions answer.
    for (let i = 0; i < 3; i++) expect(await (await invoke('hello')).text()).toBe('hello');
    order.push('hello');
    const { status, body } = await looping;
    expect(order).toEqual(['hello', 'loop']);
    expect(status).toBe(504);
    expect(body).toMatchObject({
      error: 'GATEWAY_TIMEOUT',
      statusCode: 504,
      message: expect.stringContaining(`${TIMEOUT_MS} ms`),
    });
    // The looping worker was ended; its function and the others still serve.
    expect(await (await invoke('hello')).text()).toBe('hello');
  });

  it('a function that exceeds the memory cap fails; the runtime comes back', async () => {
    await t.deploy(
      'hog',
      'export default () => { const a = []; for (;;) a.push(new Array(1e6).fill(Math.random())); };',
    );
    const pid = t.deps.runtime.pid;
    const res = await invoke('hog');
    expect(res.status).toBe(502);
    await untilRestarted(pid);
    expect(await (await invoke('hello')).text()).toBe('hello');
  });
});

describe('permissions', () => {
  it.each([
    ['read a file', 'await Deno.readTextFile("/etc/hostname")'],
    ['write a file', 'await Deno.writeTextFile("/tmp/plinth-fn-was-here", "x")'],
    ['spawn a process', 'await new Deno.Command("/bin/sh", { args: ["-c", "true"] }).output()'],
    ['list a directory', 'Deno.readDirSync("/")'],
    ['listen for connections', 'Deno.listen({ port: 0 }).close()'],
    ['serve HTTP of its own', 'await Deno.serve({ port: 0 }, () => new Response("x")).shutdown()'],
  ])('a function trying to %s is denied', async (_label, attempt) => {
    const slug = `deny-${_label.replace(/\W+/g, '-')}`;
    await t.deploy(
      slug,
      `export default async () => {\n  try { ${attempt}; return new Response("allowed"); }\n  catch (e) { return new Response(String(e.name) + ": " + e.message, { status: 403 }); }\n};`,
    );
    const res = await invoke(slug);
    const text = await res.text();
    expect(res.status, text).toBe(403);
    expect(text).toMatch(/NotCapable|PermissionDenied/);
  });

  it('a function holds the network permission and no other', async () => {
    await t.deploy(
      'perms',
      `export default async () => {
      const names = ["net", "read", "write", "run", "env", "ffi", "sys", "import"];
      const states = {};
      for (const name of names) states[name] = (await Deno.permissions.query({ name })).state;
      return Response.json(states);
    };`,
    );
    const states = await (await invoke('perms')).json();
    expect(states.net).toBe('granted');
    for (const name of ['read', 'write', 'run', 'env', 'ffi', 'sys']) expect(states[name], name).not.toBe('granted');
  });

  it('Deno.env shows non-reserved secrets, the base URL and the anon key, never the platform keys', async () => {
    await t.deps
      .sql`insert into system.secrets (key, value_ciphertext) values ('STRIPE_LIKE_KEY', ${t.deps.keyring.seal('sk_visible')})`;
    await t.deps
      .sql`insert into system.secrets (key, value_ciphertext, is_active) values ('OLD_KEY', ${t.deps.keyring.seal('old')}, false)`;
    await t.deploy('env', 'export default () => Response.json(Deno.env.toObject());');
    let env: Record<string, string> = {};
    await vi.waitFor(
      async () => {
        // The signal every secret write sends (the rows above were written behind the API's back),
        // sent again on each try: a runtime still subscribing when the first one went out hears a later one.
        await t.deps.sql`select pg_notify('plinth_secrets', 'STRIPE_LIKE_KEY')`;
        env = await (await invoke('env')).json();
        expect(env).toEqual({
          STRIPE_LIKE_KEY: 'sk_visible',
          SVC_BASE_URL: t.baseUrl,
          // The reference platform's names for the base URL (issue 15): functions written for it read them.
          BACKEND_INTERNAL_URL: t.baseUrl,
          INSFORGE_BASE_URL: t.baseUrl,
          INSFORGE_INTERNAL_URL: t.baseUrl,
          ANON_KEY: t.anonKey,
          // Supabase's names (issue 35): functions written for Supabase read them.
          SUPABASE_URL: t.baseUrl,
          SUPABASE_ANON_KEY: t.anonKey,
        });
      },
      { timeout: 20_000, interval: 20 },
    );
    for (const reserved of [
      'API_KEY',
      'SUPABASE_SERVICE_ROLE_KEY',
      'JWT_PRIVATE_KEY',
      'ADMIN_PASSWORD',
      'PATH',
      'HOME',
    ])
      expect(env[reserved]).toBeUndefined();
  });

  it('a secret change reaches running functions through NOTIFY plinth_secrets', async () => {
    await t.deploy('one-secret', 'export default () => new Response(Deno.env.get("ROTATING") ?? "unset");');
    expect(await (await invoke('one-secret')).text()).toBe('unset');
    await t.deps
      .sql`insert into system.secrets (key, value_ciphertext) values ('ROTATING', ${t.deps.keyring.seal('first')})`;
    await t.deps.sql`select pg_notify('plinth_secrets', 'ROTATING')`;
    await vi.waitFor(async () => expect(await (await invoke('one-secret')).text()).toBe('first'), {
      timeout: 20_000,
      interval: 50,
    });
  });

  it('a function can call back into Plinth with SVC_BASE_URL and the anon key', async () => {
    await t.deploy(
      'callback',
      `export default async () => {
      const res = await fetch(Deno.env.get("SVC_BASE_URL") + "/api/auth/public-config", { headers: { authorization: "Bearer " + Deno.env.get("ANON_KEY") } });
      return new Response(String(res.status));
    };`,
    );
    expect(await (await invoke('callback')).text()).toBe('200');
  });
});

describe('streaming', () => {
  it('streams the response: the first chunk arrives while the function still waits', async () => {
    await t.deploy(
      'stream',
      `export default (req) => {
      const peer = new URL(req.url).searchParams.get("peer");
      const body = new ReadableStream({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode("first\\n"));
          await (await fetch(peer + "/gate/stream")).text();
          controller.enqueue(new TextEncoder().encode("second\\n"));
          controller.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    };`,
    );
    const res = await invoke(`stream?peer=${encodeURIComponent(peer.url())}`);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('first\n');
    peer.open('stream');
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(rest).toBe('second\n');
  });

  it("a caller that goes away cancels the function's response stream", async () => {
    await t.deploy(
      'endless',
      `export default (req) => {
      const peer = new URL(req.url).searchParams.get("peer");
      let timer;
      const body = new ReadableStream({
        start(controller) {
          timer = setInterval(() => controller.enqueue(new TextEncoder().encode("tick\\n")), 5);
        },
        async cancel() {
          clearInterval(timer);
          await fetch(peer + "/hit/cancelled");
        },
      });
      return new Response(body);
    };`,
    );
    const cancelled = peer.hit('cancelled');
    // A connection of its own (node:http), closed by the test: fetch's pool would keep another open.
    const req = http.get(`${t.baseUrl}/functions/endless?peer=${encodeURIComponent(peer.url())}`, {
      agent: false,
      headers: bearer(t.anonKey),
    });
    const res = await new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve));
    const [first] = (await once(res, 'data')) as [Buffer];
    expect(first.toString()).toContain('tick');
    req.destroy();
    await cancelled;
  });
});

describe('backpressure', () => {
  it('a function producing faster than its caller reads is held back, not buffered without bound', async () => {
    const CHUNK = 64 * 1024;
    await t.deploy(
      'firehose',
      `let produced = 0;
      export default (req) => {
        if (new URL(req.url).searchParams.has("count")) return new Response(String(produced));
        return new Response(new ReadableStream({
          pull(controller) { produced++; controller.enqueue(new Uint8Array(${CHUNK})); },
        }));
      };`,
    );
    const pid = t.deps.runtime.pid;
    const req = http.get(`${t.baseUrl}/functions/firehose`, { agent: false, headers: bearer(t.anonKey) });
    const res = await new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve));
    await once(res, 'data');
    res.pause();
    // While the caller reads nothing, the function is only asked for what the sockets hold.
    let count = 0;
    for (let i = 0; i < 20; i++) count = Number(await (await invoke('firehose?count')).text());
    expect(count).toBeGreaterThan(0);
    expect(count * CHUNK).toBeLessThan(48 * 1024 * 1024);
    // …and the runtime never had to be restarted for it (its memory cap is 64 MB here).
    expect(t.deps.runtime.pid).toBe(pid);
    req.destroy();
  });
});

describe('several servers', () => {
  it("a deploy on one server reaches another server's runtime through NOTIFY", async () => {
    const other = await t.startAnotherServer();
    try {
      await other.deps.runtime.start();
      await t.deploy('shared', 'export default () => new Response("v1");');
      const call = () => other.app.inject({ method: 'GET', url: '/functions/shared', headers: bearer(t.anonKey) });
      await vi.waitFor(async () => expect((await call()).body).toBe('v1'), { timeout: 20_000, interval: 50 });
      await t.request({
        method: 'PUT',
        url: '/api/functions/shared',
        headers: { 'x-api-key': t.apiKey },
        payload: { code: 'export default () => new Response("v2");' },
      });
      await vi.waitFor(async () => expect((await call()).body).toBe('v2'), { timeout: 20_000, interval: 50 });
      await t.request({ method: 'DELETE', url: '/api/functions/shared', headers: { 'x-api-key': t.apiKey } });
      await vi.waitFor(async () => expect((await call()).statusCode).toBe(404), { timeout: 20_000, interval: 50 });
    } finally {
      await other.close();
    }
  });
});
