// How a resolved relationship joins a child row (aliased `childAlias`) to its parent's: column
// pairs as equalities, or a junction row pointing at both (a semi-join, no duplicates).
import type { Table } from '../schema-cache.js';
import type { JoinPlan } from '../plan/types.js';
import { ident } from './params.js';

/** A column of `table` qualified by the query's alias. */
export const columnOf = (alias: string, column: string): string => `${alias}.${ident(column)}`;

/** `schema.table`, quoted. */
export const tableName = (table: Table) => `${ident(table.schema)}.${ident(table.name)}`;

export function joinSql(join: JoinPlan, childAlias: string, parentAlias: string): string {
  if (join.kind === 'pairs') {
    return join.pairs.map(([p, c]) => `${columnOf(childAlias, c)} = ${columnOf(parentAlias, p)}`).join(' and ');
  }
  const { junction, toParent, toChild } = join;
  const j = `${childAlias}_j`;
  const conditions = [
    ...toChild.columns.map((c, i) => `${columnOf(j, c)} = ${columnOf(childAlias, toChild.refColumns[i]!)}`),
    ...toParent.columns.map((c, i) => `${columnOf(j, c)} = ${columnOf(parentAlias, toParent.refColumns[i]!)}`),
  ];
  return `exists (select 1 from ${tableName(junction)} ${j} where ${conditions.join(' and ')})`;
}
