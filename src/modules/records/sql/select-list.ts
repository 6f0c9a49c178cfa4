// The `select=` of a read (or of a write's returned rows) as SQL: columns, renames, casts, JSON
// paths, and embedded resources as correlated subqueries over foreign keys, each carrying its own
// filters, order and paging.
import type { Filter, Ordering, Paging, SelectItem } from '../grammar/ast.js';
import { recordsError } from '../records-errors.js';
import { qualified, type SchemaSnapshot, type Table } from '../schema-cache.js';
import { columnOf, expressionSql, fieldSql } from './conditions.js';
import { ident, type Params } from './params.js';

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

interface Relationship {
  child: Table;
  /** to-one: the parent holds the foreign key (many-to-one); to-many: the child does. */
  cardinality: 'to-one' | 'to-many';
  /** [parent column, child column] pairs. */
  join: [string, string][];
}

const samePath = (a: string[], b: string[]) => a.length === b.length && a.every((p, i) => p === b[i]);

/** The foreign key between `parent` and the table `relation`, picked by `hint` if several. */
function relationshipOf(snapshot: SchemaSnapshot, parent: Table, relation: string, hint: string | undefined): Relationship {
  const child = snapshot.tables.get(qualified(parent.schema, relation));
  const candidates: (Relationship & { names: string[] })[] = [];
  for (const fk of snapshot.foreignKeys) {
    const names = [fk.name, ...fk.columns];
    const fromParent = fk.schema === parent.schema && fk.table === parent.name;
    const referenced = snapshot.tables.get(qualified(fk.refSchema, fk.refTable));
    // Embedding by the foreign key's column (`author_id(*)`) or constraint name: the row it points at.
    if (fromParent && referenced && (fk.columns.length === 1 && fk.columns[0] === relation || fk.name === relation)) {
      candidates.push({ child: referenced, cardinality: 'to-one', join: fk.columns.map((c, i) => [c, fk.refColumns[i]!]), names });
      continue;
    }
    if (!child) continue;
    const selfReference = child === parent;
    // By table name, a table's reference to itself is read as one-to-many, as PostgREST does.
    if (!selfReference && fromParent && fk.refTable === child.name && fk.refSchema === child.schema) {
      candidates.push({ child, cardinality: 'to-one', join: fk.columns.map((c, i) => [c, fk.refColumns[i]!]), names });
    }
    if (fk.schema === child.schema && fk.table === child.name && fk.refTable === parent.name && fk.refSchema === parent.schema) {
      candidates.push({ child, cardinality: 'to-many', join: fk.refColumns.map((c, i) => [c, fk.columns[i]!]), names });
    }
  }
  const matching = hint === undefined ? candidates : candidates.filter((c) => c.names.includes(hint));
  if (matching.length === 1) return matching[0]!;
  if (matching.length === 0) {
    throw recordsError('VALIDATION_ERROR', 'PGRST200', `Could not find a relationship between '${parent.name}' and '${relation}' in the schema cache`, {
      hint: 'Embedding follows foreign keys; check the table name or add a foreign key.',
    });
  }
  throw recordsError('MULTIPLE_CHOICES', 'PGRST201', `Could not embed because more than one relationship was found for '${parent.name}' and '${relation}'`, {
    details: matching.map((m) => m.names[0]).join(', '),
    hint: `Pick one with '${relation}!<constraint name>'.`,
  });
}

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
    return this.shape.filters
      .filter((f) => samePath(f.path, path))
      .map((f) => expressionSql(table, alias, f.expression, this.params));
  }

  orderBy(table: Table, alias: string, path: string[]): string {
    const terms = this.shape.orderings.filter((o) => samePath(o.path, path)).flatMap((o) => o.terms);
    if (terms.length === 0) return '';
    const parts = terms.map((t) => {
      const nulls = t.nulls ? ` nulls ${t.nulls}` : '';
      return `${fieldSql(table, alias, t.field, this.params)} ${t.direction}${nulls}`;
    });
    return ` order by ${parts.join(', ')}`;
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
   * The select list of `items` on `table` (aliased `alias`), and the conditions `!inner` embeds
   * add to the parent's WHERE.
   */
  list(table: Table, alias: string, items: SelectItem[], path: string[]): { columns: string[]; inner: string[] } {
    if (path.length > MAX_EMBED_DEPTH) {
      throw recordsError('VALIDATION_ERROR', 'PGRST100', `Embedding is limited to ${MAX_EMBED_DEPTH} levels`);
    }
    const columns: string[] = [];
    const inner: string[] = [];
    this.items += items.length;
    this.embeds += items.filter((item) => item.kind === 'embed').length;
    if (this.items > MAX_SELECT_ITEMS || this.embeds > MAX_EMBEDS) {
      throw recordsError('VALIDATION_ERROR', 'PGRST100', `A select may hold at most ${MAX_SELECT_ITEMS} items and ${MAX_EMBEDS} embedded resources`);
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
      } else {
        const { sql, exists } = this.embed(table, alias, item, [...path, item.alias ?? item.relation]);
        columns.push(`${sql} as ${ident(item.alias ?? item.relation)}`);
        if (item.inner) inner.push(exists);
      }
    }
    return { columns, inner };
  }

  private embed(parent: Table, parentAlias: string, item: Extract<SelectItem, { kind: 'embed' }>, path: string[]) {
    const rel = relationshipOf(this.snapshot, parent, item.relation, item.hint);
    const alias = this.nextAlias();
    const childName = `${ident(rel.child.schema)}.${ident(rel.child.name)}`;
    const join = rel.join.map(([p, c]) => `${columnOf(rel.child, alias, c)} = ${columnOf(parent, parentAlias, p)}`);
    const { columns, inner } = this.list(rel.child, alias, item.select, path);
    const where = [...join, ...this.conditions(rel.child, alias, path), ...inner].join(' and ');
    // The alias is free in the parent's WHERE too: the select list's subquery is another scope.
    const exists = `exists (select 1 from ${childName} ${alias} where ${where})`;
    if (rel.cardinality === 'to-one') {
      return { sql: `(select row_to_json(_e) from (select ${columns.join(', ')} from ${childName} ${alias} where ${where} limit 1) _e)`, exists };
    }
    const order = this.orderBy(rel.child, alias, path);
    return {
      sql: `(select coalesce(json_agg(_e), '[]'::json) from (select ${columns.join(', ')} from ${childName} ${alias} where ${where}${order}${this.limitOffset(path)}) _e)`,
      exists,
    };
  }
}
