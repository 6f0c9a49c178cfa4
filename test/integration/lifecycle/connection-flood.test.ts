// A flood of idle connections against the real server run under a small open-file limit: the
// connection cap keeps files for real work (an upload on a connection within the cap succeeds),
// and with the cap lifted the function runtime's restarts fail without taking the process down.
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openIdleConnections } from '../../harness/idle-connections.js';
import { createDatabase } from '../../harness/test-database.js';
import { spawnServer, pollUntil, type ServerProcess } from '../../harness/server-process.js';

const FILE_LIMIT = 256;
const FLOOD = 400;

let server: ServerProcess | undefined;
const flood: Socket[] = [];
afterEach(async () => {
  for (const socket of flood.splice(0)) socket.destroy();
  await server?.close({ stopSignal: 'SIGKILL' });
  server = undefined;
});

/** A request on the given keep-alive agent (one socket: opened before the flood). */
function send(
  agent: Agent,
  s: ServerProcess,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ agent, host: '127.0.0.1', port: s.port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function startFlooded(env: Record<string, string>) {
  server = await spawnServer({
    fileLimit: FILE_LIMIT,
    env: { DATABASE_URL: await createDatabase(), LOG_LEVEL: 'warn', ...env },
  });
  await server.waitForOutput('Plinth is listening');
  const s = server;
  const apiKey = s.printedApiKey();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const admin = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  const bucket = await send(
    agent,
    s,
    'POST',
    '/api/storage/buckets',
    admin,
    Buffer.from(JSON.stringify({ bucketName: 'files' })),
  );
  expect(bucket.status, bucket.body).toBe(201);
  return { s, agent, apiKey };
}

describe('a connection flood past the open-file limit', () => {
  it('is capped: an upload on a connection within the cap succeeds and the server stays up', async () => {
    const { s, agent, apiKey } = await startFlooded({});
    flood.push(...(await openIdleConnections(s.port, FLOOD)));
    // A few answers on the old connection: the server has accepted (or refused) the flood by then.
    for (let i = 0; i < 3; i++) expect((await send(agent, s, 'GET', '/api/health', {})).status).toBe(200);
    // The cap under this limit is (256 - 64) / 2 = 96: the server closes the connections past it.
    await pollUntil(
      'connections past the cap to be closed',
      30_000,
      () => flood.filter((socket) => socket.destroyed).length >= FLOOD - 96,
    );
    const refused = flood.filter((socket) => socket.destroyed).length;
    const upload = await send(
      agent,
      s,
      'POST',
      '/api/storage/buckets/files/objects',
      { 'x-api-key': apiKey, 'content-type': 'application/octet-stream' },
      Buffer.alloc(4096, 'x'),
    );
    expect(upload.status, upload.body).toBe(201);
    const ready = await send(agent, s, 'GET', '/api/health/ready', {});
    expect(ready.status, ready.body).toBe(200);
    console.log(
      `flood: ${FLOOD} idle connections under ulimit -n ${FILE_LIMIT}; ${refused} closed by the server so far`,
    );
    expect(s.child.exitCode).toBeNull();
    agent.destroy();
  }, 120_000);

  it('without the cap, the runtime cannot restart (EMFILE) but the process lives, and the runtime comes back', async () => {
    const { s, agent } = await startFlooded({
      MAX_CONNECTIONS: '100000',
      FUNCTIONS_HEALTH_INTERVAL_MS: '100',
      LOG_LEVEL: 'info',
    });
    await s.waitForOutput('function runtime running on', 60_000);
    flood.push(...(await openIdleConnections(s.port, FLOOD)));
    // The runtime dies while no file descriptor is left: starting it again fails (EMFILE).
    process.kill(s.children().find((child) => child.command.includes('deno'))!.pid, 'SIGKILL');
    await s.waitForOutput('the function runtime could not be started', 60_000);
    const during = JSON.parse((await send(agent, s, 'GET', '/api/health', {})).body);
    expect(during.status).toBe('ok');
    for (const socket of flood.splice(0)) socket.destroy();
    await pollUntil('the runtime to run again', 60_000, async () => {
      const ready = JSON.parse((await send(agent, s, 'GET', '/api/health/ready', {})).body);
      return ready.functionsRuntime?.status === 'running' && ready.functionsRuntime.restarts > 0;
    });
    expect(s.child.exitCode).toBeNull();
    agent.destroy();
  }, 180_000);
});
