// What a function may reach on the network (issue 32, finding 15): not the database, nor any
// other loopback, private or link-local address (by literal, by name, or by raw socket), but
// Plinth's own API, and loopback origins the operator allows (OUTBOUND_ALLOWED_ORIGINS).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';
import { bearer } from '../../harness/test-app.js';

/** A loopback HTTP server that counts the requests it saw. */
async function peer() {
  const seen = { count: 0 };
  const server = http.createServer((req, res) => {
    seen.count += 1;
    res.end(JSON.stringify({ path: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, seen, port: (server.address() as AddressInfo).port };
}

let t: FunctionsApp;
let allowed: Awaited<ReturnType<typeof peer>>;
let other: Awaited<ReturnType<typeof peer>>;

beforeAll(async () => {
  allowed = await peer();
  other = await peer();
  t = await startFunctionsApp({ OUTBOUND_ALLOWED_ORIGINS: `http://127.0.0.1:${allowed.port}` });
  // Fetches ?url= (relative to the API's base URL when it starts with /) and tells what happened.
  await t.deploy(
    'reach',
    `export default async (req) => {
      const asked = new URL(req.url).searchParams.get('url');
      const url = asked.startsWith('/') ? Deno.env.get('SVC_BASE_URL') + asked : asked;
      try {
        const res = await fetch(url);
        return Response.json({ status: res.status, body: await res.text() });
      } catch (err) {
        return Response.json({ refused: String(err) + ' ' + String(err.cause ?? '') });
      }
    };`,
  );
  await t.deploy(
    'connect',
    `export default async (req) => {
      const q = new URL(req.url).searchParams;
      try {
        const conn = await Deno.connect({ hostname: q.get('host'), port: Number(q.get('port')) });
        conn.close();
        return Response.json({ connected: true });
      } catch (err) {
        return Response.json({ refused: err.name });
      }
    };`,
  );
}, 120_000);
afterAll(async () => {
  await t?.close();
  allowed?.server.close();
  other?.server.close();
});

async function reach(url: string) {
  const res = await fetch(`${t.baseUrl}/functions/reach?url=${encodeURIComponent(url)}`, {
    headers: bearer(t.anonKey),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { status?: number; body?: string; refused?: string };
}

const databasePort = () => Number(new URL(t.databaseUrl).port || 5432);

describe('a function cannot reach internal addresses', () => {
  it('not the database port, by fetch or by raw socket', async () => {
    expect((await reach(`http://127.0.0.1:${databasePort()}/`)).refused).toMatch(/Requires net access/);
    const res = await fetch(`${t.baseUrl}/functions/connect?host=127.0.0.1&port=${databasePort()}`, {
      headers: bearer(t.anonKey),
    });
    expect(await res.json()).toEqual({ refused: 'NotCapable' });
  });

  it('not another loopback port: by literal, by localhost names, by IPv6 or IPv4-mapped IPv6', async () => {
    for (const url of [
      `http://127.0.0.1:${other.port}/`,
      `http://127.1.2.3:${other.port}/`,
      `http://localhost:${other.port}/`,
      `http://[::1]:${other.port}/`,
      `http://[::ffff:127.0.0.1]:${other.port}/`,
      `http://2130706433:${other.port}/`,
      `http://0.0.0.0:${other.port}/`,
    ]) {
      expect((await reach(url)).refused, url).toMatch(/Requires net access/);
    }
    for (const host of ['localhost', '::1']) {
      const res = await fetch(`${t.baseUrl}/functions/connect?host=${host}&port=${other.port}`, {
        headers: bearer(t.anonKey),
      });
      expect(await res.json(), host).toEqual({ refused: 'NotCapable' });
    }
    expect(other.seen.count).toBe(0);
  });

  it('not private, link-local (metadata) or shared addresses, refused before any connection', async () => {
    for (const url of [
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.0.1/',
      'http://192.168.1.1/',
    ]) {
      expect((await reach(url)).refused, url).toMatch(/NotCapable: Requires net access/);
    }
  });

  it("not the runtime's own port", async () => {
    expect((await reach(`http://127.0.0.1:${t.deps.runtime.port}/health`)).refused).toMatch(/Requires net access/);
  });
});

describe('what a function still reaches', () => {
  it("Plinth's own API at its base URL", async () => {
    const answer = await reach('/api/health');
    expect(answer.status).toBe(200);
  });

  it('a loopback origin the operator allows', async () => {
    const answer = await reach(`http://127.0.0.1:${allowed.port}/hello?x=1`);
    expect(answer).toEqual({ status: 200, body: JSON.stringify({ path: '/hello?x=1' }) });
    expect(allowed.seen.count).toBe(1);
  });
});
