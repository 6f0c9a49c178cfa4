// A database that stops answering (its replies withheld, the connection still open) while the log
// writer stores its last entries: closing the logs service still ends, within the shutdown grace
// period, and says that those entries are lost. Before, the stop waited on the COPY for good.
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/modules/logs/log-entry.js';
import { createLogsService } from '../../../src/modules/logs/logs.service.js';
import { type DatabaseRelay, startDatabaseRelay } from '../../harness/tcp-relay.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let relay: DatabaseRelay;

beforeAll(async () => {
  t = await startTestApp();
  relay = await startDatabaseRelay(t.databaseUrl);
}, 60_000);
afterAll(async () => {
  await relay?.close();
  await t?.close();
});

const entry = (message: string): LogEntry => ({
  id: randomUUID(),
  ts: new Date(),
  source: 'requests',
  level: 'info',
  method: 'GET',
  route: '/api/health',
  status: 200,
  durationMs: 1,
  principal: null,
  userId: null,
  ip: '127.0.0.1',
  requestId: randomUUID(),
  slug: null,
  message,
  details: null,
});

it('ends the stop within the grace period and reports the entries it could not store', async () => {
  const pool = postgres(relay.databaseUrl, { max: 2, onnotice: () => {} });
  const reported: unknown[] = [];
  const graceMs = 300;
  const service = createLogsService(
    { ...t.deps, sql: pool, directSql: pool, config: { ...t.deps.config, shutdownGraceMs: graceMs } },
    (err) => reported.push(err),
  );
  try {
    // The writer's connection is open and today's partitions exist: the next store is one COPY.
    service.record(entry('stored'));
    await service.flush();
    expect(reported).toEqual([]);

    const sent = relay.nextClientWrite();
    relay.withholdReplies();
    service.record(entry('never answered'));
    const closing = service.close();
    await sent;

    // Without the bound this waits for good (the test's own timeout fails it).
    await closing;
    expect(reported.map(String)).toEqual([
      expect.stringMatching(/did not store the last log entries within 1000 ms: they are lost/),
      // The COPY in flight ends with the connection, its entry counted as dropped.
      expect.stringMatching(/CONNECTION_DESTROYED/),
    ]);
    expect(service.droppedCount()).toBe(1);
  } finally {
    await pool.end({ timeout: 0 });
  }
});
