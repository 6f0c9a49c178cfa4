// Filters as SQL: a field (column plus JSON path) compared with bound values, by PostgREST's
// operators; logic trees of them. Columns are checked against the table first.
import type { Condition, Expression, FieldRef, Operator } from '../grammar/ast.js';
import { recordsError } from '../records-errors.js';
import type { Table } from '../schema-cache.js';
import { ident, type Params } from './params.js';

/** A column of `table` (or a 400 naming it), quoted. */
export function quotedColumn(table: Table, column: string): string {
  if (!table.columns.has(column)) {
    throw recordsError('VALIDATION_ERROR', '42703', `column ${table.name}.${column} does not exist`, {
      hint: `The columns of ${table.name} are: ${[...table.columns.keys()].join(', ')}.`,
    });
  }
  return ident(column);
}

/** A column of `table`, quoted and qualified by the query's alias. */
export const columnOf = (table: Table, alias: string, column: string): string =>
  `${alias}.${quotedColumn(table, column)}`;

/** The SQL of a field; a JSON path's keys are bound values. */
export function fieldSql(table: Table, alias: string, field: FieldRef, params: Params): string {
  let sql = columnOf(table, alias, field.column);
  for (const step of field.json) {
    const key = typeof step.key === 'number' ? `${params.add(step.key)}::int` : `${params.add(step.key)}::text`;
    sql = `(${sql}${step.arrow}${key})`;
  }
  return sql;
}

/** The type a field's operands are read as: the column's, or text/jsonb after a JSON path. */
function operandType(table: Table, field: FieldRef): string {
  const last = field.json.at(-1);
  if (last) return last.arrow === '->>' ? 'text' : 'jsonb';
  return table.columns.get(field.column)!.type;
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

const IS_VALUES: Record<string, string> = { null: 'null', true: 'true', false: 'false', unknown: 'unknown' };

/**
 * A request value as an operand of `type`. It is bound as text and cast in SQL: postgres.js picks
 * its serializer by the parameter type the server infers, and its boolean, date and json
 * serializers do not take text as it is ('true' would go out as false, a JSON text as a JSON string).
 */
const operand = (params: Params, value: string, type: string) => `${params.add(value)}::text::${type}`;
const operandList = (params: Params, values: string[], type: string) => `${params.add(values)}::text[]::${type}[]`;

function conditionSql(table: Table, alias: string, c: Condition, params: Params): string {
  const field = fieldSql(table, alias, c.field, params);
  const type = operandType(table, c.field);
  const value = c.value;
  let sql: string;
  if (c.operator === 'is') {
    const literal = IS_VALUES[String(value).toLowerCase()];
    if (!literal)
      throw recordsError(
        'VALIDATION_ERROR',
        'PGRST100',
        `"is" takes null, true, false or unknown, not "${String(value)}"`,
      );
    sql = `${field} is ${literal}`;
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
 * The SQL of a filter expression on `table` (aliased `alias`). `special` may render a condition
 * itself (an embed's `rel.is.null`, at any depth of a logic tree); undefined falls through.
 */
export function expressionSql(
  table: Table,
  alias: string,
  e: Expression,
  params: Params,
  special?: (c: Condition) => string | undefined,
): string {
  if (e.kind === 'condition') return special?.(e) ?? conditionSql(table, alias, e, params);
  if (e.children.length === 0) return e.negated ? 'false' : 'true';
  // Parenthesised whole: the caller joins filters with `and`, which binds tighter than `or`.
  const joined = e.children
    .map((child) => `(${expressionSql(table, alias, child, params, special)})`)
    .join(` ${e.op} `);
  return e.negated ? `not (${joined})` : `(${joined})`;
}
