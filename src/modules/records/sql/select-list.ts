// A planned select list (of a read, or of a write's returned rows) as SQL: columns, renames,
// casts, JSON paths, and embedded resources as correlated subqueries over their resolved
// relationships, each carrying its own filters, order and paging. Aliases t0, t1… and bound
// parameters are numbered in the order they are written.
import type {
  PlannedExists,
  PlannedExpression,
  PlannedItem,
  PlannedOrderTerm,
  PlannedPage,
  Relationship,
} from '../plan/types.js';
import { expressionSql, fieldSql } from './conditions.js';
import { joinSql, tableName } from './joins.js';
import { ident, type Params } from './params.js';

export interface RenderedList {
  columns: string[];
  /** The conditions `!inner` embeds add to the parent's WHERE. */
  inner: string[];
  /** The lateral joins spread embeds add to the parent's FROM. */
  joins: string;
}

export class SelectRenderer {
  private aliasCount = 0;

  constructor(readonly params: Params) {}

  nextAlias(): string {
    return `t${this.aliasCount++}`;
  }

  /** The WHERE conditions of planned filters on the resource aliased `alias`. */
  conditions(filters: PlannedExpression[], alias: string): string[] {
    return filters.map((f) => expressionSql(alias, f, this.params, (match) => this.existsOf(match, alias)));
  }

  /** Whether a parent row has a match in an embed: its join, filters and nested !inner embeds. */
  private existsOf(match: PlannedExists, parentAlias: string): string {
    const { child, join } = match.relationship;
    const alias = this.nextAlias();
    const nested = match.nested.map((n) => this.existsOf(n, alias));
    const where = [joinSql(join, alias, parentAlias), ...this.conditions(match.filters, alias), ...nested];
    return `exists (select 1 from ${tableName(child)} ${alias} where ${where.join(' and ')})`;
  }

  orderBy(order: PlannedOrderTerm[], alias: string): string {
    if (order.length === 0) return '';
    const parts = order.map((t) => {
      const nulls = t.nulls ? ` nulls ${t.nulls}` : '';
      const sql =
        t.related === undefined ? fieldSql(alias, t.field, this.params) : this.relatedField(t.related, alias, t);
      return `${sql} ${t.direction}${nulls}`;
    });
    return ` order by ${parts.join(', ')}`;
  }

  /** `order=rel(col)`: the column of the parent's one related row. */
  private relatedField(rel: Relationship, parentAlias: string, term: PlannedOrderTerm): string {
    const alias = this.nextAlias();
    const field = fieldSql(alias, term.field, this.params);
    return `(select ${field} from ${tableName(rel.child)} ${alias} where ${joinSql(rel.join, alias, parentAlias)} limit 1)`;
  }

  limitOffset(page: PlannedPage): string {
    const { limit, offset } = page;
    return `${limit === undefined ? '' : ` limit ${this.params.add(limit)}`}${offset ? ` offset ${this.params.add(offset)}` : ''}`;
  }

  /** The select list of `items` on the resource aliased `alias`. */
  list(items: PlannedItem[], alias: string): RenderedList {
    const columns: string[] = [];
    const inner: string[] = [];
    let joins = '';
    for (const item of items) {
      if (item.kind === 'star') {
        columns.push(`${alias}.*`);
      } else if (item.kind === 'field') {
        const sql = fieldSql(alias, item.field, this.params);
        // CAST(… AS …): the type name stays inside the parentheses. With `(…)::type` a cast of
        // several words (`int from other t0 union all select id`) went on as SQL.
        columns.push(`${item.cast === undefined ? sql : `cast(${sql} as ${item.cast})`} as ${ident(item.name)}`);
      } else if (item.kind === 'spread') {
        const spread = this.spread(item, alias);
        columns.push(spread.columns);
        joins += spread.join;
        if (item.inner) inner.push(spread.exists);
      } else {
        const { sql, exists } = this.embed(item, alias);
        columns.push(`${sql} as ${ident(item.name)}`);
        if (item.inner) inner.push(exists);
      }
    }
    return { columns, inner, joins };
  }

  /** `...rel(cols)`: a to-one embed's columns in the parent's row, by a lateral join. */
  private spread(item: Extract<PlannedItem, { kind: 'spread' }>, parentAlias: string) {
    const { relationship: rel, node } = item;
    const alias = this.nextAlias();
    const child = tableName(rel.child);
    const { columns, inner, joins } = this.list(node.items, alias);
    const where = [joinSql(rel.join, alias, parentAlias), ...this.conditions(node.filters, alias), ...inner].join(
      ' and ',
    );
    return {
      columns: `${alias}_s.*`,
      join: ` left join lateral (select ${columns.join(', ')} from ${child} ${alias}${joins} where ${where} limit 1) ${alias}_s on true`,
      exists: `exists (select 1 from ${child} ${alias} where ${where})`,
    };
  }

  private embed(item: Extract<PlannedItem, { kind: 'embed' }>, parentAlias: string) {
    const { relationship: rel, node } = item;
    const alias = this.nextAlias();
    const childName = tableName(rel.child);
    const { columns, inner, joins } = this.list(node.items, alias);
    const where = [joinSql(rel.join, alias, parentAlias), ...this.conditions(node.filters, alias), ...inner].join(
      ' and ',
    );
    const from = `${childName} ${alias}${joins}`;
    // The alias is free in the parent's WHERE too: the select list's subquery is another scope.
    const exists = `exists (select 1 from ${childName} ${alias} where ${where})`;
    if (rel.cardinality === 'to-one') {
      return {
        sql: `(select row_to_json(_e) from (select ${columns.join(', ')} from ${from} where ${where} limit 1) _e)`,
        exists,
      };
    }
    const order = this.orderBy(node.order, alias);
    return {
      sql: `(select coalesce(json_agg(_e), '[]'::json) from (select ${columns.join(', ')} from ${from} where ${where}${order}${this.limitOffset(node.page)}) _e)`,
      exists,
    };
  }
}
