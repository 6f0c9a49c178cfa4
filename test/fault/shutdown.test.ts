// SIGTERM sent to a listening server while slow uploads stream and inserts run: the uploads in
// flight complete, the process exits 0 within its grace period, and a server started again on the
// same data finds every acknowledged write.
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../harness/test-app.js';
import { startServerProcess, type ServerProcess } from '../harness/server-process.js';
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
