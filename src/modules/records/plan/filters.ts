// Filters planned: every condition's column checked against its table, the type its operands
// are read as, and `is` values checked; logic trees kept as trees. An embed's `rel=is.null` is
// planned by the caller (`special`), which knows the select's embeds.
import type { Condition, Expression } from '../grammar/ast.js';
import { recordsError } from '../records-errors.js';
import type { Table } from '../schema-cache.js';
import { checkedField, operandType } from './fields.js';
import type { PlannedCondition, PlannedExpression } from './types.js';

const IS_VALUES: Record<string, string> = { null: 'null', true: 'true', false: 'false', unknown: 'unknown' };

function planCondition(table: Table, c: Condition): PlannedCondition {
  const field = checkedField(table, c.field);
  const type = operandType(table, c.field);
  let literal: string | undefined;
  if (c.operator === 'is') {
    literal = IS_VALUES[String(c.value).toLowerCase()];
    if (!literal)
      throw recordsError(
        'VALIDATION_ERROR',
        'PGRST100',
        `"is" takes null, true, false or unknown, not "${String(c.value)}"`,
      );
  }
  const { operator, negated, quantifier, value, language } = c;
  return {
    kind: 'condition',
    field,
    operandType: type,
    operator,
    negated,
    quantifier,
    value,
    language,
    isLiteral: literal,
  };
}

/** A filter expression on `table`. `special` may plan a condition itself (undefined falls through). */
export function planExpression(
  table: Table,
  e: Expression,
  special?: (c: Condition) => PlannedExpression | undefined,
): PlannedExpression {
  if (e.kind === 'condition') return special?.(e) ?? planCondition(table, e);
  return { ...e, children: e.children.map((child) => planExpression(table, child, special)) };
}
