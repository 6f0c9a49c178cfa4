// The one SQLSTATE table as clients meet it, whichever module ran the query (issue 33): 23505
// answers 409 and 42501 answers 403 everywhere (raw SQL and bulk upsert included), 23503 is
// split into "still referenced" (409) and "referenced row missing" (400), a lock not granted
// (55P03) and a deadlock victim (40P01) are 409s, a read-only transaction (25006) the context's answer; and a 5xx database
// error is logged with the repo function that sent the query.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ManualClock } from '../../src/core/clock.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { loadPlatformKeys } from '../../src/modules/secrets/index.js';
import { createDatabase, testConfig } from '../harness/test-app.js';

let deps: Deps;
let app: Awaited<ReturnType<typeof buildApp>>;
let apiKey: string;
const logLines: string[] = [];

beforeAll(async () => {
  deps = await createDeps(testConfig(await createDatabase()), { clock: new ManualClock() });
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  apiKey = (await loadPlatformKeys(deps)).apiKey;
  app = await buildApp(deps, { logger: { level: 'error', stream }, keys: await loadPlatformKeys(deps) });
  await app.ready();
  await deps.sql.unsafe(`
    create table public.authors (id int primary key, name text unique);
    create table public.books (id int primary key, author_id int references public.authors (id), title text);
    insert into public.authors values (1, 'Ann'), (2, 'Bob');
    insert into public.books values (10, 1, 'First');
    create table public.locked_out (id int primary key);
    -- project_admin also holds what service_role holds (Supabase's grants): revoke from both.
    revoke all on public.locked_out from project_admin, service_role;
    create function public.grab_books() returns int language sql volatile
      as $$ lock table public.books in access exclusive mode nowait; select 1 $$;
    grant execute on function public.grab_books() to project_admin;
    create table public.pair (id int primary key, n int not null);
    insert into public.pair values (1, 0), (2, 0);
  `);
}, 60_000);
afterAll(async () => {
  await app?.close();
  await deps?.close();
});

const call = async (method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, payload?: unknown) => {
  const res = await app.inject({ method, url, payload: payload as never, headers: { 'x-api-key': apiKey } });
  return { status: res.statusCode, json: res.json() as Record<string, unknown> };
};
const rawSql = (query: string) => call('POST', '/api/database/advance/rawsql', { query });

async function bulkUpsert(table: string, records: unknown[]) {
  const boundary = 'plinthboundary';
  const body = [
    `--${boundary}\r\nContent-Disposition: form-data; name="table"\r\n\r\n${table}\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="rows.json"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(records)}\r\n`,
    `--${boundary}--\r\n`,
  ].join('');
  const res = await app.inject({
    method: 'POST',
    url: '/api/database/advance/bulk-upsert',
    payload: body,
    headers: { 'x-api-key': apiKey, 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  return { status: res.statusCode, json: res.json() as Record<string, unknown> };
}

/** Runs `work` while another session holds row locks on every row of public.books. */
async function whileBooksLocked<T>(work: () => Promise<T>): Promise<T> {
  const conn = await deps.sql.reserve();
  try {
    await conn`begin`;
    await conn`select * from public.books for update`;
    return await work();
  } finally {
    await conn`rollback`;
    conn.release();
  }
}

describe('23503: still referenced (409) or referenced row missing (400)', () => {
  it.each([
    [
      'records: deleting a row other rows reference',
      () => call('DELETE', '/api/database/records/authors?id=eq.1'),
      409,
      'CONFLICT',
    ],
    [
      'records: updating the key of a referenced row',
      () => call('PATCH', '/api/database/records/authors?id=eq.1', { id: 7 }),
      409,
      'CONFLICT',
    ],
    [
      'records: inserting a row naming a missing one',
      () => call('POST', '/api/database/records/books', [{ id: 11, author_id: 99, title: 'Orphan' }]),
      400,
      'VALIDATION_ERROR',
    ],
    ['raw SQL: deleting a referenced row', () => rawSql('delete from public.authors where id = 1'), 409, 'CONFLICT'],
    [
      'raw SQL: inserting a row naming a missing one',
      () => rawSql("insert into public.books values (12, 99, 'Orphan')"),
      400,
      'VALIDATION_ERROR',
    ],
    [
      'bulk upsert: rows naming a missing one',
      () => bulkUpsert('books', [{ id: 13, author_id: 99, title: 'Orphan' }]),
      400,
      'VALIDATION_ERROR',
    ],
  ])('%s', async (_label, send, status, error) => {
    const res = await send();
    expect(res.status, JSON.stringify(res.json)).toBe(status);
    expect(res.json).toMatchObject({ error, statusCode: status });
    // Nothing changed either way.
    expect(await deps.sql`select id from public.authors order by id`).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await deps.sql`select id from public.books order by id`).toEqual([{ id: 10 }]);
  });

  it('records keep PostgREST’s fields on both answers', async () => {
    const referenced = await call('DELETE', '/api/database/records/authors?id=eq.1');
    expect(referenced.json).toMatchObject({ code: '23503', details: expect.stringMatching(/is still referenced/) });
    const missing = await call('POST', '/api/database/records/books', [{ id: 11, author_id: 99, title: 'x' }]);
    expect(missing.json).toMatchObject({ code: '23503', details: expect.stringMatching(/is not present/) });
  });
});

describe('23505 → 409 and 42501 → 403 everywhere', () => {
  it.each([
    ['raw SQL: a duplicate key', () => rawSql("insert into public.authors values (1, 'Again')"), 409, 'CONFLICT'],
    ['bulk upsert: a duplicate key', () => bulkUpsert('authors', [{ id: 2, name: 'Bob again' }]), 409, 'CONFLICT'],
    ['bulk upsert: a unique value taken', () => bulkUpsert('authors', [{ id: 3, name: 'Ann' }]), 409, 'CONFLICT'],
    ['raw SQL: a table project_admin may not read', () => rawSql('select * from public.locked_out'), 403, 'FORBIDDEN'],
    ['bulk upsert: a table project_admin may not write', () => bulkUpsert('locked_out', [{ id: 1 }]), 403, 'FORBIDDEN'],
  ])('%s', async (_label, send, status, error) => {
    const res = await send();
    expect(res.status, JSON.stringify(res.json)).toBe(status);
    expect(res.json).toMatchObject({ error, statusCode: status, nextActions: expect.any(String) });
    expect(await deps.sql`select id from public.authors order by id`).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await deps.sql`select count(*)::int as n from public.locked_out`).toEqual([{ n: 0 }]);
  });
});

describe('55P03: a lock not granted is a 409 (another operation holds it)', () => {
  it.each([
    ['raw SQL with NOWAIT', () => rawSql('select * from public.books for update nowait')],
    ['an RPC function that locks NOWAIT', () => call('POST', '/api/database/rpc/grab_books', {})],
  ])('%s → 409', async (_label, send) => {
    const res = await whileBooksLocked(send);
    expect(res.status, JSON.stringify(res.json)).toBe(409);
    expect(res.json).toMatchObject({ error: 'CONFLICT', statusCode: 409 });
  });
});

describe('40P01: a deadlock victim is a 409 (nothing was changed; try again)', () => {
  it('two transactions that each hold the row the other wants: the one PostgreSQL ends answers 409', async () => {
    const first = await deps.sql.reserve();
    try {
      await first`begin`;
      await first`update public.pair set n = n + 1 where id = 1`;
      // The API's transaction takes row 2, then waits for row 1; this one then waits for row 2.
      const api = rawSql(
        'update public.pair set n = n + 1 where id = 2; update public.pair set n = n + 1 where id = 1',
      );
      for (let waiting = false; !waiting; ) {
        const [row] = await deps.sql<{ waiting: boolean }[]>`
          select exists (select from pg_locks where locktype = 'transactionid' and not granted) as waiting`;
        waiting = row?.waiting === true;
      }
      const mine = first`update public.pair set n = n + 1 where id = 2`.then(
        () => 'done',
        (err: { code?: string }) => err.code,
      );
      // The API's statement waited first: its deadlock check finds the cycle and ends it.
      const res = await api;
      expect(res.status, JSON.stringify(res.json)).toBe(409);
      expect(res.json).toMatchObject({ error: 'CONFLICT', message: expect.stringMatching(/deadlock/) });
      expect(await mine).toBe('done');
      await first`rollback`;
    } finally {
      first.release();
    }
    expect(await deps.sql`select id, n from public.pair order by id`).toEqual([
      { id: 1, n: 0 },
      { id: 2, n: 0 },
    ]);
  });
});

describe('25006: a write in a read-only transaction', () => {
  it('raw SQL whose write meets a read-only transaction → 503 (the database takes no writes now)', async () => {
    // The caller's SQL may not make its transaction read-only (set_config is refused), so a trigger does.
    await deps.sql.unsafe(`
      create table public.journal (note text);
      create table public.probe (id int);
      create function public.probe_goes_read_only() returns trigger language plpgsql as $$
        begin set transaction read only; insert into public.journal values ('x'); return new; end $$;
      create trigger probe_read_only before insert on public.probe
        for each row execute function public.probe_goes_read_only();`);
    const res = await rawSql('insert into public.probe values (1)');
    expect(res.status, JSON.stringify(res.json)).toBe(503);
    expect(res.json).toMatchObject({ error: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/read-only/) });
    expect(await deps.sql`select count(*)::int as n from public.probe`).toEqual([{ n: 0 }]);
  });

  it('records: a writing function called by GET → 405 with PostgREST’s code', async () => {
    await deps.sql.unsafe(`
      create function public.add_author() returns int language sql volatile
        as $$ insert into public.authors values (6, 'Sneak') returning id $$;
      grant execute on function public.add_author() to project_admin;`);
    const res = await call('GET', '/api/database/rpc/add_author');
    expect(res.status, JSON.stringify(res.json)).toBe(405);
    expect(res.json).toMatchObject({ error: 'METHOD_NOT_ALLOWED', code: '25006', nextActions: expect.any(String) });
  });
});

describe('the log entry of a 5xx database error', () => {
  it('names the repo function that sent the failing query', async () => {
    await deps.sql`alter table system.secrets rename column created_at to created_at_renamed`;
    try {
      const res = await call('GET', '/api/secrets');
      expect(res.status).toBe(500);
      const entry = logLines.map((l) => JSON.parse(l)).findLast((l) => l.err);
      expect(entry).toMatchObject({ dbQueryFrom: expect.stringMatching(/ in modules\/secrets\/[\w-]+\.repo$/) });
    } finally {
      await deps.sql`alter table system.secrets rename column created_at_renamed to created_at`;
    }
  });
});
