// SIGTERM sent to a listening server while slow uploads stream and inserts run: the uploads in
// flight complete, the process exits 0 within its grace period, and a server started again on the
// same data finds every acknowledged write.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../harness/test-app.js';
import { pollUntil, startServerProcess, type ServerProcess } from '../harness/server-process.js';
import { BUCKET, DEADLINES, HANG_MS, apiKeyHeaders, createFixtures, lostWrites, startWriters } from './workload.js';

const started: ServerProcess[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.close();
});

const GRACE_MS = Number(DEADLINES.SHUTDOWN_GRACE_MS);
const CHUNKS = 16;
const CHUNK_BYTES = 8 * 1024;

interface SlowUpload {
  key: string;
  sha: string;
  chunksSent: number;
  /** The status the server answered (0: the connection was cut, -1: no answer in time). */
  done: Promise<{ status: number; body: string }>;
}

/** PUTs an object a chunk every `paceMs`, the way a slow mobile client does. */
function slowUpload(s: ServerProcess, key: string, paceMs: number): SlowUpload {
  const chunks = Array.from({ length: CHUNKS }, () => randomBytes(CHUNK_BYTES));
  const upload: SlowUpload = { key, sha: createHash('sha256').update(Buffer.concat(chunks)).digest('hex'), chunksSent: 0, done: Promise.resolve({ status: 0, body: '' }) };
  upload.done = new Promise((resolve) => {
    const req = http.request(`${s.baseUrl}/api/storage/buckets/${BUCKET}/objects/${key}`, {
      method: 'PUT',
      headers: { ...apiKeyHeaders(s), 'content-type': 'application/octet-stream', 'content-length': String(CHUNKS * CHUNK_BYTES) },
      timeout: HANG_MS,
    });
    let timer: NodeJS.Timeout | undefined;
    const finish = (status: number, body: string) => {
      clearInterval(timer);
      resolve({ status, body });
    };
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => finish(res.statusCode ?? 0, body));
      res.on('error', () => finish(0, body));
    });
    req.on('timeout', () => {
      req.destroy();
      finish(-1, 'no answer in time');
    });
    req.on('error', (err) => finish(0, String(err)));
    timer = setInterval(() => {
      req.write(chunks[upload.chunksSent++]);
      if (upload.chunksSent === CHUNKS) {
        clearInterval(timer);
        req.end();
      }
    }, paceMs);
  });
  return upload;
}

describe('SIGTERM during slow uploads and inserts', () => {
  it('finishes the uploads in flight, exits 0 within the grace period, and loses no acknowledged write', async () => {
    const databaseUrl = await createDatabase();
    const s = await startServerProcess({ databaseUrl, env: DEADLINES });
    started.push(s);
    await createFixtures(s);

    const writers = startWriters(s, { clients: 8, uploadEvery: 5 });
    await pollUntil('acknowledged writes', 10_000, () => (writers.tally.acknowledgedRows.size >= 20 ? true : undefined));
    // ~2 s per upload: well inside the request deadline and the grace period.
    const uploads = Array.from({ length: 4 }, (_, i) => slowUpload(s, `slow-${i}.bin`, 125));
    await pollUntil('the uploads under way', 10_000, () => (uploads.every((u) => u.chunksSent >= 3) ? true : undefined));
    const signalled = Date.now();
    s.signal('SIGTERM');
    const exit = await Promise.race([s.exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), GRACE_MS + 5_000))]);
    const exitMs = Date.now() - signalled;
    const answers = await Promise.all(uploads.map((u) => u.done));
    const tally = await writers.stop();

    expect.soft(exit, `exit within ${GRACE_MS + 5_000} ms\n${s.output().slice(-3000)}`).toEqual({ code: 0, signal: null });
    expect.soft(exitMs).toBeLessThan(GRACE_MS + 5_000);
    expect.soft(answers.map((a) => a.status), JSON.stringify(answers)).toEqual([200, 200, 200, 200]);
    expect(tally.hangs).toBe(0);

    // The same data, served again: every acknowledged write is there, the slow uploads intact.
    const again = await startServerProcess({ reuse: s });
    started.push(again);
    expect(await lostWrites(again, tally)).toEqual({ rows: [], objects: [] });
    for (const u of uploads) {
      const res = await fetch(`${again.baseUrl}/api/storage/buckets/${BUCKET}/objects/${u.key}`, { headers: apiKeyHeaders(again) });
      expect(res.status).toBe(200);
      expect(createHash('sha256').update(Buffer.from(await res.arrayBuffer())).digest('hex')).toBe(u.sha);
    }
  }, 90_000);
});
