// The typed plan of a records request: every name already resolved against the schema cache
// (tables, columns with their types, relationships of embeds, casts checked), every request value
// still a value. sql/ renders a plan into one statement and may take all of it as valid.
import type { FieldRef, Operator } from '../grammar/ast.js';
import type { Column, ForeignKey, Routine, RoutineArg, Table } from '../schema-cache.js';

/** How rows of a child relate to its parent's: column pairs, or a junction row pointing at both. */
export type JoinPlan =
  | { kind: 'pairs'; parent: Table; child: Table; pairs: [parentColumn: string, childColumn: string][] }
  | { kind: 'junction'; parent: Table; child: Table; junction: Table; toParent: ForeignKey; toChild: ForeignKey };

/** A resolved embedding: the child table, how many rows relate, and how they join. */
export interface Relationship {
  child: Table;
  /** to-one: one object (or null); to-many: an array. */
  cardinality: 'to-one' | 'to-many';
  join: JoinPlan;
}

/** A filter condition on a column that exists; operands are read as `operandType`. */
export interface PlannedCondition {
  kind: 'condition';
  field: FieldRef;
  operandType: string;
  operator: Operator;
  negated: boolean;
  quantifier?: 'any' | 'all';
  value: string | string[];
  language?: string;
  /** `is`: the SQL literal (null, true, false, unknown). */
  isLiteral?: string;
}

/** `rel=is.null` / `rel=not.is.null` on an embedded resource: whether a match exists. */
export interface PlannedEmbedNull {
  kind: 'embed-null';
  /** true: rows with a match (`not.is.null`). */
  exists: boolean;
  match: PlannedExists;
}

export interface PlannedLogic {
  kind: 'logic';
  op: 'and' | 'or';
  negated: boolean;
  children: PlannedExpression[];
}

export type PlannedExpression = PlannedCondition | PlannedEmbedNull | PlannedLogic;

/** Whether a parent row has a match in an embed: its join, its filters, its !inner embeds. */
export interface PlannedExists {
  relationship: Relationship;
  nested: PlannedExists[];
  filters: PlannedExpression[];
}

export interface PlannedOrderTerm {
  field: FieldRef;
  direction: 'asc' | 'desc';
  nulls?: 'first' | 'last';
  /** `order=rel(col)`: the column of the parent's one related row (a to-one relationship). */
  related?: Relationship;
}

export interface PlannedPage {
  limit?: number;
  offset?: number;
}

export type PlannedItem =
  | { kind: 'star' }
  /** `name`: the output column's name (alias, last JSON key, or column). `cast` is checked. */
  | { kind: 'field'; field: FieldRef; cast?: string; name: string }
  /** `...rel(cols)`: a to-one embed's columns in the parent's row. */
  | { kind: 'spread'; relationship: Relationship; inner: boolean; node: PlannedNode }
  | { kind: 'embed'; relationship: Relationship; inner: boolean; name: string; node: PlannedNode };

/**
 * A resource of a read: the root or an embed. `order` and `page` are empty where they do not
 * apply (to-one embeds and spreads); the root's page holds the row cap already.
 */
export interface PlannedNode {
  table: Table;
  filters: PlannedExpression[];
  order: PlannedOrderTerm[];
  page: PlannedPage;
  /** The select list (never empty: `*` when the request names nothing). */
  items: PlannedItem[];
}

/** What a write answers with return=representation: its select list over the changed rows. */
export type Returning = PlannedItem[] | undefined;

export interface InsertPlan {
  kind: 'insert';
  table: Table;
  /** The columns written, in the order of the body's keys (or `columns=`). */
  columns: Column[];
  /** The rows as JSON text (bound once, read by PostgreSQL). */
  body: string;
  rowCount: number;
  /** `missing=default`: a column a row lacks takes its DEFAULT. */
  missingDefault: boolean;
  /** ON CONFLICT on these key columns: update the other columns (`merge`) or do nothing. */
  conflict?: { keys: string[]; merge: boolean };
  returning: Returning;
}

export interface UpdatePlan {
  kind: 'update';
  table: Table;
  columns: Column[];
  /** The changes as JSON text. */
  changes: string;
  filters: PlannedExpression[];
  returning: Returning;
}

export interface DeletePlan {
  kind: 'delete';
  table: Table;
  filters: PlannedExpression[];
  returning: Returning;
}

export interface ReadPlan extends PlannedNode {
  kind: 'read';
}

export type WritePlan = InsertPlan | UpdatePlan | DeletePlan;

/** A function call's arguments: each parameter with its value as the text PostgreSQL reads. */
export interface PlannedArgument {
  arg: RoutineArg;
  text: string | null;
}

/** How a call's answer becomes the response body. */
export type RpcResultShape =
  /** `returns void`: 204 without a body. */
  | 'void'
  /** One value (`returns integer`): the JSON value itself. */
  | 'scalar'
  /** One row (`returns notes`, OUT parameters): a JSON object (or null). */
  | 'single'
  /** Rows (`returns setof notes`, `returns table(…)`) or values (`returns setof integer`): a JSON array. */
  | 'set';

export interface CallPlan {
  routine: Routine;
  args: PlannedArgument[];
  shape: RpcResultShape;
  /** Rows or values of a set, shaped by the records grammar; `scalars`: values named after the function. */
  result?: { node: PlannedNode; scalars: boolean };
}
