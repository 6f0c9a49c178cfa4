// The records API's PostgREST grammar as tables of cases: select, filters, logic trees, order,
// the whole query string and the Prefer header, each with its malformed inputs and their errors.
import { describe, expect, it } from 'vitest';
import {
  GrammarError,
  type Condition,
  type Expression,
  type FieldRef,
  type Filter,
  type JsonStep,
  type OrderTerm,
  type ParsedQuery,
  type Preferences,
  type SelectItem,
} from '../../src/modules/records/grammar/ast.js';
import { parseFilter } from '../../src/modules/records/grammar/filters.js';
import { parseOrder } from '../../src/modules/records/grammar/order.js';
import { parsePreferences, parseQuery } from '../../src/modules/records/grammar/query.js';
import { parseSelect } from '../../src/modules/records/grammar/select.js';

// Builders keep the expected ASTs readable.
const to = (key: string | number): JsonStep => ({ arrow: '->', key });
const text = (key: string | number): JsonStep => ({ arrow: '->>', key });
const col = (column: string, ...json: JsonStep[]): FieldRef => ({ column, json });
const STAR: SelectItem = { kind: 'star' };
const field = (ref: FieldRef | string, extra: { alias?: string; cast?: string } = {}): SelectItem => ({
  kind: 'field',
  field: typeof ref === 'string' ? col(ref) : ref,
  ...extra,
});
const embed = (
  relation: string,
  select: SelectItem[],
  extra: { alias?: string; hint?: string; inner?: boolean } = {},
): SelectItem => ({
  kind: 'embed',
  relation,
  inner: false,
  select,
  ...extra,
});
const cond = (
  ref: FieldRef | string,
  operator: Condition['operator'],
  value: string | string[],
  extra: Partial<Condition> = {},
): Condition => ({
  kind: 'condition',
  field: typeof ref === 'string' ? col(ref) : ref,
  negated: false,
  operator,
  value,
  ...extra,
});
const not = (condition: Condition): Condition => ({ ...condition, negated: true });
const or = (...children: Expression[]): Expression => ({ kind: 'logic', op: 'or', negated: false, children });
const and = (...children: Expression[]): Expression => ({ kind: 'logic', op: 'and', negated: false, children });
const notTree = (tree: Expression): Expression => ({ ...tree, negated: true });
const root = (expression: Expression): Filter => ({ path: [], expression });
const asc = (ref: FieldRef | string, extra: Partial<OrderTerm> = {}): OrderTerm => ({
  field: typeof ref === 'string' ? col(ref) : ref,
  direction: 'asc',
  ...extra,
});

function grammarErrorOf(run: () => unknown): GrammarError {
  try {
    run();
  } catch (error) {
    if (error instanceof GrammarError) return error;
    throw error;
  }
  throw new Error('expected a GrammarError');
}

/** Asserts a GrammarError whose message or details contain `fragment`. */
function expectGrammarError(run: () => unknown, fragment: string, code = 'PGRST100'): void {
  const error = grammarErrorOf(run);
  expect(`${error.message} ${error.details ?? ''}`).toContain(fragment);
  expect(error.code).toBe(code);
}

const nested = (depth: number) => `${'r('.repeat(depth)}id${')'.repeat(depth)}`;
const nestedTree = (depth: number) => `(${'and('.repeat(depth - 1)}a.eq.1${')'.repeat(depth - 1)})`;
const nestedEmbeds = (depth: number): SelectItem[] =>
  depth === 0 ? [field('id')] : [embed('r', nestedEmbeds(depth - 1))];
const nestedAnds = (depth: number): Expression => and(depth === 1 ? cond('a', 'eq', '1') : nestedAnds(depth - 1));

describe('parseSelect', () => {
  it.each<[string, SelectItem[]]>([
    ['*', [STAR]],
    ['id', [field('id')]],
    ['id,name', [field('id'), field('name')]],
    [' id , name ', [field('id'), field('name')]],
    ['full name', [field('full name')]],
    ['first-name', [field('first-name')]],
    ['$price_1', [field('$price_1')]],
    ['名前', [field('名前')]],
    ['"my col"', [field('my col')]],
    ['"say \\"hi\\""', [field('say "hi"')]],
    ['"a,b(c):d"', [field('a,b(c):d')]],
    ['alias:id', [field('id', { alias: 'alias' })]],
    ['alias : id', [field('id', { alias: 'alias' })]],
    ['"my alias":id', [field('id', { alias: 'my alias' })]],
    ['id::text', [field('id', { cast: 'text' })]],
    ['tags::text[]', [field('tags', { cast: 'text[]' })]],
    ['price::double precision', [field('price', { cast: 'double precision' })]],
    ['n:id::int4', [field('id', { alias: 'n', cast: 'int4' })]],
    ['data->a', [field(col('data', to('a')))]],
    ['data->>a', [field(col('data', text('a')))]],
    ['data->a->>b', [field(col('data', to('a'), text('b')))]],
    ['data->0', [field(col('data', to(0)))]],
    ['data->-1->>2', [field(col('data', to(-1), text(2)))]],
    ['data->"0"', [field(col('data', to('0')))]],
    ['data->1a', [field(col('data', to('1a')))]],
    ['data->a-b', [field(col('data', to('a-b')))]],
    ['data->>"key with.dots"', [field(col('data', text('key with.dots')))]],
    ['data->!@#$%^&*_a', [field(col('data', to('!@#$%^&*_a')))]],
    ['x:data->a->>b::text', [field(col('data', to('a'), text('b')), { alias: 'x', cast: 'text' })]],
    ['rel(*)', [embed('rel', [STAR])]],
    ['rel()', [embed('rel', [])]],
    ['rel ( a , b )', [embed('rel', [field('a'), field('b')])]],
    ['alias:rel(a,b)', [embed('rel', [field('a'), field('b')], { alias: 'alias' })]],
    ['rel!fk_hint(*)', [embed('rel', [STAR], { hint: 'fk_hint' })]],
    ['rel!"fk with space"(*)', [embed('rel', [STAR], { hint: 'fk with space' })]],
    ['rel!inner(*)', [embed('rel', [STAR], { inner: true })]],
    ['rel!left(*)', [embed('rel', [STAR])]],
    ['rel!hint!inner(*)', [embed('rel', [STAR], { hint: 'hint', inner: true })]],
    ['rel!inner!hint(*)', [embed('rel', [STAR], { hint: 'hint', inner: true })]],
    ['"odd.rel"(*)', [embed('odd.rel', [STAR])]],
    [
      'a:rel!h!inner(id, b:other!inner(x::text))',
      [
        embed('rel', [field('id'), embed('other', [field('x', { cast: 'text' })], { alias: 'b', inner: true })], {
          alias: 'a',
          hint: 'h',
          inner: true,
        }),
      ],
    ],
    [
      '*,rel(*,nested(*,deep(id)))',
      [STAR, embed('rel', [STAR, embed('nested', [STAR, embed('deep', [field('id')])])])],
    ],
    [nested(10), nestedEmbeds(10)],
    ['', []],
    ['id,...rel(a,b)', [field('id'), { ...embed('rel', [field('a'), field('b')]), spread: true } as SelectItem]],
    ['...rel!fk!inner(*)', [{ ...embed('rel', [STAR], { hint: 'fk', inner: true }), spread: true } as SelectItem]],
  ])('select=%s', (input, expected) => {
    expect(parseSelect(input)).toEqual(expected);
  });

  it.each<[string, string, string?]>([
    ['a,,b', 'unexpected "," expecting field name'],
    ['a,', 'unexpected end of input expecting field name'],
    [',a', 'unexpected "," expecting field name'],
    ['rel(a', 'unexpected end of input expecting "," or ")"'],
    ['a)', 'unexpected ")" expecting "," or end of input'],
    ['rel(a))', 'unexpected ")" expecting "," or end of input'],
    ['(a)', 'unexpected "(" expecting field name'],
    ['a b;c', 'unexpected ";"'],
    ['a-', 'unexpected end of input expecting field name'],
    ['a::', 'unexpected end of input expecting a type name'],
    ['a::text;drop table x', 'unexpected ";"'],
    ['a::text[', 'unexpected "["'],
    ['a::te(xt)', 'unexpected "("'],
    ['*!hint', 'unexpected "!"'],
    ['*::text', 'unexpected ":"'],
    ['alias:*', 'unexpected "*" expecting field name'],
    ['rel!(*)', 'unexpected "(" expecting field name'],
    ['rel!a!b(*)', 'more than one hint (!a, !b)'],
    ['rel!inner!left(*)', 'more than one join type'],
    ['rel->x(*)', 'unexpected "("'],
    ['rel!hint', 'unexpected end of input expecting "!" or "("'],
    ['...rel', 'unexpected end of input expecting "!" or "(" (a spread names an embedded resource'],
    ['...*', 'unexpected "*" expecting field name'],
    ['...alias:rel(*)', 'unexpected ":" expecting "!" or "("'],
    ['"unterminated', 'expecting closing quote'],
    ['""', 'a quoted name may not be empty'],
    ['data->>-78xy', 'expecting JSON key'],
    ['data->', 'unexpected end of input expecting JSON key'],
    ['data->99999999999999999999', 'out of range'],
    [nested(11), 'may nest at most 10 levels deep'],
    ['count()', 'Use of aggregate functions is not allowed', 'PGRST123'],
    ['total:amount.sum()', 'Use of aggregate functions is not allowed', 'PGRST123'],
  ])('select=%s fails: %s', (input, fragment, code) => {
    expectGrammarError(() => parseSelect(input), fragment, code);
  });

  it('reports errors in PostgREST shape: quoted source, position, details', () => {
    const error = grammarErrorOf(() => parseSelect('id,name)'));
    expect(error.message).toBe('"failed to parse select parameter (id,name))" (line 1, column 8)');
    expect(error.details).toBe('unexpected ")" expecting "," or end of input');
    expect(error.code).toBe('PGRST100');
  });
});

describe('parseFilter: operators', () => {
  it.each<[string, string, Filter]>([
    ['a', 'eq.1', root(cond('a', 'eq', '1'))],
    ['a', 'neq.1', root(cond('a', 'neq', '1'))],
    ['a', 'gt.1', root(cond('a', 'gt', '1'))],
    ['a', 'gte.1', root(cond('a', 'gte', '1'))],
    ['a', 'lt.1', root(cond('a', 'lt', '1'))],
    ['a', 'lte.1', root(cond('a', 'lte', '1'))],
    ['a', 'like.*foo*', root(cond('a', 'like', '*foo*'))],
    ['a', 'ilike.*FOO*', root(cond('a', 'ilike', '*FOO*'))],
    ['a', 'match.^a.*$', root(cond('a', 'match', '^a.*$'))],
    ['a', 'imatch.^A', root(cond('a', 'imatch', '^A'))],
    ['a', 'in.(1,2,3)', root(cond('a', 'in', ['1', '2', '3']))],
    ['a', 'is.null', root(cond('a', 'is', 'null'))],
    ['a', 'isdistinct.x', root(cond('a', 'isdistinct', 'x'))],
    ['a', 'cs.{x,y}', root(cond('a', 'cs', '{x,y}'))],
    ['a', 'cd.{x,y}', root(cond('a', 'cd', '{x,y}'))],
    ['a', 'ov.[1,5)', root(cond('a', 'ov', '[1,5)'))],
    ['a', 'sl.(1,10)', root(cond('a', 'sl', '(1,10)'))],
    ['a', 'sr.(1,10)', root(cond('a', 'sr', '(1,10)'))],
    ['a', 'nxl.[1,10]', root(cond('a', 'nxl', '[1,10]'))],
    ['a', 'nxr.[1,10]', root(cond('a', 'nxr', '[1,10]'))],
    ['a', 'adj.(1,10)', root(cond('a', 'adj', '(1,10)'))],
    ['a', 'fts.cat', root(cond('a', 'fts', 'cat'))],
    ['a', 'plfts.fat cat', root(cond('a', 'plfts', 'fat cat'))],
    ['a', 'phfts.fat cat', root(cond('a', 'phfts', 'fat cat'))],
    ['a', 'wfts."fat cat" -rat', root(cond('a', 'wfts', '"fat cat" -rat'))],
  ])('%s=%s', (key, value, expected) => {
    expect(parseFilter(key, value)).toEqual(expected);
  });
});

describe('parseFilter: negation, modifiers, lists, values and paths', () => {
  it.each<[string, string, Filter]>([
    ['a', 'not.eq.1', root(not(cond('a', 'eq', '1')))],
    ['a', 'not.in.(1,2)', root(not(cond('a', 'in', ['1', '2'])))],
    ['a', 'not.is.null', root(not(cond('a', 'is', 'null')))],
    ['a', 'not.fts(english).cat', root(not(cond('a', 'fts', 'cat', { language: 'english' })))],
    ['a', 'not.like(all).{a*,*b}', root(not(cond('a', 'like', ['a*', '*b'], { quantifier: 'all' })))],
    ['a', 'eq(any).{1,2,3}', root(cond('a', 'eq', ['1', '2', '3'], { quantifier: 'any' }))],
    ['a', 'eq(all).{1}', root(cond('a', 'eq', ['1'], { quantifier: 'all' }))],
    ['a', 'gt(any).{"x,y",z}', root(cond('a', 'gt', ['x,y', 'z'], { quantifier: 'any' }))],
    ['a', 'gte(all).{ 1 , 2 }', root(cond('a', 'gte', ['1', '2'], { quantifier: 'all' }))],
    ['a', 'lt(any).{"a \\"q\\"",b\\,c}', root(cond('a', 'lt', ['a "q"', 'b,c'], { quantifier: 'any' }))],
    ['a', 'lte(any).{}', root(cond('a', 'lte', [], { quantifier: 'any' }))],
    ['a', 'ilike(any).{*a*,*b*}', root(cond('a', 'ilike', ['*a*', '*b*'], { quantifier: 'any' }))],
    ['a', 'match(all).{^a,b$}', root(cond('a', 'match', ['^a', 'b$'], { quantifier: 'all' }))],
    ['a', 'imatch(any).{x}', root(cond('a', 'imatch', ['x'], { quantifier: 'any' }))],
    ['a', 'in.(a,b,"c,d")', root(cond('a', 'in', ['a', 'b', 'c,d']))],
    ['a', 'in.("a\\"b","c\\\\d")', root(cond('a', 'in', ['a"b', 'c\\d']))],
    ['a', 'in.("a)b",c)', root(cond('a', 'in', ['a)b', 'c']))],
    ['a', 'in.(1, "two", 3)', root(cond('a', 'in', ['1', 'two', ' 3']))],
    ['a', 'in.()', root(cond('a', 'in', []))],
    ['a', 'in.("")', root(cond('a', 'in', ['']))],
    ['a', 'in.(a,,b)', root(cond('a', 'in', ['a', '', 'b']))],
    ['a', 'in.("x"y,z)', root(cond('a', 'in', ['"x"y', 'z']))],
    ['a', 'is.NULL', root(cond('a', 'is', 'null'))],
    ['a', 'is.True', root(cond('a', 'is', 'true'))],
    ['a', 'is.false', root(cond('a', 'is', 'false'))],
    ['a', 'is.Unknown', root(cond('a', 'is', 'unknown'))],
    ['a', 'fts(english).cat & dog', root(cond('a', 'fts', 'cat & dog', { language: 'english' }))],
    ['a', 'plfts(simple).fat cat', root(cond('a', 'plfts', 'fat cat', { language: 'simple' }))],
    ['a', 'phfts(german).katze', root(cond('a', 'phfts', 'katze', { language: 'german' }))],
    ['a', 'wfts(english).cat or dog', root(cond('a', 'wfts', 'cat or dog', { language: 'english' }))],
    ['a', 'eq."quoted"', root(cond('a', 'eq', '"quoted"'))],
    ['a', 'eq.a,b(c)', root(cond('a', 'eq', 'a,b(c)'))],
    ['a', 'eq.with.dots', root(cond('a', 'eq', 'with.dots'))],
    ['a', 'eq.', root(cond('a', 'eq', ''))],
    ['a', "eq.'; drop table x; --", root(cond('a', 'eq', "'; drop table x; --"))],
    ['clients.name', 'eq.x', { path: ['clients'], expression: cond('name', 'eq', 'x') }],
    ['a.b.c', 'eq.1', { path: ['a', 'b'], expression: cond('c', 'eq', '1') }],
    ['data->>a', 'eq.1', root(cond(col('data', text('a')), 'eq', '1'))],
    ['data->a->>b', 'eq.1', root(cond(col('data', to('a'), text('b')), 'eq', '1'))],
    ['data->0->>"x.y"', 'is.null', root(cond(col('data', to(0), text('x.y')), 'is', 'null'))],
    ['clients.data->>x', 'gt.1', { path: ['clients'], expression: cond(col('data', text('x')), 'gt', '1') }],
    ['"my col"', 'eq.1', root(cond('my col', 'eq', '1'))],
    ['"a.b"', 'eq.1', root(cond('a.b', 'eq', '1'))],
    ['first name', 'eq.x', root(cond('first name', 'eq', 'x'))],
  ])('%s=%s', (key, value, expected) => {
    expect(parseFilter(key, value)).toEqual(expected);
  });

  it.each<[string, string, string]>([
    ['a', 'noop.1', 'unknown operator "noop"'],
    ['a', 'EQ.1', 'unknown operator "EQ"'],
    ['a', '5', 'unexpected "5" expecting "not" or operator (eq, gt, ...)'],
    ['a', '', 'unexpected end of input expecting "not" or operator'],
    ['a', 'not.not.eq.1', 'unknown operator "not"'],
    ['a', 'not.', 'unexpected end of input expecting operator (eq, gt, ...)'],
    ['a', 'eq', 'unexpected end of input expecting delimiter (.)'],
    ['a', 'eq1', 'unexpected "1" expecting delimiter (.)'],
    ['a', 'in.1,2', 'unexpected "1" expecting "(" (a list like in.(a,b))'],
    ['a', 'in.(1,2', 'unexpected end of input expecting "," or ")"'],
    ['a', 'in.(1)x', 'unexpected "x" expecting end of input'],
    ['a', 'in(any).(1)', 'operator "in" takes no modifier'],
    ['a', 'is.maybe', 'expecting null or trilean value'],
    ['a', 'is.not_null', 'expecting null or trilean value'],
    ['a', 'is.nullx', 'expecting null or trilean value'],
    ['a', 'is.null.x', 'unexpected "." expecting end of input'],
    ['a', 'cs(any).{1}', 'operator "cs" takes no modifier'],
    ['a', 'isdistinct(all).x', 'operator "isdistinct" takes no modifier'],
    ['a', 'eq(some).{1}', 'unexpected "s" expecting "any" or "all"'],
    ['a', 'eq(any.{1}', 'unexpected "." expecting ")"'],
    ['a', 'eq(any).1', 'unexpected "1" expecting "{"'],
    ['a', 'eq(any).{1,{2}}', 'nested arrays are not supported'],
    ['a', 'eq(any).{a,,b}', 'expecting an array element'],
    ['a', 'eq(any).{"a}', 'expecting closing quote'],
    ['a', 'eq(any).{a', 'unexpected end of input expecting "," or "}"'],
    ['a', 'eq(any).{a}x', 'unexpected "x" expecting end of input'],
    ['a', 'fts().x', 'expecting text search configuration'],
    ['a', 'fts(eng;lish).x', 'unexpected ";" expecting ")"'],
    ['', 'eq.1', 'unexpected end of input expecting field name'],
    ['a..b', 'eq.1', 'unexpected "." expecting field name'],
    ['a->', 'eq.1', 'expecting JSON key'],
    ['a;b', 'eq.1', 'unexpected ";"'],
    ['data->>a.b', 'eq.1', 'unexpected "." expecting "->", "->>" or end of input'],
    ['"a', 'eq.1', 'expecting closing quote'],
  ])('%s=%s fails: %s', (key, value, fragment) => {
    expectGrammarError(() => parseFilter(key, value), fragment);
  });
});

describe('parseFilter: logic trees', () => {
  it.each<[string, string, Filter]>([
    ['or', '(a.eq.1,b.gt.2)', root(or(cond('a', 'eq', '1'), cond('b', 'gt', '2')))],
    ['and', '(a.eq.1,b.eq.2)', root(and(cond('a', 'eq', '1'), cond('b', 'eq', '2')))],
    ['not.or', '(a.eq.1,b.eq.2)', root(notTree(or(cond('a', 'eq', '1'), cond('b', 'eq', '2'))))],
    ['not.and', '(a.eq.1)', root(notTree(and(cond('a', 'eq', '1'))))],
    [
      'clients.or',
      '(a.eq.1,b.eq.2)',
      { path: ['clients'], expression: or(cond('a', 'eq', '1'), cond('b', 'eq', '2')) },
    ],
    ['clients.not.and', '(a.eq.1)', { path: ['clients'], expression: notTree(and(cond('a', 'eq', '1'))) }],
    ['a.b.or', '(c.is.null)', { path: ['a', 'b'], expression: or(cond('c', 'is', 'null')) }],
    [
      'or',
      '(a.eq.1,and(b.gt.2,c.is.null))',
      root(or(cond('a', 'eq', '1'), and(cond('b', 'gt', '2'), cond('c', 'is', 'null')))),
    ],
    [
      'or',
      '(a.eq.1,b.gt.2,and(c.is.null,not.d.eq.5),not.or(e.eq.1))',
      root(
        or(
          cond('a', 'eq', '1'),
          cond('b', 'gt', '2'),
          and(cond('c', 'is', 'null'), not(cond('d', 'eq', '5'))),
          notTree(or(cond('e', 'eq', '1'))),
        ),
      ),
    ],
    ['or', '(a.not.eq.1,b.not.in.(1,2))', root(or(not(cond('a', 'eq', '1')), not(cond('b', 'in', ['1', '2']))))],
    ['or', '(name.eq."a,b(c)",x.eq."q\\"t")', root(or(cond('name', 'eq', 'a,b(c)'), cond('x', 'eq', 'q"t')))],
    [
      'or',
      '(tags.cs.{a,b},id.eq(any).{1,"2,3"})',
      root(or(cond('tags', 'cs', '{a,b}'), cond('id', 'eq', ['1', '2,3'], { quantifier: 'any' }))),
    ],
    [
      'or',
      '(a.in.("x,y",z),b.fts(english).cat)',
      root(or(cond('a', 'in', ['x,y', 'z']), cond('b', 'fts', 'cat', { language: 'english' }))),
    ],
    ['or', '( a.eq.1, b.eq.2)', root(or(cond('a', 'eq', '1'), cond('b', 'eq', '2')))],
    [
      'or',
      '(data->>a.eq.1,data->b->>c.is.NULL)',
      root(or(cond(col('data', text('a')), 'eq', '1'), cond(col('data', to('b'), text('c')), 'is', 'null'))),
    ],
    ['or', '(not.eq.1,and.eq.2)', root(or(cond('not', 'eq', '1'), cond('and', 'eq', '2')))],
    ['or', '(a.eq.,b.like.*x*)', root(or(cond('a', 'eq', ''), cond('b', 'like', '*x*')))],
    ['or', '(a.eq."x)', root(or(cond('a', 'eq', '"x')))],
    ['and', nestedTree(10), root(nestedAnds(10))],
  ])('%s=%s', (key, value, expected) => {
    expect(parseFilter(key, value)).toEqual(expected);
  });

  const hundredOne = `(${Array.from({ length: 101 }, (_, i) => `c${i}.eq.${i}`).join(',')})`;
  it.each<[string, string, string]>([
    ['or', 'a.eq.1', 'unexpected "a" expecting "("'],
    ['or', '(a.eq.1', 'unexpected end of input expecting "," or ")"'],
    ['or', '()', 'unexpected ")" expecting field name'],
    ['or', '(a.eq.1)x', 'unexpected "x" expecting end of input'],
    ['or', '(a.eq.1,)', 'unexpected ")" expecting field name'],
    ['or', '(a.xx.1)', 'unknown operator "xx"'],
    ['or', '(a.eq.1,xor(b.eq.1))', 'unexpected "(" expecting delimiter (.)'],
    ['or', '(a.in.1,2)', 'expecting "(" (a list like in.(a,b))'],
    ['or', '(and(a.eq.1,b.zz.2))', 'unknown operator "zz"'],
    ['or', '(not.a.not.eq.1)', 'may be negated only once'],
    ['or', '(a.eq(any).{1,b.eq.2)', 'expecting "," or "}"'],
    ['and', nestedTree(11), 'may nest at most 10 levels deep'],
    ['or', hundredOne, 'at most 100 conditions'],
    ['x.."or', '(a.eq.1)', 'expecting field name'],
  ])('%s=%s fails: %s', (key, value, fragment) => {
    expectGrammarError(() => parseFilter(key, value), fragment);
  });
});

describe('parseOrder', () => {
  it.each<[string, OrderTerm[]]>([
    ['a', [asc('a')]],
    ['a.asc', [asc('a')]],
    ['a.desc', [asc('a', { direction: 'desc' })]],
    ['a.nullsfirst', [asc('a', { nulls: 'first' })]],
    ['a.nullslast', [asc('a', { nulls: 'last' })]],
    ['a.desc.nullslast', [asc('a', { direction: 'desc', nulls: 'last' })]],
    ['a.asc.nullsfirst', [asc('a', { nulls: 'first' })]],
    ['a,b.desc', [asc('a'), asc('b', { direction: 'desc' })]],
    [' a , b.desc ', [asc('a'), asc('b', { direction: 'desc' })]],
    ['data->>x.desc', [asc(col('data', text('x')), { direction: 'desc' })]],
    ['data->0', [asc(col('data', to(0)))]],
    ['"my col".desc', [asc('my col', { direction: 'desc' })]],
    ['data->a->>0.asc.nullslast', [asc(col('data', to('a'), text(0)), { nulls: 'last' })]],
    ['clients(name).desc', [asc('name', { direction: 'desc', relation: 'clients' })]],
    [
      'id,clients(data->>x).nullsfirst',
      [asc('id'), asc(col('data', text('x')), { nulls: 'first', relation: 'clients' })],
    ],
  ])('order=%s', (input, expected) => {
    expect(parseOrder(input)).toEqual(expected);
  });

  it.each<[string, string]>([
    ['a.ac', 'unexpected "a" expecting "asc", "desc", "nullsfirst" or "nullslast"'],
    ['a.descc', 'expecting "asc", "desc", "nullsfirst" or "nullslast"'],
    ['a.DESC', 'expecting "asc", "desc", "nullsfirst" or "nullslast"'],
    ['a.asc.desc', 'unexpected "d" expecting "nullsfirst" or "nullslast"'],
    ['a.nullslast.desc', 'unexpected "d" expecting "," or end of input'],
    ['a.desc x', 'unexpected "x" expecting delimiter (.), "," or end of input'],
    ['', 'unexpected end of input expecting field name'],
    ['a,', 'unexpected end of input expecting field name'],
    ['clients(name', 'unexpected end of input expecting "->", "->>" or ")"'],
    ['clients()', 'unexpected ")" expecting field name'],
    ['clients(a)(b)', 'unexpected "("'],
    ['a;b', 'unexpected ";"'],
  ])('order=%s fails: %s', (input, fragment) => {
    expectGrammarError(() => parseOrder(input), fragment);
  });
});

describe('parseQuery', () => {
  const base: ParsedQuery = { select: [STAR], filters: [], orderings: [], paging: [] };
  it.each<[string, [string, string][], ParsedQuery]>([
    ['nothing: select *', [], base],
    ['select only', [['select', 'id,rel(*)']], { ...base, select: [field('id'), embed('rel', [STAR])] }],
    ['empty select', [['select', '']], { ...base, select: [] }],
    ['schema is not a filter', [['schema', 'private']], base],
    [
      'filters keep their order, logic trees included',
      [
        ['a', 'eq.1'],
        ['or', '(b.eq.2,c.eq.3)'],
        ['clients.name', 'like.x*'],
      ],
      {
        ...base,
        filters: [
          root(cond('a', 'eq', '1')),
          root(or(cond('b', 'eq', '2'), cond('c', 'eq', '3'))),
          { path: ['clients'], expression: cond('name', 'like', 'x*') },
        ],
      },
    ],
    [
      'order on the root and an embed',
      [
        ['order', 'a.desc'],
        ['clients.order', 'name'],
      ],
      {
        ...base,
        orderings: [
          { path: [], terms: [asc('a', { direction: 'desc' })] },
          { path: ['clients'], terms: [asc('name')] },
        ],
      },
    ],
    [
      'limit and offset merge per path',
      [
        ['limit', '10'],
        ['clients.offset', '5'],
        ['offset', '0'],
        ['clients.limit', '2'],
      ],
      {
        ...base,
        paging: [
          { path: [], limit: 10, offset: 0 },
          { path: ['clients'], offset: 5, limit: 2 },
        ],
      },
    ],
    [
      'on_conflict and columns',
      [
        ['on_conflict', 'a, b'],
        ['columns', '"x y",z'],
      ],
      { ...base, onConflict: ['a', 'b'], columns: ['x y', 'z'] },
    ],
    [
      'a typical postgrest-js request',
      [
        ['select', '*,author:users!inner(name)'],
        ['status', 'in.(open,"in review")'],
        ['order', 'created_at.desc.nullslast'],
        ['limit', '20'],
        ['offset', '40'],
      ],
      {
        select: [STAR, embed('users', [field('name')], { alias: 'author', inner: true })],
        filters: [root(cond('status', 'in', ['open', 'in review']))],
        orderings: [{ path: [], terms: [asc('created_at', { direction: 'desc', nulls: 'last' })] }],
        paging: [{ path: [], limit: 20, offset: 40 }],
      },
    ],
  ])('%s', (_name, params, expected) => {
    expect(parseQuery(params)).toEqual(expected);
  });

  it('reads URLSearchParams directly', () => {
    expect(parseQuery(new URLSearchParams('select=id&id=eq.7&limit=1'))).toEqual({
      ...base,
      select: [field('id')],
      filters: [root(cond('id', 'eq', '7'))],
      paging: [{ path: [], limit: 1 }],
    });
  });

  const manyFilters = Array.from({ length: 101 }, (_, i): [string, string] => [`c${i}`, 'eq.1']);
  it.each<[string, [string, string][], string]>([
    [
      'select twice',
      [
        ['select', 'a'],
        ['select', 'b'],
      ],
      'query parameter "select" is given more than once',
    ],
    [
      'columns twice',
      [
        ['columns', 'a'],
        ['columns', 'b'],
      ],
      '"columns" is given more than once',
    ],
    [
      'order twice on one path',
      [
        ['clients.order', 'a'],
        ['"clients".order', 'b'],
      ],
      '""clients".order" is given more than once',
    ],
    [
      'limit twice',
      [
        ['limit', '1'],
        ['limit', '2'],
      ],
      '"limit" is given more than once',
    ],
    ['negative limit', [['limit', '-1']], 'expecting a non-negative integer'],
    ['non-numeric offset', [['offset', 'abc']], '"failed to parse offset parameter (abc)"'],
    ['fractional limit', [['clients.limit', '1.5']], 'expecting a non-negative integer'],
    ['padded limit', [['limit', ' 3']], 'expecting a non-negative integer'],
    ['huge limit', [['limit', '99999999999999999999']], 'expecting a non-negative integer'],
    ['empty columns', [['columns', '']], 'unexpected end of input expecting field name'],
    ['trailing comma in on_conflict', [['on_conflict', 'a,']], '"failed to parse on_conflict parameter (a,)"'],
    ['a bad filter', [['a', 'zz.1']], 'unknown operator "zz"'],
    ['a filter without operator', [['name', 'alice']], '"failed to parse filter (alice)"'],
    ['bad order path', [['a->b.order', 'x']], 'unexpected "-" expecting "." or end of input'],
    ['too many conditions', manyFilters, 'at most 100 conditions across its filters'],
  ])('%s fails', (_name, params, fragment) => {
    expectGrammarError(() => parseQuery(params), fragment);
  });
});

describe('parsePreferences', () => {
  it.each<[string | undefined, Preferences]>([
    [undefined, {}],
    ['', {}],
    ['return=representation', { return: 'representation' }],
    ['return=minimal', { return: 'minimal' }],
    ['return=headers-only', { return: 'headers-only' }],
    ['count=exact', { count: 'exact' }],
    ['count=planned', { count: 'planned' }],
    ['count=estimated', { count: 'estimated' }],
    ['resolution=merge-duplicates', { resolution: 'merge-duplicates' }],
    ['resolution=ignore-duplicates', { resolution: 'ignore-duplicates' }],
    ['missing=default', { missing: 'default' }],
    ['missing=null', { missing: 'null' }],
    ['tx=rollback', { tx: 'rollback' }],
    ['tx=commit', { tx: 'commit' }],
    ['return=representation, count=exact', { return: 'representation', count: 'exact' }],
    ['return=representation count=exact', { return: 'representation', count: 'exact' }],
    [
      'return=representation,count=exact, resolution=merge-duplicates missing=default,tx=rollback',
      { return: 'representation', count: 'exact', resolution: 'merge-duplicates', missing: 'default', tx: 'rollback' },
    ],
    [
      'handling=strict, timezone=UTC, max-affected=5, return=minimal',
      { handling: 'strict', timezone: 'UTC', maxAffected: 5, return: 'minimal' },
    ],
    ['handling=lenient max-affected=0', { handling: 'lenient', maxAffected: 0 }],
    [
      'max-affected=-1, max-affected=x, handling=loose',
      { invalid: ['max-affected=-1', 'max-affected=x', 'handling=loose'] },
    ],
    ['timezone=America/New_York', { timezone: 'America/New_York' }],
    ['timezone=a;b', { invalid: ['timezone=a;b'] }],
    ['return=everything, count=all', { invalid: ['return=everything', 'count=all'] }],
    ['return=minimal, return=representation', { return: 'minimal' }],
    ['count=bogus, count=planned', { count: 'planned', invalid: ['count=bogus'] }],
    ['Return=minimal', { invalid: ['Return=minimal'] }],
    ['return, =minimal, return=', { invalid: ['return', '=minimal', 'return='] }],
    ['toString=x, __proto__=y', { invalid: ['toString=x', '__proto__=y'] }],
  ])('Prefer: %s', (header, expected) => {
    expect(parsePreferences(header)).toEqual(expected);
  });
});
