// Planner cases for the writes added on PostgREST's terms: inserts with `missing=default` (a
// row's missing key takes the column's DEFAULT) and PUT's checks (filters eq on the full primary
// key, no paging, body keys matching) — SQL text and params in, or PostgREST's error code out.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { parseQuery } from '../../src/modules/records/grammar/query.js';
import { putRow } from '../../src/modules/records/plan/put.js';
import type { Column, SchemaSnapshot, Table } from '../../src/modules/records/schema-cache.js';
import type { InsertOptions } from '../../src/modules/records/plan/writes.js';
import { insertStatement, updateStatement } from '../../src/modules/records/plan-and-render.js';

type InsertOptionsPart = Omit<InsertOptions, 'columns'>;

const col = (name: string, type: string, defaultSql?: string): [string, Column] => [
  name,
  {
    name,
    type,
    nullable: true,
    hasDefault: defaultSql !== undefined,
    ...(defaultSql === undefined ? {} : { defaultSql }),
  },
];
const things: Table = {
  schema: 'public',
  name: 'things',
  kind: 'table',
  columns: new Map([
    col('id', 'bigint', "nextval('things_id_seq'::regclass)"),
    col('name', 'text'),
    col('color', 'text', "'grey'::text"),
  ]),
  primaryKey: ['id'],
  uniqueKeys: [['id']],
};
const pairs: Table = {
  ...things,
  name: 'pairs',
  columns: new Map([col('a', 'integer'), col('b', 'integer'), col('label', 'text')]),
  primaryKey: ['a', 'b'],
  uniqueKeys: [['a', 'b']],
};
const nokey: Table = { ...things, name: 'nokey', primaryKey: [], uniqueKeys: [] };
const snapshot: SchemaSnapshot = {
  version: '1',
  schemas: ['public'],
  tables: new Map([[`public.things`, things]]),
  foreignKeys: [],
  routines: new Map(),
};
const q = (qs: string) => parseQuery(new URLSearchParams(qs));
const flat = (sql: string) => sql.replace(/\s+/g, ' ').trim();
const rows = [{ name: 'a' }, { name: 'b', color: 'red' }];

function codeOf(run: () => unknown): [number, unknown] {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return [err.statusCode, err.fields?.code];
    throw err;
  }
  return [0, 'no error'];
}

describe('insert with missing=default', () => {
  const populate = `from jsonb_array_elements($1::text::jsonb) _e(r) cross join lateral jsonb_populate_record(null::"public"."things", _e.r) _p`;
  it.each<[string, string[], boolean, string, unknown[]]>([
    [
      'columns with defaults: CASE on the key, else the default',
      ['id', 'name', 'color'],
      true,
      `insert into "public"."things" as t0 ("id", "name", "color") select case when _e.r ? $2::text then _p."id" else (nextval('things_id_seq'::regclass)) end, _p."name", case when _e.r ? $3::text then _p."color" else ('grey'::text) end ${populate}`,
      [JSON.stringify(rows), 'id', 'color'],
    ],
    [
      'no column with a default among the columns: the plain form',
      ['name'],
      true,
      `insert into "public"."things" as t0 ("name") select "name" from json_populate_recordset(null::"public"."things", $1::text::json)`,
      [JSON.stringify(rows)],
    ],
    [
      'missing=null (the default): the plain form',
      ['name', 'color'],
      false,
      `insert into "public"."things" as t0 ("name", "color") select "name", "color" from json_populate_recordset(null::"public"."things", $1::text::json)`,
      [JSON.stringify(rows)],
    ],
  ])('%s', (_label, columns, missingDefault, sql, params) => {
    const s = insertStatement(snapshot, things, q(''), rows, { columns, representation: false, missingDefault });
    expect(flat(s.text)).toBe(sql);
    expect(s.params).toEqual(params);
  });

  it('with an upsert, the conflict clause follows the defaulted rows', () => {
    const s = insertStatement(snapshot, things, q(''), rows, {
      columns: ['id', 'color'],
      representation: false,
      missingDefault: true,
      resolution: 'ignore-duplicates',
    });
    expect(flat(s.text)).toMatch(/_e\.r\) _p on conflict \("id"\) do nothing$/);
  });
});

describe('insert of objects without keys (all defaults)', () => {
  it.each<[string, unknown[], InsertOptionsPart, string, unknown[]]>([
    [
      '{}: one row of defaults',
      [{}],
      { representation: false },
      `insert into "public"."things" as t0 select from generate_series(1, $1::int)`,
      [1],
    ],
    [
      '[{}, {}, {}]: one row of defaults each',
      [{}, {}, {}],
      { representation: false },
      `insert into "public"."things" as t0 select from generate_series(1, $1::int)`,
      [3],
    ],
    [
      'return=representation: the rows come back',
      [{}],
      { representation: true },
      `with _changed as (insert into "public"."things" as t0 select from generate_series(1, $1::int) returning t0.*) select coalesce(json_agg(_r), '[]'::json)::text as body, count(_r)::int as page_rows, (null::bigint) as total from (select t0.* from _changed t0) _r`,
      [1],
    ],
    [
      'an upsert: nothing to merge, so duplicates are ignored',
      [{}],
      { representation: false, resolution: 'merge-duplicates' },
      `insert into "public"."things" as t0 select from generate_series(1, $1::int) on conflict ("id") do nothing`,
      [1],
    ],
    [
      'missing=default changes nothing',
      [{}, {}],
      { representation: false, missingDefault: true },
      `insert into "public"."things" as t0 select from generate_series(1, $1::int)`,
      [2],
    ],
  ])('%s', (_label, body, options, sql, params) => {
    const s = insertStatement(snapshot, things, q(''), body, { columns: [], ...options });
    expect(flat(s.text)).toBe(sql);
    expect(s.params).toEqual(params);
  });
});

describe('JSON bound as text, nesting checked', () => {
  it('a body nested past the ceiling (1000) is a 400 PGRST102 before any SQL runs', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = [deep];
    expect(
      codeOf(() =>
        insertStatement(snapshot, things, q(''), [{ name: deep }], { columns: ['name'], representation: false }),
      ),
    ).toEqual([400, 'PGRST102']);
    expect(codeOf(() => updateStatement(snapshot, things, q('id=eq.1'), { name: deep }, false))).toEqual([
      400,
      'PGRST102',
    ]);
  });

  it('every parameter is a scalar or a list of text: nothing for the driver to walk', () => {
    const s = insertStatement(snapshot, things, q(''), [{ name: { a: [1, { b: 2 }] } }], {
      columns: ['name'],
      representation: false,
    });
    for (const p of s.params) expect(['string', 'number'].includes(typeof p) || p === null).toBe(true);
  });
});

describe('PUT checks', () => {
  it.each<[string, Table, string, unknown, [number, unknown]]>([
    ['eq on the whole key, matching body', pairs, 'a=eq.1&b=eq.2', { a: 1, b: 2, label: 'x' }, [0, 'no error']],
    ['string keys compare as text', pairs, 'a=eq.1&b=eq.2', { a: '1', b: 2 }, [0, 'no error']],
    ['a one-object array', things, 'id=eq.5', [{ id: 5 }], [0, 'no error']],
    ['an embed filter does not count', things, 'id=eq.5&x.name=eq.1', { id: 5 }, [0, 'no error']],
    ['half the key', pairs, 'a=eq.1', { a: 1, b: 2 }, [405, 'PGRST105']],
    ['gt on a key column', pairs, 'a=eq.1&b=gt.2', { a: 1, b: 2 }, [405, 'PGRST105']],
    ['not.eq', pairs, 'a=eq.1&b=not.eq.2', { a: 1, b: 2 }, [405, 'PGRST105']],
    ['eq(any)', pairs, 'a=eq.1&b=eq(any).{2}', { a: 1, b: 2 }, [405, 'PGRST105']],
    ['a JSON path', things, 'id->>x=eq.5', { id: 5 }, [405, 'PGRST105']],
    ['a non-key column', pairs, 'a=eq.1&b=eq.2&label=eq.x', { a: 1, b: 2 }, [405, 'PGRST105']],
    ['a repeated key column', pairs, 'a=eq.1&a=eq.1', { a: 1, b: 2 }, [405, 'PGRST105']],
    ['a table without a primary key', nokey, 'id=eq.1', { id: 1 }, [405, 'PGRST105']],
    ['offset', things, 'id=eq.1&offset=1', { id: 1 }, [400, 'PGRST114']],
    ['a mismatching key value', things, 'id=eq.1', { id: 2 }, [400, 'PGRST115']],
    ['a null key value', things, 'id=eq.1', { id: null }, [400, 'PGRST115']],
    ['an empty array', things, 'id=eq.1', [], [400, 'PGRST102']],
    ['a scalar', things, 'id=eq.1', 'x', [400, 'PGRST102']],
  ])('%s', (_label, table, qs, body, expected) => {
    expect(codeOf(() => putRow(table, q(qs), body))).toEqual(expected);
  });
});
