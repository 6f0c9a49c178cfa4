// Planning of function calls as tables of cases: which GET parameters are arguments, which
// overload the argument names pick (and PostgREST's PGRST202/PGRST203 when none or several do),
// how JSON values become the text PostgreSQL casts, and the SQL of each result shape.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { parseQuery } from '../../src/modules/records/grammar/query.js';
import { argumentText, type RpcArguments } from '../../src/modules/records/plan/call.js';
import { findRoutine, splitCallQuery } from '../../src/modules/records/plan/routines.js';
import { callStatement } from '../../src/modules/records/plan-and-render.js';
import type { Column, Routine, RoutineArg, SchemaSnapshot, Table } from '../../src/modules/records/schema-cache.js';

const column = (name: string, type: string): Column => ({ name, type, nullable: true, hasDefault: false });
const items: Table = {
  schema: 'public',
  name: 'items',
  kind: 'table',
  columns: new Map([column('id', 'integer'), column('name', 'text'), column('owner', 'uuid')].map((c) => [c.name, c])),
  primaryKey: ['id'],
  uniqueKeys: [['id']],
};
const tags: Table = {
  schema: 'public',
  name: 'tags',
  kind: 'table',
  columns: new Map(
    [column('id', 'integer'), column('item_id', 'integer'), column('label', 'text')].map((c) => [c.name, c]),
  ),
  primaryKey: ['id'],
  uniqueKeys: [['id']],
};

const arg = (name: string, type: string, extra: Partial<RoutineArg> = {}): RoutineArg => ({
  name,
  type,
  hasDefault: false,
  variadic: false,
  ...extra,
});
function routine(name: string, args: RoutineArg[], extra: Partial<Routine> = {}): Routine {
  return {
    schema: 'public',
    name,
    args,
    returnsSet: false,
    returnsRows: false,
    volatile: false,
    returnType: 'integer',
    returnsVoid: false,
    columns: [],
    ...extra,
  };
}

const add = routine('add', [arg('a', 'integer'), arg('b', 'integer')]);
const greet = routine('greet', [arg('name', 'text', { hasDefault: true })], { returnType: 'text' });
const span = routine('span', [arg('start', 'date'), arg('days', 'integer', { hasDefault: true })], {
  returnType: 'date',
});
const pickInt = routine('pick', [arg('a', 'integer')]);
const pickText = routine('pick', [arg('b', 'text')]);
const ambInt = routine('amb', [arg('a', 'integer')]);
const ambText = routine('amb', [arg('a', 'text')]);
const echo = routine('echo', [arg('', 'jsonb')], { returnType: 'jsonb' });
const sumAll = routine('sum_all', [arg('xs', 'integer[]', { variadic: true })]);
const listItems = routine('list_items', [], {
  returnsSet: true,
  returnsRows: true,
  returnType: 'items',
  columns: [...items.columns.values()],
  returnTable: { schema: 'public', name: 'items' },
});
const firstItem = routine('first_item', [], {
  returnsRows: true,
  returnType: 'items',
  columns: [...items.columns.values()],
  returnTable: { schema: 'public', name: 'items' },
});
const stats = routine('stats', [arg('min', 'integer', { hasDefault: true })], {
  returnsSet: true,
  returnsRows: true,
  returnType: 'record',
  columns: [column('name', 'text'), column('total', 'bigint')],
});
const numbers = routine('numbers', [arg('n', 'integer')], { returnsSet: true });
const touch = routine('touch', [], { returnsVoid: true, returnType: 'void', volatile: true });

const snapshot: SchemaSnapshot = {
  version: '1',
  schemas: ['public'],
  tables: new Map([
    ['public.items', items],
    ['public.tags', tags],
  ]),
  foreignKeys: [
    {
      name: 'tags_item_id_fkey',
      schema: 'public',
      table: 'tags',
      columns: ['item_id'],
      refSchema: 'public',
      refTable: 'items',
      refColumns: ['id'],
    },
  ],
  routines: new Map(
    Object.entries({
      add: [add],
      greet: [greet],
      span: [span],
      pick: [pickInt, pickText],
      amb: [ambInt, ambText],
      echo: [echo],
      sum_all: [sumAll],
      list_items: [listItems],
      first_item: [firstItem],
      stats: [stats],
      numbers: [numbers],
      touch: [touch],
    }).map(([name, overloads]) => [`public.${name}`, overloads]),
  ),
};

function refusal(run: () => unknown) {
  try {
    run();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { status: err.statusCode, ...err.fields, message: err.message };
  }
  throw new Error('expected a refusal');
}

describe('splitCallQuery: arguments and the records grammar in one GET query string', () => {
  it.each<[string, Record<string, string[]>, [string, string][]]>([
    ['a=1&b=2', { a: ['1'], b: ['2'] }, []],
    [
      'a=1&select=name&order=id&limit=2&offset=1',
      { a: ['1'] },
      [
        ['select', 'name'],
        ['order', 'id'],
        ['limit', '2'],
        ['offset', '1'],
      ],
    ],
    ['a=1&id=eq.3', { a: ['1'] }, [['id', 'eq.3']]],
    ['a=gt', {}, [['a', 'gt']]],
    ['a=not.eq.1&b=not', { b: ['not'] }, [['a', 'not.eq.1']]],
    [
      'x=eq(any).{1,2}&y=fts(english).cat',
      {},
      [
        ['x', 'eq(any).{1,2}'],
        ['y', 'fts(english).cat'],
      ],
    ],
    [
      'or=(a.eq.1,b.eq.2)&tags.order=id&tags.limit=1',
      {},
      [
        ['or', '(a.eq.1,b.eq.2)'],
        ['tags.order', 'id'],
        ['tags.limit', '1'],
      ],
    ],
    ['tags.label=eq.x', {}, [['tags.label', 'eq.x']]],
    ['schema=public&name=x', { name: ['x'] }, [['schema', 'public']]],
    ['xs=1&xs=2&xs=3', { xs: ['1', '2', '3'] }, []],
    ['d=2024-01-01&s=hello.world', { d: ['2024-01-01'], s: ['hello.world'] }, []],
  ])('%s', (qs, args, grammar) => {
    const split = splitCallQuery([...new URLSearchParams(qs)]);
    expect(Object.fromEntries(split.args)).toEqual(args);
    expect(split.grammar).toEqual(grammar);
  });
});

describe('findRoutine: the overload the argument names call', () => {
  it.each<[string, string, string[], boolean, Routine]>([
    ['exactly its parameters', 'add', ['a', 'b'], true, add],
    ['a parameter with a default left out', 'greet', [], true, greet],
    ['a parameter with a default given', 'greet', ['name'], false, greet],
    ['required and optional together', 'span', ['start'], true, span],
    ['the overload whose names match (a)', 'pick', ['a'], true, pickInt],
    ['the overload whose names match (b)', 'pick', ['b'], false, pickText],
    ['a single unnamed jsonb parameter takes any POSTed JSON', 'echo', ['x', 'y'], true, echo],
    ['a variadic parameter by its name', 'sum_all', ['xs'], false, sumAll],
    ['no parameters at all', 'list_items', [], false, listItems],
  ])('%s', (_label, name, names, jsonBody, expected) => {
    expect(findRoutine(snapshot, 'public', name, new Set(names), jsonBody)).toBe(expected);
  });

  it.each<[string, string, string[], boolean, { message: string; details: string; hint: string | null }]>([
    [
      'an unknown function, by POST',
      'nope',
      [],
      true,
      {
        message: 'Could not find the function public.nope without parameters in the schema cache',
        details:
          'Searched for the function public.nope without parameters or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
        hint: null,
      },
    ],
    [
      'a required parameter missing',
      'add',
      ['a'],
      true,
      {
        message: 'Could not find the function public.add(a) in the schema cache',
        details:
          'Searched for the function public.add with parameter a or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
        hint: 'Perhaps you meant to call the function public.add(a, b)',
      },
    ],
    [
      'an extra argument, by GET (names sorted)',
      'add',
      ['b', 'a', 'c'],
      false,
      {
        message: 'Could not find the function public.add(a, b, c) in the schema cache',
        details:
          'Searched for the function public.add with parameters a, b, c, but no matches were found in the schema cache.',
        hint: 'Perhaps you meant to call the function public.add(a, b)',
      },
    ],
    [
      'the unnamed jsonb parameter is not reachable by GET',
      'echo',
      ['x'],
      false,
      {
        message: 'Could not find the function public.echo(x) in the schema cache',
        details:
          'Searched for the function public.echo with parameter x, but no matches were found in the schema cache.',
        hint: 'Perhaps you meant to call the function public.echo()',
      },
    ],
  ])('%s → 404 PGRST202', (_label, name, names, jsonBody, expected) => {
    expect(refusal(() => findRoutine(snapshot, 'public', name, new Set(names), jsonBody))).toEqual({
      status: 404,
      code: 'PGRST202',
      ...expected,
    });
  });

  it('overloads that both take the names → 300 PGRST203, naming both', () => {
    expect(refusal(() => findRoutine(snapshot, 'public', 'amb', new Set(['a']), true))).toEqual({
      status: 300,
      code: 'PGRST203',
      message: 'Could not choose the best candidate function between: public.amb(a => integer), public.amb(a => text)',
      details: null,
      hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    });
  });

  it('functions of a schema not searched are not found', () => {
    expect(refusal(() => findRoutine(snapshot, 'other', 'add', new Set(['a', 'b']), true))).toMatchObject({
      status: 404,
      code: 'PGRST202',
    });
  });
});

describe('argumentText: a JSON value as the text PostgreSQL casts to the parameter type', () => {
  it.each<[string, unknown, string, string | null]>([
    ['a string', 'hello', 'text', 'hello'],
    ['a number', 42, 'integer', '42'],
    ['a fraction', 1.5, 'numeric', '1.5'],
    ['true', true, 'boolean', 'true'],
    ['false', false, 'boolean', 'false'],
    ['null', null, 'integer', null],
    ['an array', [1, 2, 3], 'integer[]', '{"1","2","3"}'],
    ['an array with null, quotes and backslashes', ['a"b', null, 'c\\d'], 'text[]', '{"a\\"b",NULL,"c\\\\d"}'],
    [
      'a nested array',
      [
        [1, 2],
        [3, 4],
      ],
      'integer[]',
      '{{"1","2"},{"3","4"}}',
    ],
    ['objects in an array', [{ a: 1 }], 'jsonb[]', '{"{\\"a\\":1}"}'],
    ['an object for jsonb', { a: [1, 'x'] }, 'jsonb', '{"a":[1,"x"]}'],
    ['a string for jsonb: a JSON string', 'x', 'jsonb', '"x"'],
    ['a number for json', 3, 'json', '3'],
    ['an array for jsonb: a JSON array', [1, 2], 'jsonb', '[1,2]'],
    ['an object for another type: its JSON text', { a: 1 }, 'text', '{"a":1}'],
  ])('%s', (_label, value, type, expected) => {
    expect(argumentText(value, type)).toBe(expected);
  });
});

describe('callStatement: the SQL of each result shape', () => {
  const named = (values: Record<string, unknown>): RpcArguments => ({
    kind: 'named',
    values: new Map(Object.entries(values)),
  });
  const call = (r: Routine, args: RpcArguments, qs = '', options = { maxRows: 100, count: false }) => {
    const s = callStatement(snapshot, r, args, parseQuery(new URLSearchParams(qs)), options);
    return { ...s, text: s.text.replace(/\s+/g, ' ') };
  };
  const answer = (aggregate: string, columns: string, tail: string, total = 'null::bigint') =>
    `select coalesce(${aggregate}, '[]'::json)::text as body, count(_r)::int as page_rows, (${total}) as total from (select ${columns} from _source t0${tail}) _r`;

  it.each<[string, () => ReturnType<typeof call>, string, unknown[], string]>([
    [
      'a scalar, by named notation with typed text parameters',
      () => call(add, named({ a: 1, b: '2' })),
      `select to_json(_f._v)::text as body, null::int as page_rows, null::bigint as total from "public"."add"("a" => $1::text::integer, "b" => $2::text::integer) _f(_v)`,
      ['1', '2'],
      'scalar',
    ],
    [
      'a parameter left to its default is not named',
      () => call(greet, named({})),
      `select to_json(_f._v)::text as body, null::int as page_rows, null::bigint as total from "public"."greet"() _f(_v)`,
      [],
      'scalar',
    ],
    [
      'null goes as SQL NULL',
      () => call(span, named({ start: null })),
      `select to_json(_f._v)::text as body, null::int as page_rows, null::bigint as total from "public"."span"("start" => $1::text::date) _f(_v)`,
      [null],
      'scalar',
    ],
    [
      'the whole body for a single unnamed jsonb parameter, positionally',
      () => call(echo, { kind: 'single', value: { x: 1 } }),
      `select to_json(_f._v)::text as body, null::int as page_rows, null::bigint as total from "public"."echo"($1::text::jsonb) _f(_v)`,
      ['{"x":1}'],
      'scalar',
    ],
    [
      'a variadic parameter: `variadic name =>` an array, one value wrapped',
      () => call(sumAll, named({ xs: 5 })),
      `select to_json(_f._v)::text as body, null::int as page_rows, null::bigint as total from "public"."sum_all"(variadic "xs" => $1::text::integer[]) _f(_v)`,
      ['{"5"}'],
      'scalar',
    ],
    [
      'void: no body to build',
      () => call(touch, named({})),
      `select null::text as body, null::int as page_rows, null::bigint as total from "public"."touch"()`,
      [],
      'void',
    ],
    [
      'rows of a table, materialized once, with the row cap',
      () => call(listItems, named({})),
      `with _source as materialized (select _f.* from "public"."list_items"() _f) ${answer('json_agg(_r)', 't0.*', ' limit $1')}`,
      [100],
      'set',
    ],
    [
      'rows shaped by select, filters, order and paging',
      () => call(listItems, named({}), 'select=name&id=gt.1&order=name.desc&limit=5&offset=2'),
      `with _source as materialized (select _f.* from "public"."list_items"() _f) ${answer('json_agg(_r)', 't0."name" as "name"', ' where t0."id" > $1::text::integer order by t0."name" desc limit $2 offset $3')}`,
      ['1', 5, 2],
      'set',
    ],
    [
      'rows of a table embed over its foreign keys',
      () => call(listItems, named({}), 'select=id,tags(label)'),
      `with _source as materialized (select _f.* from "public"."list_items"() _f) ${answer(
        'json_agg(_r)',
        `t0."id" as "id", (select coalesce(json_agg(_e), '[]'::json) from (select t1."label" as "label" from "public"."tags" t1 where t1."item_id" = t0."id") _e) as "tags"`,
        ' limit $1',
      )}`,
      [100],
      'set',
    ],
    [
      'count=exact counts the filtered rows of the same materialized call',
      () => call(stats, named({ min: 3 }), 'total=gt.0', { maxRows: 100, count: true }),
      `with _source as materialized (select _f.* from "public"."stats"("min" => $1::text::integer) _f) ${answer(
        'json_agg(_r)',
        't0.*',
        ' where t0."total" > $2::text::bigint limit $3',
        'select count(*) from _source t0 where t0."total" > $2::text::bigint',
      )}`,
      ['3', '0', 100],
      'set',
    ],
    [
      'one row: the same shaping, answered as an object',
      () => call(firstItem, named({}), 'select=name'),
      `with _source as materialized (select _f.* from "public"."first_item"() _f) ${answer('json_agg(_r)', 't0."name" as "name"', ' limit $1')}`,
      [100],
      'single',
    ],
    [
      'a set of values, named after the function for filters and order',
      () => call(numbers, named({ n: 9 }), 'numbers=gt.3&order=numbers.desc'),
      `with _source as materialized (select _f.* from "public"."numbers"("n" => $1::text::integer) _f("numbers")) ${answer(
        'json_agg(_r._v)',
        't0."numbers" as _v',
        ' where t0."numbers" > $2::text::integer order by t0."numbers" desc limit $3',
      )}`,
      ['9', '3', 100],
      'set',
    ],
  ])('%s', (_label, run, text, params, shape) => {
    expect(run()).toEqual({ text, params, shape });
  });

  it.each<[string, Routine, string, number, string]>([
    ['a column the result lacks', stats, 'select=nope', 400, '42703'],
    ['a filter on a column the result lacks', listItems, 'nope=eq.1', 400, '42703'],
    ['an embed from a result that is no table', stats, 'select=name,tags(label)', 400, 'PGRST200'],
  ])('%s → %i %s', (_label, r, qs, status, code) => {
    expect(
      refusal(() =>
        callStatement(snapshot, r, { kind: 'named', values: new Map() }, parseQuery(new URLSearchParams(qs)), {
          maxRows: 10,
          count: false,
        }),
      ),
    ).toMatchObject({ status, code });
  });
});
