// A new version deployed while a call runs: the call finishes on the version it started on (its
// worker ends after it, not under it), and the calls after the deploy run the new version.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FunctionsApp, startFunctionsApp } from '../../harness/functions-app.js';

let t: FunctionsApp;
let upstream: Server;
let url = '';
let release: () => void = () => {};
let arrived: () => void = () => {};

beforeAll(async () => {
  // What the function calls: holds the call until the test lets it go.
  upstream = createServer((_req, res) => {
    const held = new Promise<void>((resolve) => (release = resolve));
    void held.then(() => res.end('upstream answer'));
    arrived();
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
  // The upstream is on loopback: the operator allows functions to reach it.
  // A deadline well within the test's, so a call cut off by the deploy fails with 504, not a timeout.
  t = await startFunctionsApp({ OUTBOUND_ALLOWED_ORIGINS: new URL(url).origin, FUNCTIONS_TIMEOUT_MS: '10000' });
}, 90_000);

afterAll(async () => {
  await t?.close();
  upstream?.closeAllConnections();
  upstream?.close();
});

const version = (name: string) =>
  `export default async () => new Response(${JSON.stringify(name)} + ': ' + await (await fetch(${JSON.stringify(url)})).text());`;
const invoke = () =>
  fetch(`${t.baseUrl}/functions/swapped`, { headers: { authorization: `Bearer ${t.anonKey}` } }).then(async (res) => ({
    status: res.status,
    body: await res.text(),
  }));

it('lets a call in flight finish on its version while the next calls run the new one', async () => {
  const deployed = await t.deploy('swapped', version('v1'));
  expect(deployed.statusCode, deployed.body).toBe(201);

  const reached = new Promise<void>((resolve) => (arrived = resolve));
  const inFlight = invoke();
  await reached;
  const updated = await t.request({
    method: 'PUT',
    url: '/api/functions/swapped',
    headers: { 'x-api-key': t.apiKey },
    payload: { code: version('v2') },
  });
  expect(updated.statusCode, updated.body).toBe(200);
  release();
  expect(await inFlight).toEqual({ status: 200, body: 'v1: upstream answer' });

  // The new version answers from now on (its upstream call is let go as it arrives).
  arrived = () => release();
  expect(await invoke()).toEqual({ status: 200, body: 'v2: upstream answer' });
});
