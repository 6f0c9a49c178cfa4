// What a records request asks for, as the parser understands PostgREST's query grammar. Pure
// data: the planner checks every name in here against the schema cache before any SQL exists.

/** One step of a JSON path: `->` keeps JSON, `->>` extracts text. Numbers index arrays. */
export interface JsonStep {
  arrow: '->' | '->>';
  key: string | number;
}

/** A column, possibly followed by a JSON path: `data->a->>b`. */
export interface FieldRef {
  column: string;
  json: JsonStep[];
}

export type SelectItem =
  /** `*` */
  | { kind: 'star' }
  /** `alias:col->path::cast` */
  | { kind: 'field'; field: FieldRef; alias?: string; cast?: string }
  /**
   * An embedded resource over a foreign key: `alias:relation!hint!inner(select…)`; `spread`
   * (`...relation(select…)`) puts a to-one embed's columns into its parent's object.
   * `hint` names the foreign key constraint or column that disambiguates; `inner` makes it an
   * inner join (rows without a match are dropped).
   */
  | {
      kind: 'embed';
      relation: string;
      alias?: string;
      hint?: string;
      inner: boolean;
      select: SelectItem[];
      spread?: boolean;
    };

export const OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'ilike',
  'match',
  'imatch',
  'in',
  'is',
  'isdistinct',
  'cs',
  'cd',
  'ov',
  'sl',
  'sr',
  'nxl',
  'nxr',
  'adj',
  'fts',
  'plfts',
  'phfts',
  'wfts',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** `col=[not.]op[(any|all)].value` (or the same inside a logic tree). */
export interface Condition {
  kind: 'condition';
  field: FieldRef;
  negated: boolean;
  operator: Operator;
  /** `eq(any).{a,b}`: compare with any/all of a list. */
  quantifier?: 'any' | 'all';
  /**
   * The operand as written (unescaped, quotes removed): a string; a list for `in` and for
   * quantified operators; for `is` one of null|true|false|unknown.
   */
  value: string | string[];
  /** Text-search configuration: `fts(english).word`. */
  language?: string;
}

/** `or=(a.eq.1,and(b.gt.2,c.is.null))`, `not.and=(…)`. */
export interface LogicTree {
  kind: 'logic';
  op: 'and' | 'or';
  negated: boolean;
  children: Expression[];
}

export type Expression = Condition | LogicTree;

/** A filter on the root (`path` empty) or on an embedded resource (`path` = aliases/names). */
export interface Filter {
  path: string[];
  expression: Expression;
}

export interface OrderTerm {
  /** `rel(col)`: a column of the to-one embedded resource `rel` (alias or name) orders the parent. */
  relation?: string;
  field: FieldRef;
  direction: 'asc' | 'desc';
  nulls?: 'first' | 'last';
}

export interface Ordering {
  path: string[];
  terms: OrderTerm[];
}

export interface Paging {
  path: string[];
  limit?: number;
  offset?: number;
}

/** Everything in a records request's query string. */
export interface ParsedQuery {
  /** Absent `select` means `*`. */
  select: SelectItem[];
  filters: Filter[];
  orderings: Ordering[];
  paging: Paging[];
  /** `on_conflict=a,b` (upserts). */
  onConflict?: string[];
  /** `columns=a,b` (inserts: which keys of the body to use). */
  columns?: string[];
}

/** The `Prefer` header, as far as records requests use it. */
export interface Preferences {
  return?: 'minimal' | 'representation' | 'headers-only';
  count?: 'exact' | 'planned' | 'estimated';
  resolution?: 'merge-duplicates' | 'ignore-duplicates';
  missing?: 'default' | 'null';
  /** `tx=rollback` / `tx=commit` */
  tx?: 'commit' | 'rollback';
  /** `handling=strict` refuses invalid preferences (PGRST122) and enforces `max-affected`. */
  handling?: 'strict' | 'lenient';
  /** `max-affected=n`: with handling=strict, a write changing more rows fails (PGRST124). */
  maxAffected?: number;
  /** `timezone=…`: the transaction's TimeZone (timestamptz values in JSON carry its offset). */
  timezone?: string;
  /** The preferences that were not understood, as sent (only when there are some). */
  invalid?: string[];
}

/** A grammar error: what was malformed, where, and PostgREST's error code (PGRST100 for parse errors). */
export class GrammarError extends Error {
  constructor(
    message: string,
    readonly details?: string,
    readonly code = 'PGRST100',
  ) {
    super(message);
    this.name = 'GrammarError';
  }
}
