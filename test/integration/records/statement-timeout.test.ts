// Statement timeouts by role, through HTTP: a pathological regex filter (`match.`) from the anon
// key or a user token is cancelled at its role's timeout and answers 504 in the records shape,
// and the next ordinary read answers at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let userToken: string;

beforeAll(async () => {
  // Short timeouts keep the test quick; the defaults (3 s / 8 s / 30 s) are checked in config tests.
  t = await startTestApp({
    env: { ANON_STATEMENT_TIMEOUT_MS: '300', AUTHENTICATED_STATEMENT_TIMEOUT_MS: '600', RAW_SQL_TIMEOUT_MS: '900' },
  });
  await t.deps.sql.unsafe(`
    create table public.phrases (id bigserial primary key, body text not null);
    insert into public.phrases (body) select repeat('ab', 20) || i from generate_series(1, 3000) i;
    alter table public.phrases enable row level security;
    create policy phrases_read on public.phrases for select to anon, authenticated using (true);
  `);
  userToken = (await t.signUp()).accessToken;
});
afterAll(() => t.close());

/**
 * ~4.5 KB of nested optional alternation: PostgreSQL's regex engine takes seconds per row on it
 * (one row measured at >5 s), so over 3,000 rows it would run for hours without a timeout.
 */
const FLOOD = `(${'(a|ab|b)?'.repeat(500)})*c`;

const read = (token: string, query: string) =>
  t.request({ method: 'GET', url: `/api/database/records/phrases?${query}`, headers: bearer(token) });

describe('statement timeout by role', () => {
  it.each<[string, () => string]>([
    ['anon', () => t.anonKey],
    ['a signed-in user', () => userToken],
    ['the admin (RAW_SQL_TIMEOUT_MS)', () => t.apiKey],
  ])('%s: a regex flood answers 504 (57014), and a normal read right after answers', async (_who, token) => {
    const flood = await read(token(), `body=match.${encodeURIComponent(FLOOD)}`);
    expect(flood.statusCode, flood.body).toBe(504);
    expect(flood.json).toMatchObject({
      error: 'GATEWAY_TIMEOUT',
      statusCode: 504,
      code: '57014',
      message: expect.stringContaining('statement timeout'),
      nextActions: expect.any(String),
    });
    const normal = await read(token(), 'id=eq.7&select=id');
    expect(normal.statusCode).toBe(200);
    expect(normal.json).toEqual([{ id: 7 }]);
  });

  it('RPC calls run under the same timeout', async () => {
    await t.deps.sql.unsafe(
      `create function public.spin(seconds float8) returns int language sql as 'select 1 from pg_sleep(seconds)'`,
    );
    const res = await t.request({
      method: 'POST',
      url: '/api/database/rpc/spin',
      headers: bearer(t.anonKey),
      payload: { seconds: 30 },
    });
    expect(res.statusCode, res.body).toBe(504);
    expect(res.json).toMatchObject({ error: 'GATEWAY_TIMEOUT', code: '57014' });
  });
});
