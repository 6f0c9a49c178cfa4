// Planned filters as SQL: a field (column plus JSON path) compared with bound values, by
// PostgREST's operators; logic trees of them. The plan checked the columns and operand types.
import type { FieldRef, Operator } from '../grammar/ast.js';
import type { PlannedCondition, PlannedExpression } from '../plan/types.js';
import { columnOf } from './joins.js';
import type { Params } from './params.js';

/** The SQL of a field; a JSON path's keys are bound values. */
export function fieldSql(alias: string, field: FieldRef, params: Params): string {
  let sql = columnOf(alias, field.column);
  for (const step of field.json) {
    const key = typeof step.key === 'number' ? `${params.add(step.key)}::int` : `${params.add(step.key)}::text`;
    sql = `(${sql}${step.arrow}${key})`;
  }
  return sql;
}

const comparisons: Partial<Record<Operator, string>> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'like',
  ilike: 'ilike',
  match: '~',
  imatch: '~*',
  cs: '@>',
  cd: '<@',
  ov: '&&',
  sl: '<<',
  sr: '>>',
  nxl: '&<',
  nxr: '&>',
  adj: '-|-',
};

const textSearch: Partial<Record<Operator, string>> = {
  fts: 'to_tsquery',
  plfts: 'plainto_tsquery',
  phfts: 'phraseto_tsquery',
  wfts: 'websearch_to_tsquery',
};

// PostgREST lets `*` stand for `%` in like patterns (a `%` is awkward in URLs).
const likePattern = (op: Operator, value: string) =>
  op === 'like' || op === 'ilike' ? value.replaceAll('*', '%') : value;

/**
 * A request value as an operand of `type`. It is bound as text and cast in SQL: postgres.js picks
 * its serializer by the parameter type the server infers, and its boolean, date and json
 * serializers do not take text as it is ('true' would go out as false, a JSON text as a JSON string).
 */
const operand = (params: Params, value: string, type: string) => `${params.add(value)}::text::${type}`;
const operandList = (params: Params, values: string[], type: string) => `${params.add(values)}::text[]::${type}[]`;

function conditionSql(alias: string, c: PlannedCondition, params: Params): string {
  const field = fieldSql(alias, c.field, params);
  const type = c.operandType;
  const value = c.value;
  let sql: string;
  if (c.isLiteral !== undefined) {
    sql = `${field} is ${c.isLiteral}`;
  } else if (c.operator === 'isdistinct') {
    sql = `${field} is distinct from ${operand(params, String(value), type)}`;
  } else if (c.operator === 'in') {
    const list = Array.isArray(value) ? value : [value];
    sql = `${field} = any(${operandList(params, list, type)})`;
  } else if (textSearch[c.operator]) {
    const config = c.language === undefined ? '' : `${params.add(c.language)}::regconfig, `;
    const document = type === 'tsvector' ? field : `to_tsvector(${config}${field})`;
    sql = `${document} @@ ${textSearch[c.operator]}(${config}${params.add(value)})`;
  } else {
    const op = comparisons[c.operator]!;
    // Pattern operators compare text: a non-text column is read as text, as PostgREST does.
    const textual =
      c.operator === 'like' || c.operator === 'ilike' || c.operator === 'match' || c.operator === 'imatch';
    const subject = textual ? `${field}::text` : field;
    if (c.quantifier) {
      const list = (Array.isArray(value) ? value : [value]).map((v) => likePattern(c.operator, v));
      sql = `${subject} ${op} ${c.quantifier}(${operandList(params, list, textual ? 'text' : type)})`;
    } else {
      const right = textual
        ? `${params.add(likePattern(c.operator, String(value)))}::text`
        : operand(params, String(value), type);
      sql = `${subject} ${op} ${right}`;
    }
  }
  return c.negated ? `not (${sql})` : sql;
}

/**
 * The SQL of a planned filter expression on the resource aliased `alias`. `existsSql` renders an
 * embed's `rel=is.null` (whether the parent row has a match), at any depth of a logic tree.
 */
export function expressionSql(
  alias: string,
  e: PlannedExpression,
  params: Params,
  existsSql: (match: Extract<PlannedExpression, { kind: 'embed-null' }>['match']) => string,
): string {
  if (e.kind === 'condition') return conditionSql(alias, e, params);
  if (e.kind === 'embed-null') {
    const exists = existsSql(e.match);
    return e.exists ? exists : `not ${exists}`;
  }
  if (e.children.length === 0) return e.negated ? 'false' : 'true';
  // Parenthesised whole: the caller joins filters with `and`, which binds tighter than `or`.
  const joined = e.children.map((child) => `(${expressionSql(alias, child, params, existsSql)})`).join(` ${e.op} `);
  return e.negated ? `not (${joined})` : `(${joined})`;
}
