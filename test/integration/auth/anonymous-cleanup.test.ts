// The removal of inactive anonymous users (the job runs at start and hourly; the admin's
// POST /api/auth/anonymous/cleanup runs it now): who goes (anonymous, no activity for the
// retention), who stays, what happens to their sessions and rows, and two sweeps at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';
import { refreshMobile } from '../../harness/sessions.js';

const DAY = 24 * 60 * 60 * 1000;
let t: TestApp;
const admin = () => ({ 'x-api-key': t.apiKey });
let ip = 0;

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create table public.carts (
      id bigserial primary key,
      owner uuid not null default auth.uid() references auth.users (id) on delete cascade,
      item text not null
    );
    create table public.orders (
      id bigserial primary key,
      buyer uuid default auth.uid() references auth.users (id) on delete set null,
      item text not null
    );
    create table public.invoices (
      id bigserial primary key,
      customer uuid default auth.uid() references auth.users (id),
      item text not null
    );
    create policy own_invoices on public.invoices for insert to authenticated with check (customer = auth.uid());
    create policy own_carts on public.carts for all to authenticated using (owner = auth.uid()) with check (owner = auth.uid());
    create policy own_orders on public.orders for insert to authenticated with check (buyer = auth.uid());
  `);
  const res = await t.request({
    method: 'PUT',
    url: '/api/auth/config',
    headers: admin(),
    payload: { anonymousSignInsEnabled: true, anonymousRetentionDays: 10 },
  });
  expect(res.statusCode, res.body).toBe(200);
});
afterAll(() => t?.close());

async function anonymousUser() {
  const res = await t.request({
    method: 'POST',
    url: '/api/auth/anonymous?client_type=mobile',
    remoteAddress: `10.99.0.${++ip}`,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json as { user: { id: string }; accessToken: string; refreshToken: string };
}

const cleanup = () => t.request({ method: 'POST', url: '/api/auth/anonymous/cleanup', headers: admin() });
const userStatus = async (id: string) =>
  (await t.request({ method: 'GET', url: `/api/auth/users/${id}`, headers: admin() })).statusCode;

describe('inactive anonymous users', () => {
  it('go with their sessions after the retention; active ones, converted ones and others stay', async () => {
    const idle = await anonymousUser();
    const active = await anonymousUser();
    const registered = await t.signUp();
    // The idle user's rows: a cart (ON DELETE CASCADE) and an order (ON DELETE SET NULL).
    const write = (table: string, token: string) =>
      t.request({
        method: 'POST',
        url: `/api/database/records/${table}`,
        headers: bearer(token),
        payload: { item: 'x' },
      });
    expect((await write('carts', idle.accessToken)).statusCode).toBe(201);
    expect((await write('orders', idle.accessToken)).statusCode).toBe(201);

    t.clock.advance(6 * DAY);
    const refreshed = await refreshMobile(t, active.refreshToken);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    t.clock.advance(5 * DAY);
    // Day 11: the idle user's last activity (day 0) is past 10 days; the active one's (day 6) is not.
    expect(await userStatus(idle.user.id)).toBe(200);
    const res = await cleanup();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toEqual({ deletedCount: 1, skippedCount: 0 });
    expect(await userStatus(idle.user.id)).toBe(404);
    expect(await userStatus(active.user.id)).toBe(200);
    expect(await userStatus(registered.user.id)).toBe(200);
    const [rows] = await t.deps.sql<{ carts: number; orphans: number }[]>`
      select (select count(*) from public.carts)::int as carts,
             (select count(*) from public.orders where buyer is null)::int as orphans`;
    expect(rows).toEqual({ carts: 0, orphans: 1 });
    // Nothing left to remove: a second run removes nobody.
    expect((await cleanup()).json).toEqual({ deletedCount: 0, skippedCount: 0 });
  });

  it("a removed user's session is over: its refresh token is refused", async () => {
    const idle = await anonymousUser();
    // A refresh within the session's lifetime keeps it alive, then nothing for 11 days.
    t.clock.advance(1 * DAY);
    const refreshed = await refreshMobile(t, idle.refreshToken);
    expect(refreshed.statusCode).toBe(200);
    t.clock.advance(11 * DAY);
    expect((await cleanup()).json.deletedCount).toBeGreaterThanOrEqual(1);
    const again = await refreshMobile(t, refreshed.json.refreshToken);
    expect(again.statusCode).toBe(401);
  });

  it('the retention comes from the auth settings', async () => {
    const { user } = await anonymousUser();
    t.clock.advance(11 * DAY);
    await t.request({
      method: 'PUT',
      url: '/api/auth/config',
      headers: admin(),
      payload: { anonymousRetentionDays: 30 },
    });
    expect((await cleanup()).json).toEqual({ deletedCount: 0, skippedCount: 0 });
    expect(await userStatus(user.id)).toBe(200);
    await t.request({
      method: 'PUT',
      url: '/api/auth/config',
      headers: admin(),
      payload: { anonymousRetentionDays: 10 },
    });
    expect((await cleanup()).json).toEqual({ deletedCount: 1, skippedCount: 0 });
  });

  it('a user whose rows still hold it (a foreign key without ON DELETE) is kept and skipped, the others go', async () => {
    const held = await anonymousUser();
    const free = await anonymousUser();
    const invoice = await t.request({
      method: 'POST',
      url: '/api/database/records/invoices',
      headers: bearer(held.accessToken),
      payload: { item: 'x' },
    });
    expect(invoice.statusCode, invoice.body).toBe(201);
    t.clock.advance(11 * DAY);
    expect((await cleanup()).json).toEqual({ deletedCount: 1, skippedCount: 1 });
    expect(await userStatus(held.user.id)).toBe(200);
    expect(await userStatus(free.user.id)).toBe(404);
    await t.deps.sql`delete from public.invoices`;
    expect((await cleanup()).json).toEqual({ deletedCount: 1, skippedCount: 0 });
  });

  it('two sweeps at once (as two servers run them) remove each user once, between them', async () => {
    const users = [];
    for (let i = 0; i < 6; i++) users.push(await anonymousUser());
    t.clock.advance(11 * DAY);
    const [a, b] = await Promise.all([cleanup(), cleanup()]);
    expect(a.statusCode).toBe(200);
    expect(b.statusCode).toBe(200);
    expect(a.json.deletedCount + b.json.deletedCount).toBe(6);
    for (const u of users) expect(await userStatus(u.user.id)).toBe(404);
  });
});
