// Graceful shutdown of the real server process: SIGTERM (even relayed twice) while an upload is
// still streaming in lets that upload finish (201, its row stored), refuses new connections, and the process exits 0.
import { request } from 'node:http';
import { connect } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../harness/test-database.js';
import { spawnServer, pollUntil, type ServerProcess } from '../../harness/server-process.js';

let server: ServerProcess | undefined;
let databaseUrl: string;

beforeAll(async () => {
  databaseUrl = await createDatabase();
  server = await spawnServer({ env: { DATABASE_URL: databaseUrl, SHUTDOWN_GRACE_MS: '20000' } });
  await server.waitForOutput('Plinth is listening');
});
afterAll(() => server?.close({ stopSignal: 'SIGKILL' }));

/** Whether a new TCP connection to the port is accepted. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('SIGTERM', () => {
  it('finishes an upload that is still streaming in (also when the signal arrives twice at once), refuses new connections, then exits 0', async () => {
    const s = server!;
    const apiKey = s.printedApiKey();
    const bucket = await fetch(`${s.baseUrl}/api/storage/buckets`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ bucketName: 'uploads', isPublic: false }),
    });
    expect(bucket.status).toBe(201);

    const half = Buffer.alloc(128 * 1024, 'a');
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: s.port,
          method: 'POST',
          path: '/api/storage/buckets/uploads/objects',
          headers: {
            'x-api-key': apiKey,
            'content-type': 'application/octet-stream',
            'content-length': half.length * 2,
          },
        },
        (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write(half, () => {
        void (async () => {
          // The first half is on the wire and the server has begun the upload (it noted the blob
          // it stages; a request it had not read yet would be refused as new): stop the server,
          // and send the rest once it is draining.
          const probe = postgres(databaseUrl, { max: 1, onnotice: () => {} });
          try {
            await pollUntil(
              'the upload to be staging',
              10_000,
              async () => (await probe`select count(*)::int as n from storage.pending_blobs`)[0]?.n > 0,
            );
          } finally {
            await probe.end();
          }
          const signalledAt = Date.now();
          s.child.kill('SIGTERM');
          void s.exited.then(() => console.log(`drain: exited ${Date.now() - signalledAt} ms after SIGTERM`));
          await s.waitForOutput('shutting down', 10_000);
          // A copy of the stop arrives a moment later, as when the whole process group is
          // signalled (Ctrl-C, systemd) and npm/tsx relay theirs: still the same drain.
          s.child.kill('SIGTERM');
          await pollUntil('new connections to be refused', 5_000, async () => !(await accepts(s.port)));
          req.end(half);
        })().catch(reject);
      });
    });

    const res = await answer;
    expect(res.status, res.body).toBe(201);
    const { key } = JSON.parse(res.body) as { key: string };
    expect(await s.exited).toEqual({ code: 0, signal: null });

    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql`select size from storage.objects where bucket = 'uploads' and key = ${key}`;
      expect(rows.map((r) => Number(r.size))).toEqual([half.length * 2]);
    } finally {
      await sql.end();
    }
  });
});
