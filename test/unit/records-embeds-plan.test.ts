// Planner cases for embedding as PostgREST relates tables: one-to-one over a unique foreign key,
// many-to-many through a junction table, `rel=is.null` / `rel=not.is.null`, `order=rel(col)` and
// spread embeds — the SQL each produces, and PostgREST's error codes where it refuses; and the
// statement a planned count EXPLAINs.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { parseQuery } from '../../src/modules/records/grammar/query.js';
import type { Column, ForeignKey, SchemaSnapshot, Table } from '../../src/modules/records/schema-cache.js';
import { plannedCountStatement, readStatement } from '../../src/modules/records/plan-and-render.js';

function table(name: string, columns: string[], primaryKey: string[], unique: string[][] = []): Table {
  const cols = columns.map((n): [string, Column] => [
    n,
    { name: n, type: 'integer', nullable: true, hasDefault: false },
  ]);
  return {
    schema: 'public',
    name,
    kind: 'table',
    columns: new Map(cols),
    primaryKey,
    uniqueKeys: [primaryKey, ...unique],
  };
}
const fk = (name: string, from: string, columns: string[], to: string): ForeignKey => ({
  name,
  schema: 'public',
  table: from,
  columns,
  refSchema: 'public',
  refTable: to,
  refColumns: ['id'],
});

const countries = table('countries', ['id', 'name'], ['id']);
const capitals = table('capitals', ['id', 'name', 'country_id'], ['id'], [['country_id']]);
const users = table('users', ['id', 'name', 'country_id'], ['id']);
const teams = table('teams', ['id', 'name'], ['id']);
const members = table('members', ['user_id', 'team_id'], ['user_id', 'team_id']);
/** A link table whose foreign keys are not inside one key: not a junction. */
const likes = table('likes', ['id', 'user_id', 'team_id'], ['id']);
const snapshot: SchemaSnapshot = {
  version: '1',
  schemas: ['public'],
  tables: new Map([countries, capitals, users, teams, members, likes].map((t) => [`public.${t.name}`, t])),
  foreignKeys: [
    fk('capitals_country_id_fkey', 'capitals', ['country_id'], 'countries'),
    fk('users_country_id_fkey', 'users', ['country_id'], 'countries'),
    fk('members_user_id_fkey', 'members', ['user_id'], 'users'),
    fk('members_team_id_fkey', 'members', ['team_id'], 'teams'),
    fk('likes_user_id_fkey', 'likes', ['user_id'], 'users'),
    fk('likes_team_id_fkey', 'likes', ['team_id'], 'teams'),
  ],
  routines: new Map(),
};
const flat = (sql: string) => sql.replace(/\s+/g, ' ').trim();
const read = (target: Table, qs: string) => {
  const s = readStatement(snapshot, target, parseQuery(new URLSearchParams(qs)), { maxRows: 100, count: false });
  return { sql: flat(s.text), params: s.params };
};
const junction = `exists (select 1 from "public"."members" t1_j where t1_j."team_id" = t1."id" and t1_j."user_id" = t0."id")`;

describe('relationships', () => {
  it.each<[string, Table, string, string]>([
    [
      'one-to-one from the referenced side: an object',
      countries,
      'select=name,capitals(name)',
      `(select row_to_json(_e) from (select t1."name" as "name" from "public"."capitals" t1 where t1."country_id" = t0."id" limit 1) _e) as "capitals"`,
    ],
    [
      'one-to-many stays an array when the key is not unique',
      countries,
      'select=name,users(name)',
      `(select coalesce(json_agg(_e), '[]'::json) from (select t1."name" as "name" from "public"."users" t1 where t1."country_id" = t0."id") _e) as "users"`,
    ],
    [
      'many-to-many: a semi-join through the junction',
      users,
      'select=name,teams(name)',
      `(select coalesce(json_agg(_e), '[]'::json) from (select t1."name" as "name" from "public"."teams" t1 where ${junction}) _e) as "teams"`,
    ],
    [
      'many-to-many by the junction hint, filtered and ordered',
      users,
      'select=teams!members(name)&teams.id=gt.1&teams.order=name',
      `from "public"."teams" t1 where ${junction} and t1."id" > $2::text::integer order by t1."name" asc) _e) as "teams"`,
    ],
  ])('%s', (_label, target, qs, fragment) => {
    expect(read(target, qs).sql).toContain(fragment);
  });
});

describe('filters on the embed itself', () => {
  it.each<[string, string, string]>([
    [
      'not.is.null: rows with a match',
      'select=name,countries(name)&countries=not.is.null',
      `where exists (select 1 from "public"."countries" t1 where t1."id" = t0."country_id") limit $1`,
    ],
    [
      'is.null: rows without one',
      'select=name,countries(name)&countries=is.null',
      `where not exists (select 1 from "public"."countries" t1 where t1."id" = t0."country_id") limit $1`,
    ],
    [
      'is.null counts the embed filters',
      'select=name,c:countries(name)&c.name=eq.x&c=is.null',
      `where not exists (select 1 from "public"."countries" t1 where t1."id" = t0."country_id" and t1."name" = $1::text::integer) limit $2`,
    ],
    [
      'many-to-many',
      'select=name,teams(name)&teams=not.is.null',
      `where exists (select 1 from "public"."teams" t1 where ${junction}) limit $1`,
    ],
    [
      'inside or=(…)',
      'select=name,countries(name)&or=(countries.is.null,name.eq.x)',
      `where ((not exists (select 1 from "public"."countries" t1 where t1."id" = t0."country_id")) or (t0."name" = $1::text::integer)) limit $2`,
    ],
    [
      'negated, nested in and(…), by alias',
      'select=name,c:countries(name)&or=(name.eq.x,and(c.not.is.null,name.neq.y))',
      `where ((t0."name" = $1::text::integer) or (((exists (select 1 from "public"."countries" t1 where t1."id" = t0."country_id")) and (t0."name" <> $2::text::integer)))) limit $3`,
    ],
    [
      "inside an embed's own logic tree",
      'select=name,teams(name,users(name))&teams.or=(users.is.null,name.eq.x)',
      `(not exists (select 1 from "public"."users"`,
    ],
  ])('%s', (_label, qs, fragment) => {
    expect(read(users, qs).sql).toContain(fragment);
  });
});

describe('order=rel(col) and spreads', () => {
  it.each<[string, Table, string, string]>([
    [
      'order by a to-one column',
      users,
      'select=name,countries(name)&order=countries(name).desc',
      `order by (select t1."name" from "public"."countries" t1 where t1."id" = t0."country_id" limit 1) desc limit $1`,
    ],
    [
      'order by a one-to-one column, by alias',
      countries,
      'select=cap:capitals(name)&order=cap(name)',
      `order by (select t1."name" from "public"."capitals" t1 where t1."country_id" = t0."id" limit 1) asc`,
    ],
    [
      'spread: a lateral join, its columns in the row',
      users,
      'select=name,...countries(country:name)',
      `select t0."name" as "name", t1_s.* from "public"."users" t0 left join lateral (select t1."name" as "country" from "public"."countries" t1 where t1."id" = t0."country_id" limit 1) t1_s on true limit $1`,
    ],
  ])('%s', (_label, target, qs, fragment) => {
    expect(read(target, qs).sql).toContain(fragment);
  });

  it.each<[string, Table, string, number, string]>([
    ['order by a to-many embed', countries, 'select=users(name)&order=users(name)', 400, 'PGRST118'],
    ['order by an embed the select lacks', users, 'select=name&order=countries(name)', 400, 'PGRST108'],
    ['spread of a to-many embed', countries, 'select=...users(name)', 400, 'PGRST119'],
    ['spread of many-to-many', users, 'select=...teams(name)', 400, 'PGRST119'],
    [
      'a link table whose keys are not in one unique key is no junction',
      users,
      'select=teams!likes(name)',
      400,
      'PGRST200',
    ],
  ])('refuses %s (%s %s)', (_label, target, qs, status, code) => {
    try {
      read(target, qs);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect([(err as AppError).statusCode, (err as AppError).fields?.code]).toEqual([status, code]);
    }
  });
});

describe('count=planned: the statement EXPLAIN estimates', () => {
  it.each<[string, Table, string, string, unknown[]]>([
    ['a plain table', users, '', 'select t0.* from "public"."users" t0', []],
    [
      'filters, no order or paging',
      users,
      'select=id&name=eq.x&order=id&limit=3',
      'select t0."id" as "id" from "public"."users" t0 where t0."name" = $1::text::integer',
      ['x'],
    ],
    [
      'an !inner embed restricts the rows',
      users,
      'select=id,countries!inner(name)',
      `select t0."id" as "id", (select row_to_json(_e) from (select t1."name" as "name" from "public"."countries" t1 where t1."id" = t0."country_id" limit 1) _e) as "countries" from "public"."users" t0 where exists (select 1 from "public"."countries" t1 where t1."id" = t0."country_id")`,
      [],
    ],
  ])('%s', (_label, target, qs, sql, params) => {
    const s = plannedCountStatement(snapshot, target, parseQuery(new URLSearchParams(qs)));
    expect(flat(s.text)).toBe(sql);
    expect(s.params).toEqual(params);
  });
});
