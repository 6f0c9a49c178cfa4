// Idempotency-Key on function calls: the function runs once per key (per caller, per function),
// a retry answers its first answer (status, body, content headers; never cookies), 409 while the
// first call still runs, 422 for a different request with the same key.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';

let t: FunctionsApp;
let upstream: Server;
let hits = 0;
let holdSlow: Promise<void> = Promise.resolve();
let slowArrived: () => void = () => {};

beforeAll(async () => {
  // What the function calls: counts its calls, and holds a 'slow' one until the test lets it go.
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      hits++;
      const n = hits;
      if (body === 'slow') slowArrived();
      void (body === 'slow' ? holdSlow : Promise.resolve()).then(() => res.end(JSON.stringify({ hit: n, body })));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
  // The upstream is on loopback: the operator allows functions to reach it.
  t = await startFunctionsApp({ OUTBOUND_ALLOWED_ORIGINS: new URL(url).origin });
  const code = `export default async (req) => {
    const r = await fetch(${JSON.stringify(url)}, { method: 'POST', body: await req.text() });
    return new Response(await r.text(), { status: 201, headers: { 'content-type': 'application/json', 'set-cookie': 'session=abc' } });
  };`;
  const deployed = await t.deploy('counted', code);
  expect(deployed.statusCode, deployed.body).toBe(201);
}, 90_000);

afterAll(async () => {
  await t?.close();
  upstream?.close();
});

const invoke = (body: string, key?: string) =>
  fetch(`${t.baseUrl}/functions/counted`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.anonKey}`, ...(key ? { 'idempotency-key': key } : {}) },
    body,
  });

it('runs the function once per key and answers a retry with the first answer', async () => {
  const before = hits;
  const first = await invoke('a', 'call-key-1');
  expect(first.status).toBe(201);
  const firstBody = await first.json();
  expect(firstBody).toEqual({ hit: before + 1, body: 'a' });

  const retry = await invoke('a', 'call-key-1');
  expect(retry.status).toBe(201);
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  expect(retry.headers.get('content-type')).toBe('application/json');
  expect(retry.headers.get('set-cookie')).toBeNull();
  expect(await retry.json()).toEqual(firstBody);
  expect(hits).toBe(before + 1);

  const other = await invoke('b', 'call-key-1');
  expect(other.status).toBe(422);
  expect(await other.json()).toMatchObject({ error: 'IDEMPOTENCY_KEY_REUSED' });
  expect(hits).toBe(before + 1);

  const unkeyed = await invoke('a');
  expect(await unkeyed.json()).toEqual({ hit: before + 2, body: 'a' });
});

it('answers 409 with Retry-After while the first call with the key runs', async () => {
  let release: () => void = () => {};
  holdSlow = new Promise<void>((resolve) => (release = resolve));
  const arrived = new Promise<void>((resolve) => (slowArrived = resolve));
  const first = invoke('slow', 'slow-key');
  await arrived;
  try {
    const during = await invoke('slow', 'slow-key');
    expect(during.status).toBe(409);
    expect(during.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await during.json()).toMatchObject({ error: 'IDEMPOTENCY_KEY_IN_FLIGHT', statusCode: 409 });
  } finally {
    release();
  }
  const answered = await first;
  expect(answered.status).toBe(201);
  const body = await answered.json();
  const after = await invoke('slow', 'slow-key');
  expect(await after.json()).toEqual(body);
});
