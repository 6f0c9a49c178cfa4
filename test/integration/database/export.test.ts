// Database export as a client sees it: SQL that recreates the tables with their rows, policies
// and foreign keys; JSON with columns and rows; rowLimit; unknown tables; bad options.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const exportDb = (payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/api/database/advance/export', headers: { 'x-api-key': t.apiKey }, payload });

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create table public.makers (id int primary key, name text not null default 'anon');
    create table public.toys (id int primary key, maker_id int references public.makers (id) on delete cascade, label text, meta jsonb, made date);
    create index toys_label_idx on public.toys (label);
    create policy toys_read on public.toys for select to anon using (true);
    create view public.toy_names as select label from public.toys;
    insert into public.makers values (1, 'Acme'), (2, 'O''Brien \\ Co');
    insert into public.toys select g, 1 + g % 2, 'toy ' || g, '{"n": 1}', date '2026-01-01' + g from generate_series(1, 5) g;`);
});
afterAll(() => t.close());

describe('POST /api/database/advance/export', () => {
  it('SQL: recreates the tables, rows, indexes, policies and foreign keys (round trip)', async () => {
    const res = await exportDb({ tables: ['makers', 'toys'], includeViews: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toMatchObject({ format: 'sql', timestamp: t.clock.now().toISOString() });
    const sql = res.json.data as string;
    expect(sql).toContain('create table public."toys"');
    expect(sql).toContain('CREATE INDEX toys_label_idx');
    expect(sql).toContain('create or replace view public."toy_names"');
    const before = await t.deps
      .sql`select m.name, t.label, t.meta, t.made::text from public.toys t join public.makers m on m.id = t.maker_id order by t.id`;
    await t.deps.sql.unsafe('drop view public.toy_names; drop table public.toys; drop table public.makers');
    await t.deps.sql.unsafe(sql);
    const after = await t.deps
      .sql`select m.name, t.label, t.meta, t.made::text from public.toys t join public.makers m on m.id = t.maker_id order by t.id`;
    expect(after).toEqual(before);
    const [policy] = await t.deps
      .sql`select roles::text[] as roles from pg_policies where tablename = 'toys' and policyname = 'toys_read'`;
    expect(policy!.roles).toEqual(['anon']);
    await expect(t.deps.sql`delete from public.makers where id = 1`).resolves.toBeDefined();
    expect((await t.deps.sql`select count(*)::int as n from public.toys where maker_id = 1`)[0]!.n).toBe(0);
  });

  it('JSON: columns and rows per table, cut at rowLimit', async () => {
    const res = await exportDb({ format: 'json', tables: ['toys'], rowLimit: 2 });
    expect(res.statusCode, res.body).toBe(200);
    const toys = res.json.data.tables.toys;
    expect(toys.rows).toHaveLength(2);
    expect(toys.truncated).toBe(true);
    expect(toys.rows[0]).toMatchObject({
      id: expect.any(Number),
      label: expect.stringMatching(/^toy/),
      meta: { n: 1 },
    });
    expect(toys.columns.map((c: { columnName: string }) => c.columnName)).toEqual([
      'id',
      'maker_id',
      'label',
      'meta',
      'made',
    ]);
    const all = await exportDb({ format: 'json', includeData: false, includeFunctions: true, includeSequences: true });
    expect(Object.keys(all.json.data.tables)).toEqual(expect.arrayContaining(['makers', 'toys']));
    expect(all.json.data.tables.toys.rows).toBeUndefined();
    expect(all.json.data).toMatchObject({ functions: [], sequences: [] });
  });

  it.each([
    ['an unknown table', { tables: ['nowhere'] }, 404],
    ['a rowLimit over 10000', { rowLimit: 10001 }, 400],
    ['an unknown format', { format: 'csv' }, 400],
    ['a bad table name', { tables: ['a;b'] }, 400],
  ])('%s', async (_label, payload, status) => {
    expect((await exportDb(payload)).statusCode).toBe(status);
  });
});
