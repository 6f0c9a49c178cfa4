// The `select=` of a read (or of a write's returned rows) as SQL: columns, renames, casts, JSON
// paths, and embedded resources as correlated subqueries over foreign keys, each carrying its own
// filters, order and paging.
import type { Condition, FieldRef, Filter, Ordering, Paging, SelectItem } from '../grammar/ast.js';
import { recordsError } from '../records-errors.js';
import type { SchemaSnapshot, Table } from '../schema-cache.js';
import { expressionSql, fieldSql } from './conditions.js';
import { ident, type Params } from './params.js';
import { relationshipOf, type Relationship } from './relationships.js';

const MAX_EMBED_DEPTH = 5;
/** Items in one request's select, all levels together (PostgreSQL allows 1664 per select list). */
export const MAX_SELECT_ITEMS = 1000;
/** Embedded resources in one request's select: each is a correlated subquery. */
export const MAX_EMBEDS = 100;
const CAST = /^[a-z_][a-z0-9_]*( [a-z_][a-z0-9_]*)*(\[\])?$/i;

export interface ReadShape {
  select: SelectItem[];
  filters: Filter[];
  orderings: Ordering[];
  paging: Paging[];
}

type Embed = Extract<SelectItem, { kind: 'embed' }>;

/** `rel`, if it relates one row to the parent's; else a 400 with PostgREST's code. */
function toOne(rel: Relationship, parent: Table, code: string, message: string): Relationship {
  if (rel.cardinality === 'to-one') return rel;
  throw recordsError('VALIDATION_ERROR', code, message, {
    details: `'${parent.name}' and '${rel.child.name}' do not form a many-to-one or one-to-one relationship`,
  });
}

export const samePath = (a: string[], b: string[]) => a.length === b.length && a.every((p, i) => p === b[i]);

export class SelectBuilder {
  private aliasCount = 0;
  private items = 0;
  private embeds = 0;

  constructor(
    private readonly snapshot: SchemaSnapshot,
    private readonly shape: ReadShape,
    readonly params: Params,
  ) {}

  nextAlias(): string {
    return `t${this.aliasCount++}`;
  }

  /** The WHERE conditions of the resource at `path` (root: []). */
  conditions(table: Table, alias: string, path: string[]): string[] {
    // `rel=is.null` / `rel=not.is.null` on an embedded resource (also inside `or=(…)`): rows
    // without / with a match.
    const embedNull = (c: Condition): string | undefined => {
      if (c.operator !== 'is' || c.value !== 'null' || c.field.json.length > 0 || table.columns.has(c.field.column))
        return undefined;
      const embed = this.embedAt(path, c.field.column);
      if (!embed) return undefined;
      const exists = this.existsOf(table, alias, embed, [...path, c.field.column]);
      return c.negated ? exists : `not ${exists}`;
    };
    return this.shape.filters
      .filter((f) => samePath(f.path, path))
      .map((f) => expressionSql(table, alias, f.expression, this.params, embedNull));
  }

  /** The embed named `name` (alias or relation) in the select of the resource at `path`. */
  private embedAt(path: string[], name: string): Embed | undefined {
    let items = this.shape.select;
    for (const step of path)
      items = items.find((i): i is Embed => i.kind === 'embed' && (i.alias ?? i.relation) === step)?.select ?? [];
    return items.find((i): i is Embed => i.kind === 'embed' && (i.alias ?? i.relation) === name);
  }

  /** Whether a parent row has a match in the embed: its join, filters and nested !inner embeds. */
  private existsOf(parent: Table, parentAlias: string, item: Embed, path: string[]): string {
    const rel = relationshipOf(this.snapshot, parent, item.relation, item.hint);
    const alias = this.nextAlias();
    const nested = item.select
      .filter((i): i is Embed => i.kind === 'embed' && i.inner)
      .map((i) => this.existsOf(rel.child, alias, i, [...path, i.alias ?? i.relation]));
    const where = [rel.join(alias, parentAlias), ...this.conditions(rel.child, alias, path), ...nested];
    return `exists (select 1 from ${ident(rel.child.schema)}.${ident(rel.child.name)} ${alias} where ${where.join(' and ')})`;
  }

  orderBy(table: Table, alias: string, path: string[]): string {
    const terms = this.shape.orderings.filter((o) => samePath(o.path, path)).flatMap((o) => o.terms);
    if (terms.length === 0) return '';
    const parts = terms.map((t) => {
      const nulls = t.nulls ? ` nulls ${t.nulls}` : '';
      const sql =
        t.relation === undefined
          ? fieldSql(table, alias, t.field, this.params)
          : this.relatedField(table, alias, path, t.relation, t.field);
      return `${sql} ${t.direction}${nulls}`;
    });
    return ` order by ${parts.join(', ')}`;
  }

  /** `order=rel(col)`: the column of the parent's one related row (to-one embeds only, as PostgREST). */
  private relatedField(parent: Table, parentAlias: string, path: string[], relation: string, field: FieldRef): string {
    const embed = this.embedAt(path, relation);
    if (!embed) {
      throw recordsError('VALIDATION_ERROR', 'PGRST108', `'${relation}' is not an embedded resource in this request`, {
        hint: `Verify that '${relation}' is included in the 'select' query parameter.`,
      });
    }
    const rel = toOne(
      relationshipOf(this.snapshot, parent, embed.relation, embed.hint),
      parent,
      'PGRST118',
      `A related order on '${relation}' is not possible`,
    );
    const alias = this.nextAlias();
    const child = `${ident(rel.child.schema)}.${ident(rel.child.name)}`;
    return `(select ${fieldSql(rel.child, alias, field, this.params)} from ${child} ${alias} where ${rel.join(alias, parentAlias)} limit 1)`;
  }

  paging(path: string[], maxRows?: number): { limit?: number; offset?: number } {
    const page = this.shape.paging.find((p) => samePath(p.path, path));
    const limit = page?.limit === undefined ? maxRows : Math.min(page.limit, maxRows ?? page.limit);
    return { limit, offset: page?.offset };
  }

  limitOffset(path: string[], maxRows?: number): string {
    const { limit, offset } = this.paging(path, maxRows);
    return `${limit === undefined ? '' : ` limit ${this.params.add(limit)}`}${offset ? ` offset ${this.params.add(offset)}` : ''}`;
  }

  /**
   * The select list of `items` on `table` (aliased `alias`), the conditions `!inner` embeds add
   * to the parent's WHERE, and the lateral joins spread embeds add to its FROM.
   */
  list(
    table: Table,
    alias: string,
    items: SelectItem[],
    path: string[],
  ): { columns: string[]; inner: string[]; joins: string } {
    if (path.length > MAX_EMBED_DEPTH) {
      throw recordsError('VALIDATION_ERROR', 'PGRST100', `Embedding is limited to ${MAX_EMBED_DEPTH} levels`);
    }
    const columns: string[] = [];
    const inner: string[] = [];
    let joins = '';
    this.items += items.length;
    this.embeds += items.filter((item) => item.kind === 'embed').length;
    if (this.items > MAX_SELECT_ITEMS || this.embeds > MAX_EMBEDS) {
      throw recordsError(
        'VALIDATION_ERROR',
        'PGRST100',
        `A select may hold at most ${MAX_SELECT_ITEMS} items and ${MAX_EMBEDS} embedded resources`,
      );
    }
    for (const item of items.length === 0 ? [{ kind: 'star' } as const] : items) {
      if (item.kind === 'star') {
        columns.push(`${alias}.*`);
      } else if (item.kind === 'field') {
        let sql = fieldSql(table, alias, item.field, this.params);
        if (item.cast !== undefined) {
          if (!CAST.test(item.cast)) throw recordsError('VALIDATION_ERROR', 'PGRST100', `Invalid cast "${item.cast}"`);
          // CAST(… AS …): the type name stays inside the parentheses. With `(…)::type` a cast of
          // several words (`int from other t0 union all select id`) went on as SQL.
          sql = `cast(${sql} as ${item.cast})`;
        }
        const lastKey = item.field.json.at(-1)?.key;
        const name = item.alias ?? (lastKey === undefined ? item.field.column : String(lastKey));
        columns.push(`${sql} as ${ident(name)}`);
      } else if (item.spread) {
        const spread = this.spread(table, alias, item, [...path, item.relation]);
        columns.push(spread.columns);
        joins += spread.join;
        if (item.inner) inner.push(spread.exists);
      } else {
        const { sql, exists } = this.embed(table, alias, item, [...path, item.alias ?? item.relation]);
        columns.push(`${sql} as ${ident(item.alias ?? item.relation)}`);
        if (item.inner) inner.push(exists);
      }
    }
    return { columns, inner, joins };
  }

  /** `...rel(cols)`: a to-one embed's columns in the parent's row, by a lateral join. */
  private spread(parent: Table, parentAlias: string, item: Embed, path: string[]) {
    const rel = toOne(
      relationshipOf(this.snapshot, parent, item.relation, item.hint),
      parent,
      'PGRST119',
      `A spread operation on '${item.relation}' is not possible`,
    );
    const alias = this.nextAlias();
    const child = `${ident(rel.child.schema)}.${ident(rel.child.name)}`;
    const { columns, inner, joins } = this.list(rel.child, alias, item.select, path);
    const where = [rel.join(alias, parentAlias), ...this.conditions(rel.child, alias, path), ...inner].join(' and ');
    return {
      columns: `${alias}_s.*`,
      join: ` left join lateral (select ${columns.join(', ')} from ${child} ${alias}${joins} where ${where} limit 1) ${alias}_s on true`,
      exists: `exists (select 1 from ${child} ${alias} where ${where})`,
    };
  }

  private embed(parent: Table, parentAlias: string, item: Embed, path: string[]) {
    const rel = relationshipOf(this.snapshot, parent, item.relation, item.hint);
    const alias = this.nextAlias();
    const childName = `${ident(rel.child.schema)}.${ident(rel.child.name)}`;
    const { columns, inner, joins } = this.list(rel.child, alias, item.select, path);
    const where = [rel.join(alias, parentAlias), ...this.conditions(rel.child, alias, path), ...inner].join(' and ');
    const from = `${childName} ${alias}${joins}`;
    // The alias is free in the parent's WHERE too: the select list's subquery is another scope.
    const exists = `exists (select 1 from ${childName} ${alias} where ${where})`;
    if (rel.cardinality === 'to-one') {
      return {
        sql: `(select row_to_json(_e) from (select ${columns.join(', ')} from ${from} where ${where} limit 1) _e)`,
        exists,
      };
    }
    const order = this.orderBy(rel.child, alias, path);
    return {
      sql: `(select coalesce(json_agg(_e), '[]'::json) from (select ${columns.join(', ')} from ${from} where ${where}${order}${this.limitOffset(path)}) _e)`,
      exists,
    };
  }
}
