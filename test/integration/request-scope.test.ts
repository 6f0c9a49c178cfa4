// The per-request database scope: role and claims set for one transaction, read by the SQL
// helpers that row-level security policies use, and gone after it.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScoped, withRequestScope } from '../../src/core/db.js';
import { startDatabaseRelay } from '../harness/tcp-relay.js';
import { startTestApp, type TestApp } from '../harness/test-app.js';
import { oneLoopTurn, watchUnhandledRejections } from '../harness/unhandled-rejections.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const userId = '7d0b1c2e-5f7a-4c1e-9d43-0c9a6b3e2f10';

describe('withRequestScope', () => {
  it.each([
    [
      { role: 'authenticated' as const, claims: { sub: userId, role: 'authenticated', email: 'a@example.com' } },
      { uid: userId, role: 'authenticated', email: 'a@example.com', current_user: 'authenticated' },
    ],
    [
      { role: 'anon' as const, claims: { role: 'anon' } },
      { uid: null, role: 'anon', email: null, current_user: 'anon' },
    ],
    [
      { role: 'project_admin' as const, claims: { sub: 'local:admin@x', role: 'project_admin' } },
      { uid: null, role: 'project_admin', email: null, current_user: 'project_admin' },
    ],
  ])('runs as %o', async (scope, expected) => {
    const [row] = await withRequestScope(
      t.deps.sql,
      scope,
      (tx) => tx`select auth.uid() as uid, auth.role() as role, auth.email() as email, current_user`,
    );
    expect(row).toEqual(expected);
  });

  it('leaves no role or claims behind on the pooled connection', async () => {
    await withRequestScope(t.deps.sql, { role: 'anon', claims: { role: 'anon' } }, (tx) => tx`select 1`);
    const rows = await Promise.all(
      Array.from({ length: 5 }, () => t.deps.sql`select current_user, auth.uid() as uid, auth.jwt() as jwt`),
    );
    for (const row of rows.flat()) {
      expect(row.current_user).not.toBe('anon');
      expect(row.uid).toBeNull();
      expect(row.jwt).toEqual({});
    }
  });

  it('rolls everything back when the work fails', async () => {
    await t.deps.sql`create table if not exists public.scope_probe (n int)`;
    // New public tables are deny-by-default; this one only checks the transaction.
    await t.deps.sql`alter table public.scope_probe disable row level security`;
    await expect(
      withRequestScope(t.deps.sql, { role: 'authenticated', claims: { sub: userId } }, async (tx) => {
        await tx`insert into public.scope_probe values (1)`;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const [row] = await t.deps.sql`select count(*)::int as n from public.scope_probe`;
    expect(row?.n).toBe(0);
  });

  it('cannot read system tables as a request role', async () => {
    await expect(
      withRequestScope(
        t.deps.sql,
        { role: 'authenticated', claims: { sub: userId } },
        (tx) => tx`select * from system.secrets`,
      ),
    ).rejects.toMatchObject({ code: '42501' });
  });
});

describe('runScoped (one statement, one round trip)', () => {
  it('runs the statement as the scope', async () => {
    const rows = await runScoped(
      t.deps.sql,
      { role: 'authenticated', claims: { sub: userId, role: 'authenticated' } },
      'select auth.uid() as uid, current_user as role',
      [],
    );
    expect([...rows]).toEqual([{ uid: userId, role: 'authenticated' }]);
  });

  it('rolls back a failing statement and leaves the connections clean', async () => {
    await t.deps.sql`create table if not exists public.scope_probe2 (n int check (n > 0))`;
    await t.deps.sql`alter table public.scope_probe2 disable row level security`;
    await expect(
      runScoped(
        t.deps.sql,
        { role: 'authenticated', claims: { sub: userId } },
        'insert into public.scope_probe2 values ($1), ($2)',
        ['1', '-1'],
      ),
    ).rejects.toMatchObject({ code: '23514' });
    const [row] = await t.deps.sql`select count(*)::int as n from public.scope_probe2`;
    expect(row?.n).toBe(0);
    const after = await Promise.all(
      Array.from({ length: 5 }, () => t.deps.sql`select current_user as role, auth.jwt() as jwt`),
    );
    for (const r of after.flat()) expect(r).toMatchObject({ jwt: {} });
    for (const r of after.flat()) expect(r.role).not.toBe('authenticated');
  });
});

describe('a connection lost while the work is busy elsewhere', () => {
  it('fails that request with a retryable 503 and leaves the process nothing unhandled', async () => {
    const relay = await startDatabaseRelay(t.databaseUrl);
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const pool = postgres(relay.databaseUrl, { max: 1, onnotice: () => {}, onclose: () => closed() });
    const unhandled = watchUnhandledRejections();
    try {
      await pool`select 1`;
      relay.withholdReplies();
      const opening = relay.nextClientWrite();
      let release!: () => void;
      const busy = new Promise<void>((resolve) => {
        release = resolve;
      });
      const outcome = withRequestScope(pool, { role: 'anon', claims: { role: 'anon' } }, async () => {
        await busy;
        return 'done';
      });
      await opening;
      // BEGIN and the scope statement are on the wire, unanswered: the connection goes now.
      await relay.resetClients();
      await connectionClosed;
      await oneLoopTurn();
      release();
      await expect(outcome).rejects.toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(unhandled.reasons).toEqual([]);
    } finally {
      unhandled.stop();
      await pool.end({ timeout: 0 });
      await relay.close();
    }
  });
});
