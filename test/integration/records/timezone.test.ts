// `Prefer: timezone=…` against real PostgreSQL: the transaction's TimeZone renders timestamptz
// values with its offset (reads, writes, the multi-step path); an unknown zone is ignored, or a
// 400 PGRST122 with handling=strict; the zone does not outlive its transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create table public.events (id int primary key, at timestamptz not null);
    insert into public.events values (1, '2026-01-15 12:00:00+00');
    create function public.first_event() returns timestamptz language sql stable as $$ select at from public.events where id = 1 $$;
  `);
});
afterAll(() => t.close());

const send = (method: 'GET' | 'POST' | 'PATCH', path: string, prefer: string, payload?: unknown) =>
  t.request({
    method,
    url: `/api/database/records/${path}`,
    headers: { ...bearer(t.apiKey), prefer },
    payload: payload as never,
  });

describe('Prefer: timezone', () => {
  it.each<[string, string, string, string | undefined]>([
    ['a read in the zone', 'timezone=America/Los_Angeles', '2026-01-15T04:00:00-08:00', 'timezone=America/Los_Angeles'],
    ['another zone', 'timezone=Asia/Tokyo', '2026-01-15T21:00:00+09:00', 'timezone=Asia/Tokyo'],
    ['an unknown zone is ignored', 'timezone=Mars/Olympus', '2026-01-15T12:00:00+00:00', undefined],
    ['no preference: the server zone', '', '2026-01-15T12:00:00+00:00', undefined],
  ])('%s', async (_label, prefer, at, applied) => {
    const res = await send('GET', 'events?select=at&id=eq.1', prefer);
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual([{ at }]);
    expect(res.headers['preference-applied']).toBe(applied);
  });

  it('an unknown zone with handling=strict is a 400 PGRST122', async () => {
    const res = await send('GET', 'events?id=eq.1', 'handling=strict, timezone=Mars/Olympus');
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ code: 'PGRST122', details: 'Invalid preferences: timezone=Mars/Olympus' });
  });

  it('a write returns its rows in the zone; strict with max-affected too', async () => {
    const created = await send('POST', 'events', 'return=representation, timezone=Europe/Paris', {
      id: 2,
      at: '2026-07-01T10:00:00Z',
    });
    expect(created.statusCode).toBe(201);
    expect(created.json).toEqual([{ id: 2, at: '2026-07-01T12:00:00+02:00' }]);
    const patched = await send(
      'PATCH',
      'events?id=eq.2',
      'return=representation, handling=strict, max-affected=1, timezone=Asia/Kolkata',
      { at: '2026-07-01T00:00:00Z' },
    );
    expect(patched.statusCode).toBe(200);
    expect(patched.json).toEqual([{ id: 2, at: '2026-07-01T05:30:00+05:30' }]);
  });

  it('a function call answers in the zone too', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/api/database/rpc/first_event',
      headers: { ...bearer(t.apiKey), prefer: 'timezone=Asia/Tokyo' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json).toBe('2026-01-15T21:00:00+09:00');
    expect(res.headers['preference-applied']).toBe('timezone=Asia/Tokyo');
  });

  it('the zone ends with its transaction', async () => {
    await Promise.all(Array.from({ length: 5 }, () => send('GET', 'events?id=eq.1', 'timezone=Asia/Tokyo')));
    const rows = await Promise.all(Array.from({ length: 10 }, () => send('GET', 'events?select=at&id=eq.1', '')));
    for (const res of rows) expect(res.json).toEqual([{ at: '2026-01-15T12:00:00+00:00' }]);
  });
});
