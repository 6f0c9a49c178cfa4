// The admin SQL guard's reading of DDL, as a table of statements: the project's own objects in
// public may change (whatever lists of plain names the statement holds: enum labels, key columns,
// view column aliases), anything naming another schema is refused.
import { loadModule, parseSync } from 'libpg-query';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertProjectDdl } from '../../src/modules/database/raw-sql-ddl.js';

beforeAll(async () => {
  await loadModule?.();
});

function check(sql: string): string | null {
  const node = (parseSync(sql) as { stmts: { stmt: Record<string, unknown> }[] }).stmts[0]!.stmt;
  try {
    assertProjectDdl({ text: sql, kind: Object.keys(node)[0]!, node }, 1);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

describe('admin SQL DDL on public', () => {
  it.each([
    "create type public.mood as enum ('calm', 'happy')",
    "create type mood2 as enum ('a', 'b', 'c')",
    "alter type public.mood add value 'sad'",
    'create table public.pairs (a int, b int, primary key (a, b), unique (b, a))',
    'create table public.refs (a int, b int, foreign key (a, b) references public.pairs (a, b))',
    'create view public.v (x, y) as select 1, 2',
    'create index pairs_ab on public.pairs (a, b) include (b)',
    'create table public.owned (id uuid primary key, user_id uuid references auth.users (id))',
    'drop table public.pairs',
    "comment on table public.pairs is 'pairs'",
  ])('allows %s', (sql) => {
    expect(check(sql)).toBeNull();
  });

  it.each([
    ['drop table auth.users', 'auth'],
    ["comment on table auth.users is 'x'", 'auth'],
    ["create type storage.kind as enum ('a', 'b')", 'storage'],
    ['alter table system.secrets add column x int', 'system'],
    ['create function system.f() returns int language sql as $$ select 1 $$', 'system'],
    ['create schema other', 'Creating schemas'],
  ])('refuses %s', (sql, reason) => {
    expect(check(sql)).toContain(reason);
  });
});
