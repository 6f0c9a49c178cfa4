// What request logs and the audit trail keep out: a request's query string (tokens, emails, search
// text) is in neither the stdout line nor the stored entry; the user:password of a URL an admin
// sends (a schedule target, a webhook) and every schedule header value are redacted in the audit.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { ManualClock } from '../../../src/core/clock.js';
import { createDeps, type Deps } from '../../../src/deps.js';
import { loadPlatformKeys } from '../../../src/modules/secrets/index.js';
import { createDatabase, testConfig } from '../../harness/test-app.js';

let deps: Deps;
let app: Awaited<ReturnType<typeof buildApp>>;
let apiKey: string;
const stdout: string[] = [];

beforeAll(async () => {
  deps = await createDeps(testConfig(await createDatabase(), { LOGS_FLUSH_INTERVAL_MS: '3600000' }), {
    clock: new ManualClock(),
  });
  const stream = new Writable({
    write(chunk, _encoding, done) {
      stdout.push(String(chunk));
      done();
    },
  });
  const keys = await loadPlatformKeys(deps);
  apiKey = keys.apiKey;
  app = await buildApp(deps, { logger: { level: 'info', stream }, keys });
  await app.ready();
}, 60_000);
afterAll(async () => {
  await app?.close();
  await deps?.close();
});

const SECRET_QUERY = 'token=tok_in_the_query&email=someone%40example.com';

describe('request logs', () => {
  it('log the path without its query string, on stdout and in the stored entries', async () => {
    const matched = await app.inject({ method: 'GET', url: `/api/health?${SECRET_QUERY}` });
    const unmatched = await app.inject({ method: 'GET', url: `/api/no-such-route?${SECRET_QUERY}` });
    expect(unmatched.statusCode).toBe(404);
    const lines = stdout.filter((l) => l.includes('"msg":"request'));
    const ids = [matched, unmatched].map((r) => String(r.headers['x-request-id']));
    const mine = lines.filter((l) => ids.some((id) => l.includes(id)));
    expect(mine).toHaveLength(2);
    expect(mine.map((l) => JSON.parse(l).url)).toEqual(['/api/health', '/api/no-such-route']);
    expect(stdout.join('')).not.toContain('tok_in_the_query');

    await app.logs!.flush();
    const [row] = await deps.sql`
      select count(*)::int as n from logs.entries where request_id = any(${ids}) and message like '%tok_in_the_query%'`;
    const [all] = await deps.sql`select count(*)::int as n from logs.entries where request_id = any(${ids})`;
    expect(all?.n).toBe(2);
    expect(row?.n).toBe(0);
  });
});

describe('the audit trail', () => {
  it("redacts a URL's user:password and every schedule header value", async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/api/schedules',
      headers: { 'x-api-key': apiKey },
      payload: {
        // A target URL may not carry user:password (refused when saved): free text may, and is redacted.
        name: 'nightly export, mirrored to ftp://exporter:hunter2-pass@backup.example.com/',
        cronSchedule: '0 3 * * *',
        functionUrl: 'http://localhost:7130/api/health?sig=abc',
        headers: { 'X-Signature': 'sig_value_1', 'X-Plain': 'plain_value_2' },
      },
    });
    expect(created.statusCode, created.body).toBeLessThan(300);
    await app.logs!.flush();
    const res = await app.inject({
      method: 'GET',
      url: '/api/logs/audits?module=SCHEDULES',
      headers: { 'x-api-key': apiKey },
    });
    expect(res.statusCode).toBe(200);
    const [entry] = res.json();
    expect(entry.details.body).toMatchObject({
      name: 'nightly export, mirrored to ftp://[redacted]@backup.example.com/',
      headers: { 'X-Signature': '[redacted]', 'X-Plain': '[redacted]' },
    });
    for (const secret of ['hunter2-pass', 'exporter', 'sig_value_1', 'plain_value_2'])
      expect(res.body).not.toContain(secret);
  });
});
