// A second `npm start` in the same folder (issue 39, M1): the compiled server started again on a
// data directory whose server still runs exits 1 with one message naming that server, and touches
// nothing: the first keeps its postmaster and its data and keeps answering 200.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from '../../harness/server-process.js';

let first: ServerProcess;
let apiKey: string;
let postmaster: number;

const readNotes = async () => {
  const res = await fetch(`${first.baseUrl}/api/database/records/notes`, {
    headers: { 'x-api-key': apiKey },
    signal: AbortSignal.timeout(5_000),
  });
  return { status: res.status, body: await res.json() };
};

beforeAll(async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'plinth-second-'));
  first = await spawnServer({ dataDir, compiled: true, env: { LOG_LEVEL: 'warn' } });
  await first.waitForOutput('Plinth is listening', 90_000);
  apiKey = first.printedApiKey();
  const res = await fetch(`${first.baseUrl}/api/database/advance/rawsql/unrestricted`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: "create table notes (id int primary key, body text); insert into notes values (1, 'kept')",
    }),
  });
  expect(res.status, await res.text()).toBe(200);
  postmaster = first.postmasterPid()!;
  expect(postmaster).toBeGreaterThan(0);
}, 120_000);

afterAll(async () => {
  await first?.close();
});

describe('a second start on the data directory of a running server', () => {
  it.each([
    ['the same PORT', true],
    ['another PORT', false],
  ] as const)(
    'with %s exits 1 naming the running server; the first keeps answering',
    async (_, samePort) => {
      const env: Record<string, string> = { EMBEDDED_PG_PORT: String(first.embeddedPgPort), LOG_LEVEL: 'warn' };
      if (samePort) env.PORT = String(first.port);
      const second = await spawnServer({ dataDir: first.dataDir, compiled: true, env });
      // Not second.close(): its teardown stops the postmaster of the data directory, the first's.
      const exit = await second.exited;
      expect(exit.code, second.output()).toBe(1);
      expect(second.stderr().trim()).toBe(
        `Another Plinth server (pid ${first.pid}) is running on this data directory (${first.dataDir}) and its ` +
          'database: stop it first, or set PLINTH_DATA_DIR to another folder to run a second server',
      );
      expect(second.stdout()).toBe('');

      expect(first.exit()).toBeNull();
      expect(first.postmasterPid()).toBe(postmaster);
      expect(await readNotes()).toEqual({ status: 200, body: [{ id: 1, body: 'kept' }] });
      // (A bare 503 would also match inside the printed keys.)
      expect(first.output()).not.toMatch(/embedded PostgreSQL exited|"statusCode":503|could not be restarted/);
    },
    90_000,
  );
});
