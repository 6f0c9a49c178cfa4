// The records planner as tables of cases: a query string (parsed by the real grammar) and a
// hand-made schema snapshot in, the SQL text and bound parameters of readStatement,
// insertStatement, updateStatement and deleteStatement out — every operator, logic trees, JSON
// paths, casts, renames, embeds over foreign keys, order and paging, the row cap, counts,
// upserts, representation, refused unfiltered writes — and the planner's errors.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import type { ParsedQuery } from '../../src/modules/records/grammar/ast.js';
import { parseQuery } from '../../src/modules/records/grammar/query.js';
import type { Column, ForeignKey, SchemaSnapshot, Table } from '../../src/modules/records/schema-cache.js';
import type { InsertOptions } from '../../src/modules/records/plan/writes.js';
import {
  deleteStatement,
  insertStatement,
  readStatement,
  updateStatement,
} from '../../src/modules/records/plan-and-render.js';

// ---------------------------------------------------------------------------------------------
// The schema: authors ← books (two foreign keys: author_id and editor_id) ← reviews; people
// with a foreign key to itself (manager_id); genres with no relationship; loose without a key.

function table(name: string, columns: Record<string, string>, primaryKey: string[] = ['id']): Table {
  const cols = Object.entries(columns).map(([n, type]): [string, Column] => [
    n,
    { name: n, type, nullable: true, hasDefault: false },
  ]);
  return {
    schema: 'public',
    name,
    kind: 'table',
    columns: new Map(cols),
    primaryKey,
    uniqueKeys: primaryKey.length ? [primaryKey] : [],
  };
}

const authors = table('authors', { id: 'integer', name: 'text', born: 'date', profile: 'jsonb' });
const books = table('books', {
  id: 'bigint',
  title: 'text',
  author_id: 'integer',
  editor_id: 'integer',
  price: 'numeric',
  tags: 'text[]',
  data: 'jsonb',
  search: 'tsvector',
  published: 'boolean',
  during: 'tstzrange',
});
const reviews = table('reviews', { id: 'integer', book_id: 'bigint', stars: 'integer', body: 'text' });
const people = table('people', { id: 'integer', name: 'text', manager_id: 'integer' });
const genres = table('genres', { id: 'integer', name: 'text' });
const loose = table('loose', { a: 'text', b: 'integer' }, []);
const odd = table('odd', { id: 'integer', 'a$&b': 'text' });

const fk = (name: string, from: string, columns: string[], to: string, refColumns: string[]): ForeignKey => ({
  name,
  schema: 'public',
  table: from,
  columns,
  refSchema: 'public',
  refTable: to,
  refColumns,
});

const snapshot: SchemaSnapshot = {
  version: '1',
  schemas: ['public'],
  tables: new Map([authors, books, reviews, people, genres, loose, odd].map((t) => [`public.${t.name}`, t])),
  foreignKeys: [
    fk('books_author_id_fkey', 'books', ['author_id'], 'authors', ['id']),
    fk('books_editor_id_fkey', 'books', ['editor_id'], 'authors', ['id']),
    fk('reviews_book_id_fkey', 'reviews', ['book_id'], 'books', ['id']),
    fk('people_manager_id_fkey', 'people', ['manager_id'], 'people', ['id']),
  ],
  routines: new Map(),
};

// ---------------------------------------------------------------------------------------------
// Helpers: each case reads like the URL's query string.

const q = (qs: string): ParsedQuery => parseQuery(new URLSearchParams(qs));
const flat = (sql: string) => sql.replace(/\s+/g, ' ').trim();
const MAX_ROWS = 1000;

function read(target: Table, qs: string, options: { maxRows?: number; count?: boolean } = {}) {
  const s = readStatement(snapshot, target, q(qs), {
    maxRows: options.maxRows ?? MAX_ROWS,
    count: options.count ?? false,
  });
  return { sql: flat(s.text), params: s.params, returnsBody: s.returnsBody };
}

/** The planner's error: an AppError with PostgREST's code in its fields. */
function plannerError(run: () => unknown): { status: number; code: unknown; message: string; details: unknown } {
  try {
    run();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { status: err.statusCode, code: err.fields?.code, message: err.message, details: err.fields?.details };
  }
  throw new Error('expected the planner to refuse');
}

/** The root WHERE of a read: the text between the root's FROM and its ORDER BY / LIMIT / OFFSET. */
function rootWhere(sql: string, target = 'books'): string {
  const from = `from "public"."${target}" t0 where `;
  const start = sql.lastIndexOf(from);
  if (start < 0) return '';
  return sql
    .slice(start + from.length)
    .replace(/\) _r$/, '')
    .replace(/ offset \$\d+$/, '')
    .replace(/ limit \$\d+$/, '')
    .replace(/ order by [^()]*$/, '');
}

// ---------------------------------------------------------------------------------------------

describe('the whole read statement', () => {
  it('a plain read: all columns as a JSON array, the row cap as a bound limit, no total', () => {
    expect(read(books, '')).toEqual({
      sql: `select coalesce(json_agg(_r), '[]'::json)::text as body, count(_r)::int as page_rows, (null::bigint) as total from (select t0.* from "public"."books" t0 limit $1) _r`,
      params: [MAX_ROWS],
      returnsBody: true,
    });
  });

  it('with count: the total counts the same filtered rows, without the page', () => {
    expect(read(books, 'select=id&price=gt.5&limit=2', { count: true })).toEqual({
      sql:
        `select coalesce(json_agg(_r), '[]'::json)::text as body, count(_r)::int as page_rows, ` +
        `(select count(*) from "public"."books" t0 where t0."price" > $1::text::numeric) as total ` +
        `from (select t0."id" as "id" from "public"."books" t0 where t0."price" > $1::text::numeric limit $2) _r`,
      params: ['5', 2],
      returnsBody: true,
    });
  });
});

describe('every operator', () => {
  it.each<[string, string, unknown[]]>([
    ['price=eq.10', `t0."price" = $1::text::numeric`, ['10']],
    ['price=neq.10', `t0."price" <> $1::text::numeric`, ['10']],
    ['price=gt.10', `t0."price" > $1::text::numeric`, ['10']],
    ['price=gte.10', `t0."price" >= $1::text::numeric`, ['10']],
    ['price=lt.10', `t0."price" < $1::text::numeric`, ['10']],
    ['price=lte.10', `t0."price" <= $1::text::numeric`, ['10']],
    ['title=like.*Ring*', `t0."title"::text like $1::text`, ['%Ring%']],
    ['title=ilike.the*', `t0."title"::text ilike $1::text`, ['the%']],
    ['title=like.100%25', `t0."title"::text like $1::text`, ['100%']],
    ['title=match.^The', `t0."title"::text ~ $1::text`, ['^The']],
    ['title=imatch.ring$', `t0."title"::text ~* $1::text`, ['ring$']],
    ['id=like.1*', `t0."id"::text like $1::text`, ['1%']],
    ['id=in.(1,2,3)', `t0."id" = any($1::text[]::bigint[])`, [['1', '2', '3']]],
    ['title=in.("a,b",c)', `t0."title" = any($1::text[]::text[])`, [['a,b', 'c']]],
    ['id=in.()', `t0."id" = any($1::text[]::bigint[])`, [[]]],
    ['published=is.null', `t0."published" is null`, []],
    ['published=is.true', `t0."published" is true`, []],
    ['published=is.false', `t0."published" is false`, []],
    ['published=is.unknown', `t0."published" is unknown`, []],
    ['published=is.NULL', `t0."published" is null`, []],
    ['author_id=isdistinct.3', `t0."author_id" is distinct from $1::text::integer`, ['3']],
    ['tags=cs.{a,b}', `t0."tags" @> $1::text::text[]`, ['{a,b}']],
    ['tags=cd.{a,b,c}', `t0."tags" <@ $1::text::text[]`, ['{a,b,c}']],
    ['tags=ov.{a,z}', `t0."tags" && $1::text::text[]`, ['{a,z}']],
    ['data=cs.{"a":1}', `t0."data" @> $1::text::jsonb`, ['{"a":1}']],
    ['data=cd.{"a":1,"b":2}', `t0."data" <@ $1::text::jsonb`, ['{"a":1,"b":2}']],
    ['during=ov.[2024-01-01,2024-02-01)', `t0."during" && $1::text::tstzrange`, ['[2024-01-01,2024-02-01)']],
    ['during=sl.[2024-01-01,2024-02-01)', `t0."during" << $1::text::tstzrange`, ['[2024-01-01,2024-02-01)']],
    ['during=sr.[2024-01-01,2024-02-01)', `t0."during" >> $1::text::tstzrange`, ['[2024-01-01,2024-02-01)']],
    ['during=nxl.[2024-01-01,2024-02-01)', `t0."during" &< $1::text::tstzrange`, ['[2024-01-01,2024-02-01)']],
    ['during=nxr.[2024-01-01,2024-02-01)', `t0."during" &> $1::text::tstzrange`, ['[2024-01-01,2024-02-01)']],
    ['during=adj.[2024-01-01,2024-02-01)', `t0."during" -|- $1::text::tstzrange`, ['[2024-01-01,2024-02-01)']],
    ['search=fts.cat', `t0."search" @@ to_tsquery($1)`, ['cat']],
    ['search=plfts.fat cats', `t0."search" @@ plainto_tsquery($1)`, ['fat cats']],
    ['search=phfts.fat cats', `t0."search" @@ phraseto_tsquery($1)`, ['fat cats']],
    ['search=wfts.fat -rat', `t0."search" @@ websearch_to_tsquery($1)`, ['fat -rat']],
    ['search=fts(english).cats', `t0."search" @@ to_tsquery($1::regconfig, $2)`, ['english', 'cats']],
    ['title=fts.cat', `to_tsvector(t0."title") @@ to_tsquery($1)`, ['cat']],
    [
      'title=plfts(french).chats',
      `to_tsvector($1::regconfig, t0."title") @@ plainto_tsquery($1::regconfig, $2)`,
      ['french', 'chats'],
    ],
    ['data->>body=wfts.cat', `to_tsvector((t0."data"->>$1::text)) @@ websearch_to_tsquery($2)`, ['body', 'cat']],
  ])('%s', (qs, fragment, params) => {
    const { sql, params: bound } = read(books, qs);
    expect(rootWhere(sql)).toBe(fragment);
    expect(bound).toEqual([...params, MAX_ROWS]);
  });
});

describe('not., quantifiers', () => {
  it.each<[string, string, unknown[]]>([
    ['price=not.eq.10', `not (t0."price" = $1::text::numeric)`, ['10']],
    ['id=not.in.(1,2)', `not (t0."id" = any($1::text[]::bigint[]))`, [['1', '2']]],
    ['published=not.is.null', `not (t0."published" is null)`, []],
    ['title=not.like.*x*', `not (t0."title"::text like $1::text)`, ['%x%']],
    ['tags=not.cs.{a}', `not (t0."tags" @> $1::text::text[])`, ['{a}']],
    ['search=not.fts.cat', `not (t0."search" @@ to_tsquery($1))`, ['cat']],
    ['id=eq(any).{1,2}', `t0."id" = any($1::text[]::bigint[])`, [['1', '2']]],
    ['price=gt(all).{1,2}', `t0."price" > all($1::text[]::numeric[])`, [['1', '2']]],
    ['price=gte(any).{5}', `t0."price" >= any($1::text[]::numeric[])`, [['5']]],
    ['price=lt(any).{5,6}', `t0."price" < any($1::text[]::numeric[])`, [['5', '6']]],
    ['price=lte(all).{5,6}', `t0."price" <= all($1::text[]::numeric[])`, [['5', '6']]],
    ['title=like(any).{a*,*b}', `t0."title"::text like any($1::text[]::text[])`, [['a%', '%b']]],
    ['title=ilike(all).{*a*,*b*}', `t0."title"::text ilike all($1::text[]::text[])`, [['%a%', '%b%']]],
    ['title=match(any).{^a,b$}', `t0."title"::text ~ any($1::text[]::text[])`, [['^a', 'b$']]],
    ['title=imatch(all).{a,b}', `t0."title"::text ~* all($1::text[]::text[])`, [['a', 'b']]],
    ['price=not.gt(any).{1,2}', `not (t0."price" > any($1::text[]::numeric[]))`, [['1', '2']]],
  ])('%s', (qs, fragment, params) => {
    const { sql, params: bound } = read(books, qs);
    expect(rootWhere(sql)).toBe(fragment);
    expect(bound).toEqual([...params, MAX_ROWS]);
  });

  // Quantified pattern operators read a non-text column as text, like the unquantified ones
  // (`bigint ~~ any(text[])` would fail in PostgreSQL).
  it('id=like(any).{1*,2*} casts a non-text column to text as the unquantified form does', () => {
    const { sql } = read(books, 'id=like(any).{1*,2*}');
    expect(rootWhere(sql)).toBe(`t0."id"::text like any($1::text[]::text[])`);
  });
});

describe('logic trees', () => {
  it.each<[string, string, unknown[]]>([
    [
      'or=(price.lt.10,price.gt.100)',
      `((t0."price" < $1::text::numeric) or (t0."price" > $2::text::numeric))`,
      ['10', '100'],
    ],
    ['and=(price.gt.1,title.eq.x)', `((t0."price" > $1::text::numeric) and (t0."title" = $2::text::text))`, ['1', 'x']],
    [
      'not.or=(price.lt.10,published.is.true)',
      `not ((t0."price" < $1::text::numeric) or (t0."published" is true))`,
      ['10'],
    ],
    ['not.and=(id.eq.1,id.eq.2)', `not ((t0."id" = $1::text::bigint) and (t0."id" = $2::text::bigint))`, ['1', '2']],
    [
      'or=(id.eq.1,and(price.gt.5,published.is.false))',
      `((t0."id" = $1::text::bigint) or (((t0."price" > $2::text::numeric) and (t0."published" is false))))`,
      ['1', '5'],
    ],
    [
      'or=(id.eq.1,not.and(price.gt.5,price.lt.9))',
      `((t0."id" = $1::text::bigint) or (not ((t0."price" > $2::text::numeric) and (t0."price" < $3::text::numeric))))`,
      ['1', '5', '9'],
    ],
    [
      'or=(price.not.eq.1,title.in.(a,b))',
      `((not (t0."price" = $1::text::numeric)) or (t0."title" = any($2::text[]::text[])))`,
      ['1', ['a', 'b']],
    ],
    [
      'or=(tags.cs.{a,b},id.eq(any).{1,2})',
      `((t0."tags" @> $1::text::text[]) or (t0."id" = any($2::text[]::bigint[])))`,
      ['{a,b}', ['1', '2']],
    ],
    [
      'or=(data->>color.eq.red,data->n.gt.3)',
      `(((t0."data"->>$1::text) = $2::text::text) or ((t0."data"->$3::text) > $4::text::jsonb))`,
      ['color', 'red', 'n', '3'],
    ],
    [
      'or=(search.fts(english).cat,title.like.*cat*)',
      `((t0."search" @@ to_tsquery($1::regconfig, $2)) or (t0."title"::text like $3::text))`,
      ['english', 'cat', '%cat%'],
    ],
    [
      'published=is.true&or=(price.lt.10,price.gt.100)',
      `t0."published" is true and ((t0."price" < $1::text::numeric) or (t0."price" > $2::text::numeric))`,
      ['10', '100'],
    ],
    ['id=gt.1&id=lt.9', `t0."id" > $1::text::bigint and t0."id" < $2::text::bigint`, ['1', '9']],
  ])('%s', (qs, fragment, params) => {
    const { sql, params: bound } = read(books, qs);
    expect(rootWhere(sql)).toBe(fragment);
    expect(bound).toEqual([...params, MAX_ROWS]);
  });
});

describe('JSON paths in filters', () => {
  it.each<[string, string, unknown[]]>([
    ['data->>color=eq.red', `(t0."data"->>$1::text) = $2::text::text`, ['color', 'red']],
    ['data->meta->>n=eq.3', `((t0."data"->$1::text)->>$2::text) = $3::text::text`, ['meta', 'n', '3']],
    ['data->tags->0=eq."x"', `((t0."data"->$1::text)->$2::int) = $3::text::jsonb`, ['tags', 0, '"x"']],
    ['data->>0=eq.x', `(t0."data"->>$1::int) = $2::text::text`, [0, 'x']],
    ['data->tags=cs.["a"]', `(t0."data"->$1::text) @> $2::text::jsonb`, ['tags', '["a"]']],
    ['data->>color=in.(red,blue)', `(t0."data"->>$1::text) = any($2::text[]::text[])`, ['color', ['red', 'blue']]],
    ['data->>color=is.null', `(t0."data"->>$1::text) is null`, ['color']],
    ['data->>color=like.r*', `(t0."data"->>$1::text)::text like $2::text`, ['color', 'r%']],
    ["data->>it's=eq.x", `(t0."data"->>$1::text) = $2::text::text`, ["it's", 'x']],
  ])('%s', (qs, fragment, params) => {
    const { sql, params: bound } = read(books, qs);
    expect(rootWhere(sql)).toBe(fragment);
    expect(bound).toEqual([...params, MAX_ROWS]);
  });
});

describe('select: columns, renames, casts, JSON paths', () => {
  // The select list is planned after the root's WHERE, ORDER BY and LIMIT: its JSON keys follow the limit ($1).
  it.each<[string, string, unknown[]]>([
    ['select=*', `t0.*`, []],
    ['select=id,title', `t0."id" as "id", t0."title" as "title"`, []],
    ['select=name:title', `t0."title" as "name"`, []],
    ['select=price::text', `cast(t0."price" as text) as "price"`, []],
    ['select=p:price::int', `cast(t0."price" as int) as "p"`, []],
    ['select=price::double precision', `cast(t0."price" as double precision) as "price"`, []],
    ['select=tags::text[]', `cast(t0."tags" as text[]) as "tags"`, []],
    ['select=data->>color', `(t0."data"->>$2::text) as "color"`, ['color']],
    ['select=data->meta', `(t0."data"->$2::text) as "meta"`, ['meta']],
    ['select=c:data->meta->>color', `((t0."data"->$2::text)->>$3::text) as "c"`, ['meta', 'color']],
    ['select=data->>n::int', `cast((t0."data"->>$2::text) as int) as "n"`, ['n']],
    ['select=data->tags->0', `((t0."data"->$2::text)->$3::int) as "0"`, ['tags', 0]],
    ['select="my title":title', `t0."title" as "my title"`, []],
    ['select=id,*', `t0."id" as "id", t0.*`, []],
    ['select=', `t0.*`, []],
  ])('%s', (qs, columns, params) => {
    const { sql, params: bound } = read(books, qs);
    expect(sql).toContain(`from (select ${columns} from "public"."books" t0 limit $1) _r`);
    expect(bound).toEqual([MAX_ROWS, ...params]);
  });
});

const toOne = (alias: string, columns: string, target: string, join: string, name: string) =>
  `(select row_to_json(_e) from (select ${columns} from "public"."${target}" ${alias} where ${join} limit 1) _e) as "${name}"`;
const toMany = (alias: string, columns: string, target: string, where: string, name: string, tail = '') =>
  `(select coalesce(json_agg(_e), '[]'::json) from (select ${columns} from "public"."${target}" ${alias} where ${where}${tail}) _e) as "${name}"`;

describe('embedded resources over foreign keys', () => {
  it.each<[string, Table, string, string, unknown[]]>([
    [
      'to-one, disambiguated by the foreign key column',
      books,
      'select=title,authors!author_id(name)',
      `t0."title" as "title", ${toOne('t1', 't1."name" as "name"', 'authors', 't1."id" = t0."author_id"', 'authors')}`,
      [],
    ],
    [
      'to-one, disambiguated by the constraint name, renamed',
      books,
      'select=editor:authors!books_editor_id_fkey(name)',
      toOne('t1', 't1."name" as "name"', 'authors', 't1."id" = t0."editor_id"', 'editor'),
      [],
    ],
    [
      'to-one with every column',
      books,
      'select=id,author:authors!author_id(*)',
      `t0."id" as "id", ${toOne('t1', 't1.*', 'authors', 't1."id" = t0."author_id"', 'author')}`,
      [],
    ],
    [
      'to-one with an empty select: every column',
      books,
      'select=id,author:authors!author_id()',
      `t0."id" as "id", ${toOne('t1', 't1.*', 'authors', 't1."id" = t0."author_id"', 'author')}`,
      [],
    ],
    [
      'to-many',
      books,
      'select=title,reviews(stars)',
      `t0."title" as "title", ${toMany('t1', 't1."stars" as "stars"', 'reviews', 't1."book_id" = t0."id"', 'reviews')}`,
      [],
    ],
    [
      'to-many from the parent, disambiguated by the child column',
      authors,
      'select=name,written:books!author_id(title)',
      `t0."name" as "name", ${toMany('t1', 't1."title" as "title"', 'books', 't1."author_id" = t0."id"', 'written')}`,
      [],
    ],
    [
      'nested: to-many inside to-many',
      authors,
      'select=name,books!author_id(title,reviews(stars))',
      `t0."name" as "name", ${toMany('t1', `t1."title" as "title", ${toMany('t2', 't2."stars" as "stars"', 'reviews', 't2."book_id" = t1."id"', 'reviews')}`, 'books', 't1."author_id" = t0."id"', 'books')}`,
      [],
    ],
    [
      'nested: to-one inside to-many',
      reviews,
      'select=stars,book:books(title,author:authors!author_id(name))',
      `t0."stars" as "stars", ${toOne('t1', `t1."title" as "title", ${toOne('t2', 't2."name" as "name"', 'authors', 't2."id" = t1."author_id"', 'author')}`, 'books', 't1."id" = t0."book_id"', 'book')}`,
      [],
    ],
    [
      'a filter on the embedded resource',
      books,
      'select=title,reviews(stars)&reviews.stars=gte.4',
      `t0."title" as "title", ${toMany('t1', 't1."stars" as "stars"', 'reviews', 't1."book_id" = t0."id" and t1."stars" >= $2::text::integer', 'reviews')}`,
      ['4'],
    ],
    [
      'a logic tree on the embedded resource, by its alias',
      books,
      'select=title,critiques:reviews(stars)&critiques.or=(stars.eq.1,stars.eq.5)',
      `t0."title" as "title", ${toMany('t1', 't1."stars" as "stars"', 'reviews', 't1."book_id" = t0."id" and ((t1."stars" = $2::text::integer) or (t1."stars" = $3::text::integer))', 'critiques')}`,
      ['1', '5'],
    ],
    [
      'order and limit/offset of the embedded resource',
      books,
      'select=title,reviews(stars)&reviews.order=stars.desc&reviews.limit=2&reviews.offset=1',
      `t0."title" as "title", ${toMany('t1', 't1."stars" as "stars"', 'reviews', 't1."book_id" = t0."id"', 'reviews', ' order by t1."stars" desc limit $2 offset $3')}`,
      [2, 1],
    ],
    [
      'a rename, cast and JSON path inside an embed',
      books,
      'select=author:authors!author_id(n:name,born::text,profile->>city)',
      toOne(
        't1',
        't1."name" as "n", cast(t1."born" as text) as "born", (t1."profile"->>$2::text) as "city"',
        'authors',
        't1."id" = t0."author_id"',
        'author',
      ),
      ['city'],
    ],
  ])('%s', (_label, target, qs, columns, params) => {
    const { sql, params: bound } = read(target, qs);
    expect(sql).toContain(`from (select ${columns} from "public"."${target.name}" t0 limit $1) _r`);
    expect(bound).toEqual([MAX_ROWS, ...params]);
  });

  it('!inner keeps only the rows that have a match, in the page and in the total', () => {
    const { sql, params } = read(books, 'select=title,reviews!inner(stars)&reviews.stars=eq.5', { count: true });
    const exists = `exists (select 1 from "public"."reviews" t1 where t1."book_id" = t0."id" and t1."stars" = $2::text::integer)`;
    expect(sql).toContain(`(select count(*) from "public"."books" t0 where ${exists}) as total`);
    expect(sql).toContain(`from "public"."books" t0 where ${exists} limit $1) _r`);
    expect(params).toEqual([MAX_ROWS, '5']);
  });

  it('!inner on a to-one embed with a root filter', () => {
    const { sql, params } = read(
      books,
      'select=title,author:authors!author_id!inner(name)&author.name=eq.Ann&price=gt.1',
    );
    expect(rootWhere(sql)).toBe(
      `t0."price" > $1::text::numeric and exists (select 1 from "public"."authors" t1 where t1."id" = t0."author_id" and t1."name" = $3::text::text)`,
    );
    expect(params).toEqual(['1', MAX_ROWS, 'Ann']);
  });

  it.each<[string, Table, string, number, string]>([
    ['two foreign keys to the same table and no hint', books, 'select=authors(name)', 300, 'PGRST201'],
    ['the same from the referenced side', authors, 'select=books(title)', 300, 'PGRST201'],
    ['no foreign key between the tables', books, 'select=genres(name)', 400, 'PGRST200'],
    ['an unknown table', books, 'select=nope(name)', 400, 'PGRST200'],
    ['a hint that names no foreign key', books, 'select=authors!nope(name)', 400, 'PGRST200'],
    ['a column the embedded table lacks', books, 'select=reviews(nope)', 400, '42703'],
    ['a filter on a column the embedded table lacks', books, 'select=reviews(stars)&reviews.nope=eq.1', 400, '42703'],
    [
      'embedding deeper than five levels',
      reviews,
      'select=book:books(reviews(book:books(reviews(book:books(reviews(id))))))',
      400,
      'PGRST100',
    ],
  ])('%s → %i %s', (_label, target, qs, status, code) => {
    expect(plannerError(() => read(target, qs))).toMatchObject({ status, code });
  });

  it('the ambiguity names the candidate foreign keys', () => {
    expect(plannerError(() => read(books, 'select=authors(name)'))).toMatchObject({
      status: 300,
      code: 'PGRST201',
      message: "Could not embed because more than one relationship was found for 'books' and 'authors'",
      details: 'books_author_id_fkey, books_editor_id_fkey',
    });
  });

  // A self-referencing foreign key, embedded by the table's name, is the one-to-many side (the
  // people it manages), with or without the column hint, as PostgREST resolves it.
  it.each([
    ['people(name) on people: the people it manages', 'select=name,reports:people(name)'],
    ['people!manager_id(name) on people: the same, by the column hint', 'select=name,reports:people!manager_id(name)'],
  ])('self-reference: %s', (_label, qs) => {
    const { sql } = read(people, qs);
    expect(sql).toContain(toMany('t1', 't1."name" as "name"', 'people', 't1."manager_id" = t0."id"', 'reports'));
  });
});

describe('embedding by a foreign key column', () => {
  it('manager:manager_id(name) on people is the row the key points at', () => {
    const { sql } = read(people, 'select=name,manager:manager_id(name)');
    expect(sql).toContain(toOne('t1', 't1."name" as "name"', 'people', 't1."id" = t0."manager_id"', 'manager'));
  });
});

describe('order, paging and the row cap', () => {
  it.each<[string, string, unknown[], number?]>([
    ['order=price.desc', ` order by t0."price" desc limit $1`, [MAX_ROWS]],
    ['order=price', ` order by t0."price" asc limit $1`, [MAX_ROWS]],
    ['order=price.desc.nullslast,title', ` order by t0."price" desc nulls last, t0."title" asc limit $1`, [MAX_ROWS]],
    ['order=price.nullsfirst', ` order by t0."price" asc nulls first limit $1`, [MAX_ROWS]],
    ['order=data->>rank.desc', ` order by (t0."data"->>$1::text) desc limit $2`, ['rank', MAX_ROWS]],
    ['limit=10', ` limit $1`, [10]],
    ['limit=0', ` limit $1`, [0]],
    ['limit=5000', ` limit $1`, [MAX_ROWS]],
    ['offset=20', ` limit $1 offset $2`, [MAX_ROWS, 20]],
    ['offset=0', ` limit $1`, [MAX_ROWS]],
    ['limit=5&offset=10&order=id', ` order by t0."id" asc limit $1 offset $2`, [5, 10]],
    ['', ` limit $1`, [50], 50],
    ['limit=80', ` limit $1`, [50], 50],
    ['limit=20', ` limit $1`, [20], 50],
  ])('%s', (qs, tail, params, maxRows) => {
    const { sql, params: bound } = read(books, qs, { maxRows });
    expect(sql).toContain(`from "public"."books" t0${tail}) _r`);
    expect(bound).toEqual(params);
  });

  it('an order on a column the table lacks → 400 42703', () => {
    expect(plannerError(() => read(books, 'order=nope.desc'))).toMatchObject({ status: 400, code: '42703' });
  });

  // The total's WHERE is put in literally: `$&` in a column name is not a replacement pattern.
  it('count with a column whose name holds "$&" keeps the name intact', () => {
    const { sql } = read(odd, '%22a$%26b%22=eq.x', { count: true }); // ?"a$&b"=eq.x
    expect(sql).toContain(`(select count(*) from "public"."odd" t0 where t0."a$&b" = $1::text::text) as total`);
  });
});

describe('insert', () => {
  const rows = [{ id: 1, title: 'x', price: 2 }];
  const insert = (target: Table, qs: string, options: Partial<InsertOptions> = {}) => {
    const s = insertStatement(snapshot, target, q(qs), rows, {
      columns: ['id', 'title', 'price'],
      representation: false,
      ...options,
    });
    return { sql: flat(s.text), params: s.params, returnsBody: s.returnsBody };
  };
  const into = (target = 'books', cols = '"id", "title", "price"') =>
    `insert into "public"."${target}" as t0 (${cols}) select ${cols} from json_populate_recordset(null::"public"."${target}", $1::text::json)`;

  it.each<[string, () => ReturnType<typeof insert>, string, boolean]>([
    ['minimal: only a row count comes back', () => insert(books, ''), into(), false],
    [
      'representation: the inserted rows as the answer',
      () => insert(books, '', { representation: true }),
      `with _changed as (${into()} returning t0.*) select coalesce(json_agg(_r), '[]'::json)::text as body, count(_r)::int as page_rows, (null::bigint) as total from (select t0.* from _changed t0) _r`,
      true,
    ],
    [
      'representation shaped by select, with an embed',
      () => insert(books, 'select=id,author:authors!author_id(name)', { representation: true }),
      `with _changed as (${into()} returning t0.*) select coalesce(json_agg(_r), '[]'::json)::text as body, count(_r)::int as page_rows, (null::bigint) as total from (select t0."id" as "id", ${toOne('t1', 't1."name" as "name"', 'authors', 't1."id" = t0."author_id"', 'author')} from _changed t0) _r`,
      true,
    ],
    [
      'ignore-duplicates on the primary key',
      () => insert(books, '', { resolution: 'ignore-duplicates' }),
      `${into()} on conflict ("id") do nothing`,
      false,
    ],
    [
      'ignore-duplicates on on_conflict columns',
      () => insert(books, 'on_conflict=title', { resolution: 'ignore-duplicates' }),
      `${into()} on conflict ("title") do nothing`,
      false,
    ],
    [
      'merge-duplicates where every column is a key: nothing to update',
      () => insertStatementOf(['id'], 'merge-duplicates'),
      `${into('books', '"id"')} on conflict ("id") do nothing`,
      false,
    ],
    [
      'columns= picks the body keys',
      () => {
        const s = insertStatement(snapshot, books, q('columns=title'), rows, {
          columns: ['title'],
          representation: false,
        });
        return { sql: flat(s.text), params: s.params, returnsBody: s.returnsBody };
      },
      into('books', '"title"'),
      false,
    ],
  ])('%s', (_label, run, sql, returnsBody) => {
    const s = run();
    expect(s.sql).toBe(sql);
    expect(s.params).toEqual([JSON.stringify(rows)]);
    expect(s.returnsBody).toBe(returnsBody);
  });

  function insertStatementOf(columns: string[], resolution: InsertOptions['resolution']) {
    const s = insertStatement(snapshot, books, q(''), rows, { columns, representation: false, resolution });
    return { sql: flat(s.text), params: s.params, returnsBody: s.returnsBody };
  }

  it.each<[string, string, boolean]>([
    ['merge-duplicates on the primary key', '', false],
    ['merge-duplicates on on_conflict columns', 'on_conflict=title', false],
    ['merge-duplicates with representation', 'select=id', true],
  ])('%s: updates every non-key column from excluded', (_label, qs, representation) => {
    const s = insert(books, qs, { resolution: 'merge-duplicates', representation });
    const keys = qs.includes('on_conflict=title') ? '"title"' : '"id"';
    const sets = ['"id"', '"title"', '"price"']
      .filter((c) => c !== keys)
      .map((c) => `${c} = excluded.${c}`)
      .join(', ');
    expect(s.sql).toContain(`${into()} on conflict (${keys}) do update set ${sets}`);
    expect(s.params).toEqual([JSON.stringify(rows)]);
    expect(s.returnsBody).toBe(representation);
    if (representation) expect(s.sql).toContain(`select t0."id" as "id" from _changed t0`);
  });

  it.each<[string, () => unknown, number, string]>([
    [
      'an upsert on a table without a primary key and without on_conflict',
      () => insert(loose, '', { columns: ['a'], resolution: 'merge-duplicates' }),
      400,
      'PGRST100',
    ],
    [
      'an on_conflict column the table lacks',
      () => insert(books, 'on_conflict=nope', { resolution: 'merge-duplicates' }),
      400,
      '42703',
    ],
    ['a body key that is no column', () => insert(books, '', { columns: ['id', 'nope'] }), 400, 'PGRST204'],
    [
      'a select column the table lacks (representation)',
      () => insert(books, 'select=nope', { representation: true }),
      400,
      '42703',
    ],
  ])('%s → %i %s', (_label, run, status, code) => {
    expect(plannerError(run)).toMatchObject({ status, code });
  });
});

describe('update', () => {
  const update = (qs: string, changes: Record<string, unknown>, representation = false) => {
    const s = updateStatement(snapshot, books, q(qs), changes, representation);
    return { sql: flat(s.text), params: s.params, returnsBody: s.returnsBody };
  };
  const set = (cols: string[], where: string) =>
    `update "public"."books" as t0 set ${cols.map((c) => `"${c}" = _j."${c}"`).join(', ')} from json_populate_record(null::"public"."books", $1::text::json) _j where ${where}`;

  it.each<[string, string, Record<string, unknown>, boolean, string, unknown[]]>([
    ['one column, filtered', 'id=eq.1', { title: 'y' }, false, set(['title'], `t0."id" = $2::text::bigint`), ['1']],
    [
      'several columns, two filters',
      'id=gt.1&published=is.false',
      { title: 'y', price: 3 },
      false,
      set(['title', 'price'], `t0."id" > $2::text::bigint and t0."published" is false`),
      ['1'],
    ],
    [
      'a logic tree as the filter',
      'or=(id.eq.1,id.eq.2)',
      { published: true },
      false,
      set(['published'], `((t0."id" = $2::text::bigint) or (t0."id" = $3::text::bigint))`),
      ['1', '2'],
    ],
    [
      'representation',
      'id=eq.1',
      { title: 'y' },
      true,
      `with _changed as (${set(['title'], `t0."id" = $2::text::bigint`)} returning t0.*) select coalesce(json_agg(_r), '[]'::json)::text as body, count(_r)::int as page_rows, (null::bigint) as total from (select t0.* from _changed t0) _r`,
      ['1'],
    ],
    [
      'representation shaped by select',
      'id=eq.1&select=id,title',
      { title: 'y' },
      true,
      `with _changed as (${set(['title'], `t0."id" = $2::text::bigint`)} returning t0.*) select coalesce(json_agg(_r), '[]'::json)::text as body, count(_r)::int as page_rows, (null::bigint) as total from (select t0."id" as "id", t0."title" as "title" from _changed t0) _r`,
      ['1'],
    ],
  ])('%s', (_label, qs, changes, representation, sql, filterParams) => {
    const s = update(qs, changes, representation);
    expect(s.sql).toBe(sql);
    expect(s.params).toEqual([JSON.stringify(changes), ...filterParams]);
    expect(s.returnsBody).toBe(representation);
  });

  it.each<[string, string, Record<string, unknown>, number, string]>([
    ['without any filter', '', { title: 'y' }, 400, '21000'],
    ['with only a select', 'select=id', { title: 'y' }, 400, '21000'],
    ['with only order and limit', 'order=id&limit=1', { title: 'y' }, 400, '21000'],
    [
      'with only a filter on an embedded resource',
      'select=id,reviews(id)&reviews.stars=eq.1',
      { title: 'y' },
      400,
      '21000',
    ],
    ['naming no column', 'id=eq.1', {}, 400, 'PGRST100'],
    ['naming a column the table lacks', 'id=eq.1', { nope: 1 }, 400, 'PGRST204'],
    ['filtering on a column the table lacks', 'nope=eq.1', { title: 'y' }, 400, '42703'],
  ])('refused %s → %i %s', (_label, qs, changes, status, code) => {
    expect(plannerError(() => update(qs, changes))).toMatchObject({ status, code });
  });

  it('the refusal says why and what to do', () => {
    expect(plannerError(() => update('', { title: 'y' })).message).toBe(
      'An update without any filter would change every row; it was refused.',
    );
    expect(plannerError(() => deleteStatement(snapshot, books, q(''), false)).message).toBe(
      'A delete without any filter would change every row; it was refused.',
    );
  });
});

describe('delete', () => {
  const del = (qs: string, representation = false) => {
    const s = deleteStatement(snapshot, books, q(qs), representation);
    return { sql: flat(s.text), params: s.params, returnsBody: s.returnsBody };
  };

  it.each<[string, string, boolean, string, unknown[]]>([
    ['filtered', 'id=eq.1', false, `delete from "public"."books" as t0 where t0."id" = $1::text::bigint`, ['1']],
    [
      'by a list',
      'id=in.(1,2)',
      false,
      `delete from "public"."books" as t0 where t0."id" = any($1::text[]::bigint[])`,
      [['1', '2']],
    ],
    [
      'negated',
      'published=not.is.true',
      false,
      `delete from "public"."books" as t0 where not (t0."published" is true)`,
      [],
    ],
    [
      'representation: the deleted rows',
      'id=eq.1',
      true,
      `with _changed as (delete from "public"."books" as t0 where t0."id" = $1::text::bigint returning t0.*) select coalesce(json_agg(_r), '[]'::json)::text as body, count(_r)::int as page_rows, (null::bigint) as total from (select t0.* from _changed t0) _r`,
      ['1'],
    ],
    [
      'representation shaped by select with an embed',
      'id=eq.1&select=title,reviews(stars)',
      true,
      `with _changed as (delete from "public"."books" as t0 where t0."id" = $1::text::bigint returning t0.*) select coalesce(json_agg(_r), '[]'::json)::text as body, count(_r)::int as page_rows, (null::bigint) as total from (select t0."title" as "title", ${toMany('t1', 't1."stars" as "stars"', 'reviews', 't1."book_id" = t0."id"', 'reviews')} from _changed t0) _r`,
      ['1'],
    ],
  ])('%s', (_label, qs, representation, sql, params) => {
    const s = del(qs, representation);
    expect(s.sql).toBe(sql);
    expect(s.params).toEqual(params);
    expect(s.returnsBody).toBe(representation);
  });

  it.each([
    ['without any filter', ''],
    ['with only a select', 'select=id'],
    ['with only an embedded filter', 'select=id,reviews(id)&reviews.id=eq.1'],
  ])('refused %s → 400 21000 (as pg-safeupdate)', (_label, qs) => {
    expect(plannerError(() => del(qs))).toMatchObject({ status: 400, code: '21000' });
  });
});

describe("the planner's errors", () => {
  it.each<[string, Table, string, number, string, string?]>([
    ['an unknown column in select', books, 'select=nope', 400, '42703', 'column books.nope does not exist'],
    ['an unknown column in a filter', books, 'nope=eq.1', 400, '42703', 'column books.nope does not exist'],
    ['an unknown column under a JSON path', books, 'nope->>a=eq.1', 400, '42703'],
    ['an unknown column in a logic tree', books, 'or=(id.eq.1,nope.eq.2)', 400, '42703'],
    ['an unknown column in a negated tree', books, 'not.and=(nope.eq.1,id.eq.2)', 400, '42703'],
    ['an unknown column renamed', books, 'select=x:nope', 400, '42703'],
    ['an unknown column cast', books, 'select=nope::text', 400, '42703'],
    ['an unknown column in order', books, 'order=nope', 400, '42703'],
    ['a cast to no type name', books, 'select=price::te$t', 400, 'PGRST100', 'Invalid cast "te$t"'],
    ['a cast starting with a digit', books, 'select=price::1nt', 400, 'PGRST100'],
  ])('%s → %i %s', (_label, target, qs, status, code, message) => {
    const error = plannerError(() => read(target, qs));
    expect(error).toMatchObject({ status, code });
    if (message) expect(error.message).toBe(message);
  });

  it('the unknown-column error lists the columns there are', () => {
    try {
      read(genres, 'select=nope');
    } catch (err) {
      expect((err as AppError).fields?.hint).toBe('The columns of genres are: id, name.');
      return;
    }
    throw new Error('expected a refusal');
  });

  it('identifiers are quoted from the schema cache, values never reach the text', () => {
    const { sql, params } = read(
      books,
      `title=eq.${encodeURIComponent("x'); drop table books; --")}&select=${encodeURIComponent('"a\\"b":title')}`,
    );
    expect(sql).not.toContain('drop table');
    expect(sql).toContain(`t0."title" as "a""b"`);
    expect(params).toEqual(["x'); drop table books; --", MAX_ROWS]);
  });
});
