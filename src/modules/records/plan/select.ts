// The `select=` of a request planned against the schema cache, with the filters, order and paging
// of each resource it embeds: relationships resolved (PGRST200/201), to-one where it must be
// (PGRST118/119), columns, casts and names checked, depth and size limited. The walk visits
// everything in the order the statement renders it, so the first error is the one a reader of
// the SQL would meet first.
import type { Condition, FieldRef, Filter, Ordering, Paging, SelectItem } from '../grammar/ast.js';
import { recordsError } from '../records-errors.js';
import type { SchemaSnapshot, Table } from '../schema-cache.js';
import { checkedCast, checkedField, checkedName } from './fields.js';
import { planExpression } from './filters.js';
import { relationshipOf } from './relationships.js';
import type {
  PlannedExists,
  PlannedExpression,
  PlannedItem,
  PlannedNode,
  PlannedOrderTerm,
  PlannedPage,
  Relationship,
} from './types.js';

const MAX_EMBED_DEPTH = 5;
/** Items in one request's select, all levels together (PostgreSQL allows 1664 per select list). */
export const MAX_SELECT_ITEMS = 1000;
/** Embedded resources in one request's select: each is a correlated subquery. */
export const MAX_EMBEDS = 100;

/** The parts of a parsed query that shape the rows a statement answers. */
export interface ReadShape {
  select: SelectItem[];
  filters: Filter[];
  orderings: Ordering[];
  paging: Paging[];
}

type Embed = Extract<SelectItem, { kind: 'embed' }>;

const samePath = (a: string[], b: string[]) => a.length === b.length && a.every((p, i) => p === b[i]);

const notEmbedded = (resource: string) =>
  recordsError('VALIDATION_ERROR', 'PGRST108', `'${resource}' is not an embedded resource in this request`, {
    hint: `Verify that '${resource}' is included in the 'select' query parameter.`,
  });

/** `rel`, if it relates one row to the parent's; else a 400 with PostgREST's code. */
function toOne(rel: Relationship, parent: Table, code: string, message: string): Relationship {
  if (rel.cardinality === 'to-one') return rel;
  throw recordsError('VALIDATION_ERROR', code, message, {
    details: `'${parent.name}' and '${rel.child.name}' do not form a many-to-one or one-to-one relationship`,
  });
}

/** Plans the resources of one query; counts select items across all its levels. */
export class ShapePlanner {
  private items = 0;
  private embeds = 0;

  constructor(
    private readonly snapshot: SchemaSnapshot,
    private readonly shape: ReadShape,
  ) {}

  /** The filters of the resource at `path` (root: []). */
  filters(table: Table, path: string[]): PlannedExpression[] {
    return this.shape.filters
      .filter((f) => samePath(f.path, path))
      .map((f) => planExpression(table, f.expression, (c) => this.embedNull(table, path, c)));
  }

  /** `rel=is.null` / `rel=not.is.null` on an embedded resource (also inside `or=(…)`); else undefined. */
  private embedNull(table: Table, path: string[], c: Condition): PlannedExpression | undefined {
    if (c.operator !== 'is' || c.value !== 'null' || c.field.json.length > 0 || table.columns.has(c.field.column))
      return undefined;
    const embed = this.embedAt(path, c.field.column);
    if (!embed) return undefined;
    return { kind: 'embed-null', exists: c.negated, match: this.existsOf(table, embed, [...path, c.field.column]) };
  }

  /** The embed named `name` (alias or relation) in the select of the resource at `path`. */
  private embedAt(path: string[], name: string): Embed | undefined {
    let items = this.shape.select;
    for (const step of path)
      items = items.find((i): i is Embed => i.kind === 'embed' && (i.alias ?? i.relation) === step)?.select ?? [];
    return items.find((i): i is Embed => i.kind === 'embed' && (i.alias ?? i.relation) === name);
  }

  private existsOf(parent: Table, item: Embed, path: string[]): PlannedExists {
    const relationship = relationshipOf(this.snapshot, parent, item.relation, item.hint);
    const nested = item.select
      .filter((i): i is Embed => i.kind === 'embed' && i.inner)
      .map((i) => this.existsOf(relationship.child, i, [...path, i.alias ?? i.relation]));
    return { relationship, nested, filters: this.filters(relationship.child, path) };
  }

  order(table: Table, path: string[]): PlannedOrderTerm[] {
    const terms = this.shape.orderings.filter((o) => samePath(o.path, path)).flatMap((o) => o.terms);
    return terms.map(({ relation, field, direction, nulls }) => {
      const term: PlannedOrderTerm = { field, direction, nulls };
      if (relation === undefined) {
        term.field = checkedField(table, field);
      } else {
        term.related = this.related(table, path, relation, field);
      }
      return term;
    });
  }

  /** `order=rel(col)`: the parent's one related row (to-one embeds only, as PostgREST). */
  private related(parent: Table, path: string[], relation: string, field: FieldRef): Relationship {
    const embed = this.embedAt(path, relation);
    if (!embed) throw notEmbedded(relation);
    const rel = toOne(
      relationshipOf(this.snapshot, parent, embed.relation, embed.hint),
      parent,
      'PGRST118',
      `A related order on '${relation}' is not possible`,
    );
    checkedField(rel.child, field);
    return rel;
  }

  page(path: string[], maxRows?: number): PlannedPage {
    const page = this.shape.paging.find((p) => samePath(p.path, path));
    const limit = page?.limit === undefined ? maxRows : Math.min(page.limit, maxRows ?? page.limit);
    return { limit, offset: page?.offset };
  }

  /** The select list of `items` on `table`: `*` when it names nothing. */
  list(table: Table, items: SelectItem[], path: string[]): PlannedItem[] {
    if (path.length > MAX_EMBED_DEPTH) {
      throw recordsError('VALIDATION_ERROR', 'PGRST100', `Embedding is limited to ${MAX_EMBED_DEPTH} levels`);
    }
    this.items += items.length;
    this.embeds += items.filter((item) => item.kind === 'embed').length;
    if (this.items > MAX_SELECT_ITEMS || this.embeds > MAX_EMBEDS) {
      throw recordsError(
        'VALIDATION_ERROR',
        'PGRST100',
        `A select may hold at most ${MAX_SELECT_ITEMS} items and ${MAX_EMBEDS} embedded resources`,
      );
    }
    if (items.length === 0) return [{ kind: 'star' }];
    return items.map((item): PlannedItem => {
      if (item.kind === 'star') return item;
      if (item.kind === 'field') {
        const field = checkedField(table, item.field);
        const cast = item.cast === undefined ? undefined : checkedCast(item.cast);
        const lastKey = item.field.json.at(-1)?.key;
        const name = checkedName(item.alias ?? (lastKey === undefined ? item.field.column : String(lastKey)));
        return { kind: 'field', field, cast, name };
      }
      if (item.spread) return this.spread(table, item, [...path, item.relation]);
      const embed = this.embed(table, item, [...path, item.alias ?? item.relation]);
      checkedName(embed.name);
      return embed;
    });
  }

  /** `...rel(cols)`: a to-one embed's columns in the parent's row. */
  private spread(parent: Table, item: Embed, path: string[]): PlannedItem {
    const relationship = toOne(
      relationshipOf(this.snapshot, parent, item.relation, item.hint),
      parent,
      'PGRST119',
      `A spread operation on '${item.relation}' is not possible`,
    );
    const child = relationship.child;
    const items = this.list(child, item.select, path);
    const node = { table: child, items, filters: this.filters(child, path), order: [], page: {} };
    return { kind: 'spread', relationship, inner: item.inner, node };
  }

  private embed(parent: Table, item: Embed, path: string[]): Extract<PlannedItem, { kind: 'embed' }> {
    const relationship = relationshipOf(this.snapshot, parent, item.relation, item.hint);
    const child = relationship.child;
    const items = this.list(child, item.select, path);
    const filters = this.filters(child, path);
    // A to-one embed answers one object: no order or paging of its own.
    const many = relationship.cardinality === 'to-many';
    const node: PlannedNode = {
      table: child,
      items,
      filters,
      order: many ? this.order(child, path) : [],
      page: many ? this.page(path) : {},
    };
    return { kind: 'embed', relationship, inner: item.inner, name: item.alias ?? item.relation, node };
  }
}

/** The embedding paths `select` names (`a`, `a.b`…), by alias or relation as the filters name them. */
function embedPaths(items: SelectItem[], prefix: string[] = [], into = new Set<string>()): Set<string> {
  for (const item of items) {
    if (item.kind !== 'embed') continue;
    const path = [...prefix, item.alias ?? item.relation];
    into.add(JSON.stringify(path));
    embedPaths(item.select, path, into);
  }
  return into;
}

/** A filter, order or limit on an embed the select does not have is an error (PGRST108), as in PostgREST. */
export function checkEmbedded(shape: ReadShape): void {
  const known = embedPaths(shape.select);
  for (const { path } of [...shape.filters, ...shape.orderings, ...shape.paging]) {
    if (path.length === 0 || known.has(JSON.stringify(path))) continue;
    throw notEmbedded(path.join('.'));
  }
}
